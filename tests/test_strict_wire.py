"""A strict wire: weak keys and non-canonical encodings are refused before they can sit or speak."""

from __future__ import annotations

import hashlib

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p_pageone.crypto.envelope import SIGNING_TAG, VERSION, open_envelope, seal
from p2p_pageone.crypto.identity import Identity, verify_signature, weak_public_key
from p2p_pageone.engine import make_settings
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.wire.codec import ProtocolError, frame, pack, unpack

ALICE = Identity(hashlib.sha256(b"alice").digest())
TABLE = b"T" * 16
P = 2**255 - 19
NEUTRAL = bytes([1]) + bytes(31)  # the neutral point: [S]B = R + [k]A holds with R = B*S for any k
SMALL_ORDER = [
    NEUTRAL, bytes(32), (P - 1).to_bytes(32, "little"),
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),
]


def forged_body(sender: bytes, kind: str, data: dict[str, object]) -> bytes:
    return pack({"v": VERSION, "table": TABLE, "hand": 0, "from": sender, "seq": 0,
                 "prev": bytes(32), "type": kind, "data": data})


@pytest.mark.parametrize("key", SMALL_ORDER)
def test_small_order_keys_are_weak(key: bytes) -> None:
    assert "small-order" in weak_public_key(key)


def test_non_canonical_key_encodings_are_weak() -> None:
    assert "canonical" in weak_public_key((P + 1).to_bytes(32, "little"))


@given(st.binary(min_size=32, max_size=32))
def test_real_keys_are_not_weak(secret: bytes) -> None:
    assert weak_public_key(Identity(secret).public) == ""


def test_a_signature_under_the_neutral_key_verifies_nothing() -> None:
    forged = NEUTRAL + bytes(32)  # R = neutral, S = 0: Ed25519 alone accepts it for any message
    assert not verify_signature(NEUTRAL, forged, SIGNING_TAG + b"anything")
    raw = pack([forged_body(NEUTRAL, "say", {"text": "hi"}), forged])
    with pytest.raises(ProtocolError, match="small-order"):
        open_envelope(raw)


def test_the_table_refuses_to_seat_a_small_order_key() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=3)
    host = table.sessions[0]  # the table is open, no joiner has sat down yet
    assert host.chain is not None
    body = pack({"v": VERSION, "table": host.table_id, "hand": 0, "from": NEUTRAL, "seq": 0,
                 "prev": host.chain.head, "type": "hello",
                 "data": {"name": "mallory", "proto": VERSION, "client": "x"}})
    table.sequencer.connect(77, table.now)
    table.kill(77)
    table.sequencer.receive(77, frame(pack([body, NEUTRAL + bytes(32)])), table.now)
    replies = [unpack(data[4:]) for conn, data in table.sequencer.out if conn == 77]
    assert replies and "small-order" in str(replies[-1]["reason"])
    assert all(link.key != NEUTRAL for link in table.sequencer.links.values())
    table.run(limit=600)
    assert all(session.game_over for session in table.sessions), [s.ended for s in table.sessions]


def test_duplicate_keys_and_long_forms_are_refused() -> None:
    good = seal(ALICE, TABLE, 0, 0, bytes(32), "say", {"text": "hi"})
    body, _ = unpack(good)
    header = unpack(body)
    # the same header with "type" twice: a parser that keeps the first would read another message
    pairs = [*header.items(), ("type", "bye")]
    packer = msgpack.Packer(use_bin_type=True)
    twice = packer.pack_map_header(len(pairs)) + b"".join(
        packer.pack(k) + packer.pack(v) for k, v in pairs)
    for bad_body in (twice, body.replace(b"\xa4hand\x00", b"\xa4hand\xcc\x00")):
        assert bad_body != body
        raw = pack([bad_body, ALICE.sign(SIGNING_TAG + bad_body)])
        with pytest.raises(ProtocolError, match="canonical"):
            open_envelope(raw)
    assert open_envelope(good).data == {"text": "hi"}
