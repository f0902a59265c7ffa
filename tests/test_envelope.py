"""Signed chained envelopes: each way a message can be wrong has its own error naming the sender."""

from __future__ import annotations

import hashlib

import pytest

from p2p_pageone.crypto.envelope import (
    BadSignature,
    BrokenChain,
    ChainVerifier,
    OldHand,
    OutOfOrder,
    Replayed,
    UnknownSender,
    WrongTable,
    genesis,
    open_envelope,
    seal,
)
from p2p_pageone.crypto.identity import Identity, fingerprint
from p2p_pageone.wire.codec import ProtocolError, pack, unpack

TABLE = b"T" * 16
ALICE = Identity(hashlib.sha256(b"alice").digest())
BOB = Identity(hashlib.sha256(b"bob").digest())
MALLORY = Identity(hashlib.sha256(b"mallory").digest())


def verifier() -> ChainVerifier:
    return ChainVerifier(TABLE, [ALICE.public, BOB.public])


def test_round_trip_and_chain() -> None:
    chain = verifier()
    first = seal(ALICE, TABLE, 0, 0, chain.head, "ready", {})
    env = chain.accept(first)
    assert env.kind == "ready" and env.sender == ALICE.public and env.seq == 0
    second = seal(BOB, TABLE, 0, 0, chain.head, "say", {"text": "hi"})
    assert chain.accept(second).data == {"text": "hi"}
    assert chain.length == 2 and chain.head != genesis(TABLE)


def test_fingerprint_is_short_and_stable() -> None:
    text = ALICE.fingerprint
    assert len(text) == 19 and text.count("-") == 3 and text == fingerprint(ALICE.public)
    assert text != BOB.fingerprint


def test_forged_signature_is_named() -> None:
    raw = seal(MALLORY, TABLE, 0, 0, genesis(TABLE), "say", {"text": "I am Alice"})
    _, body, signature = unpack(raw)
    header = unpack(body)
    header["from"] = ALICE.public  # claim to be Alice, keep Mallory's signature
    forged = pack([ALICE.public, pack(header), signature])
    with pytest.raises(BadSignature) as error:
        verifier().accept(forged)
    assert error.value.peer == ALICE.fingerprint


def test_signature_covers_exact_bytes() -> None:
    raw = seal(ALICE, TABLE, 0, 0, genesis(TABLE), "say", {"text": "hello"})
    sender, body, signature = unpack(raw)
    tampered = pack([sender, body.replace(b"hello", b"jello"), signature])
    with pytest.raises(BadSignature):
        open_envelope(tampered)


def test_replay_and_gap_are_distinct_errors() -> None:
    chain = verifier()
    raw = seal(ALICE, TABLE, 0, 0, chain.head, "ready", {})
    chain.accept(raw)
    with pytest.raises(Replayed, match="used already") as error:
        chain.accept(seal(ALICE, TABLE, 0, 0, chain.head, "ready", {}))
    assert error.value.peer == ALICE.fingerprint
    with pytest.raises(OutOfOrder, match="skips 1"):
        chain.accept(seal(ALICE, TABLE, 0, 5, chain.head, "ready", {}))


def test_other_table_old_hand_and_stranger() -> None:
    chain = verifier()
    with pytest.raises(WrongTable):
        chain.accept(seal(ALICE, b"U" * 16, 0, 0, chain.head, "ready", {}))
    old = seal(ALICE, TABLE, 0, 0, chain.head, "ready", {})
    chain.start_hand(1)
    with pytest.raises(OldHand, match="hand 0; this is hand 1"):
        chain.accept(old)
    with pytest.raises(UnknownSender):
        chain.accept(seal(MALLORY, TABLE, 1, 0, chain.head, "ready", {}))


def test_unknown_prev_means_a_dropped_or_reordered_message() -> None:
    chain = verifier()
    with pytest.raises(BrokenChain, match="never saw"):
        chain.accept(seal(ALICE, TABLE, 0, 0, b"\x00" * 32, "ready", {}))
    a0 = seal(ALICE, TABLE, 0, 0, chain.head, "ready", {})
    chain.accept(a0)
    later = chain.head
    chain.accept(seal(ALICE, TABLE, 0, 1, later, "say", {"text": "x"}))
    # Alice already referenced `later`; a message of hers pointing further back is a fork
    with pytest.raises(BrokenChain):
        chain.accept(seal(ALICE, TABLE, 0, 2, genesis(TABLE), "say", {"text": "y"}))


def test_concurrent_messages_may_reference_the_same_head() -> None:
    chain = verifier()
    head = chain.head
    chain.accept(seal(ALICE, TABLE, 0, 0, head, "ready", {}))
    chain.accept(seal(BOB, TABLE, 0, 0, head, "ready", {}))  # sent at the same time


@pytest.mark.parametrize(
    "raw",
    [b"", b"\x90", pack([b"x", b"y"]), pack([pack({"v": 1}), b"s" * 64]), pack("text")],
)
def test_malformed_envelopes_raise_protocol_error(raw: bytes) -> None:
    with pytest.raises(ProtocolError):
        open_envelope(raw)


def test_message_fields_are_validated_inside_the_envelope() -> None:
    with pytest.raises(ProtocolError, match="lacks field"):
        seal(ALICE, TABLE, 0, 0, genesis(TABLE), "seed_commit", {})
