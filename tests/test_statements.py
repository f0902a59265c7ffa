"""Signed statements (crypto/statements.py): a challenge's proof, a sign of life, a lost host.
Each is bound to its kind and its exact bytes; anything else is refused with the reason."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p_pageone.crypto.identity import Identity
from p2p_pageone.crypto.statements import (
    check_proof,
    open_statement,
    proof_of_key,
    seal_statement,
)
from p2p_pageone.wire.codec import ProtocolError, pack, unpack

ALICE, BOB = Identity(b"a" * 32), Identity(b"b" * 32)
NONCE, LISTENER = b"n" * 16, b"L" * 32


def test_a_proof_binds_the_nonce_the_listener_and_the_role() -> None:
    proof = proof_of_key(ALICE, NONCE, LISTENER, "intro")
    assert check_proof(proof, ALICE.public, NONCE, LISTENER, "intro") is None
    assert "another key" in str(check_proof(proof, BOB.public, NONCE, LISTENER, "intro"))
    for nonce, listener, role in ((b"m" * 16, LISTENER, "intro"), (NONCE, b"M" * 32, "intro"),
                                  (NONCE, LISTENER, "direct")):
        assert "another challenge" in str(check_proof(proof, ALICE.public, nonce, listener,
                                                      role))


def test_a_statement_of_one_kind_is_never_another() -> None:
    alive = seal_statement(ALICE, "alive", {"table": b"t" * 16, "index": 3, "head": b"h" * 32})
    assert open_statement(alive, "alive").data["index"] == 3
    with pytest.raises(ProtocolError):
        open_statement(alive, "lost")
    _kind, key, body, sig = unpack(alive)
    with pytest.raises(ProtocolError, match="signature"):  # relabelled: the tag differs
        open_statement(pack(["lost", key, body, sig]), "lost")


def test_a_forged_or_misshapen_statement_is_refused() -> None:
    with pytest.raises(ProtocolError, match="fields"):
        seal_statement(ALICE, "alive", {"table": b"t" * 16})
    alive = seal_statement(ALICE, "alive", {"table": b"t" * 16, "index": 3, "head": b"h" * 32})
    kind, _key, body, sig = unpack(alive)
    with pytest.raises(ProtocolError, match="signature"):
        open_statement(pack([kind, BOB.public, body, sig]), "alive")


@given(st.binary(max_size=300))
def test_garbage_is_a_protocol_error_never_a_crash(raw: bytes) -> None:
    with contextlib.suppress(ProtocolError):
        open_statement(raw, "alive")


def test_a_sign_of_life_names_what_it_read_with_both_fields_or_neither() -> None:
    me = Identity(bytes(range(32)))
    base = {"table": b"t" * 16, "index": 3, "head": b"h" * 32}
    read = {**base, "read": 9, "read_head": b"r" * 32}
    assert open_statement(seal_statement(me, "alive", read), "alive").data["read"] == 9
    assert "read" not in open_statement(seal_statement(me, "alive", base), "alive").data
    for half in ({**base, "read": 9}, {**base, "read_head": b"r" * 32}):
        with pytest.raises(ProtocolError, match="together"):
            seal_statement(me, "alive", half)
