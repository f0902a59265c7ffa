"""Signed statements that are not log entries (protocol/SPEC.md §7.6, "Statements").

A connection's answer to a listener's challenge, a seat's sign of life on the mesh, and a seat's
word that it lost the host are signed by their author but never sequenced: they carry no chain
position. On the wire a statement is ``msgpack([kind, from, body, signature])``: ``body`` is the
msgpack map of the kind's fields, and ``signature`` is Ed25519 over the tag of ``kind`` and the
exact ``body`` bytes, so a statement of one kind can never be taken for another, nor for an
envelope (whose tag differs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..wire.codec import ProtocolError, pack, unpack
from ..wire.messages import validate_statement
from .identity import Identity, fingerprint, verify_signature, weak_public_key
from .kdf import label

__all__ = ["Statement", "open_statement", "proof_of_key", "seal_statement"]


def _tag(kind: str) -> bytes:
    return label("statement", kind)


@dataclass(frozen=True, slots=True)
class Statement:
    raw: bytes
    kind: str
    sender: bytes
    data: dict[str, Any]


def seal_statement(identity: Identity, kind: str, data: dict[str, Any]) -> bytes:
    """Sign ``data`` as a ``kind`` statement of ``identity``; the bytes to send or embed."""
    validate_statement(kind, data)
    body = pack(data)
    return pack([kind, identity.public, body, identity.sign(_tag(kind) + body)])


def open_statement(raw: bytes, kind: str) -> Statement:
    """Check a ``kind`` statement: its shape, its key, its signature over the exact body bytes,
    and only then its fields. A ``ProtocolError`` names the signer where there is one."""
    outer = unpack(raw)
    if (type(outer) is not list or len(outer) != 4 or outer[0] != kind
            or type(outer[1]) is not bytes or len(outer[1]) != 32
            or type(outer[2]) is not bytes or type(outer[3]) is not bytes
            or len(outer[3]) != 64):
        raise ProtocolError(f"a {kind} statement is [kind, 32-byte key, body, 64-byte signature]")
    if pack(outer) != raw:
        raise ProtocolError(f"a {kind} statement not in canonical encoding")
    _, sender, body, signature = outer
    who = fingerprint(sender)
    weakness = weak_public_key(sender)
    if weakness:
        raise ProtocolError(f"the signer's key is {weakness}: refused", who)
    if not verify_signature(sender, signature, _tag(kind) + body):
        raise ProtocolError(f"the {kind} statement's signature does not match", who)
    data = unpack(body)
    if type(data) is not dict:
        raise ProtocolError(f"a {kind} statement's body is a map of fields", who)
    try:
        validate_statement(kind, data)
    except ProtocolError as error:
        raise ProtocolError(error.reason, who) from None
    return Statement(raw, kind, sender, data)


def proof_of_key(identity: Identity, nonce: bytes, listener: bytes, role: str) -> bytes:
    """The answer to a listener's challenge: ``identity`` signs the listener's fresh ``nonce``,
    the listener's own key and what the connection is for (``role``: intro, watch, direct or
    lost), so it cannot be replayed to another listener, later, or for another role."""
    return seal_statement(identity, "proof", {"nonce": nonce, "to": listener, "role": role})


def check_proof(raw: bytes, key: bytes, nonce: bytes, listener: bytes, role: str) -> str | None:
    """Why ``raw`` does not prove that the connection holds ``key`` (None: it does)."""
    try:
        proof = open_statement(raw, "proof")
    except ProtocolError as error:
        return error.reason
    if proof.sender != key:
        return "the proof is signed by another key than the one the connection claims"
    if proof.data != {"nonce": nonce, "to": listener, "role": role}:
        return "the proof answers another challenge (nonce, listener or role)"
    return None
