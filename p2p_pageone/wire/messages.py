"""Every message type and the exact fields it carries (protocol/SPEC.md §4).

``validate(kind, data)`` accepts a decoded message body only if it has exactly the fields its
kind's row lists (``kinds.KIND_RULES``) with their types and ranges; anything else is a
``ProtocolError`` naming the field. Control frames and statements are listed here.
"""

from __future__ import annotations

from typing import Any

from .codec import ProtocolError
from .fields import (
    MAX_ENTRY,
    MAX_EVIDENCE,
    MAX_STATEMENT,
    Check,
    blob,
    blob_upto,
    integer,
    shown,
    text,
)
from .kinds import KIND_RULES, LOST, EntryKind

__all__ = ["CONTROLS", "OPTIONAL", "SCHEMAS", "STATEMENTS", "shown", "validate",
           "validate_control", "validate_statement"]

SCHEMAS: dict[str, dict[str, Check]] = {kind.value: dict(row.fields)
                                        for kind, row in KIND_RULES.items()}

MOVE_KINDS = ("play", "draw", "call", "catch")


def validate(kind: Any, data: Any) -> dict[str, Any]:
    """Return ``data`` if it is a well-formed ``kind`` message; raise ``ProtocolError`` if not."""
    if not isinstance(kind, str) or kind not in SCHEMAS:
        raise ProtocolError(f"unknown message type {str(kind)[:32]!r}")
    if type(data) is not dict:
        raise ProtocolError(f"a {kind} message must carry a map of fields")
    schema = SCHEMAS[kind]
    missing = [name for name in schema if name not in data]
    if missing:
        raise ProtocolError(f"a {kind} message lacks field {missing[0]!r}")
    extra = [name for name in data if name not in schema]
    if extra:
        raise ProtocolError(f"a {kind} message has an unknown field {str(extra[0])[:32]!r}")
    for name, check in schema.items():
        if not check(data[name]):
            raise ProtocolError(f"field {name!r} of a {kind} message must be {check.what}, "
                                f"not {shown(data[name])}")
    if kind == EntryKind.MOVE and data["kind"] not in MOVE_KINDS:
        raise ProtocolError(f"a move is one of {', '.join(MOVE_KINDS)}")
    if {"positions", "keys"} <= set(schema) and len(data["positions"]) != len(data["keys"]):
        raise ProtocolError(f"a {kind} message needs one key per position")
    if {"positions", "cards"} <= set(schema) and len(data["positions"]) != len(data["cards"]):
        raise ProtocolError("a move names one card per position")
    return data


# Control frames are never logged or signed (protocol/SPEC.md §7): a ping (with ``n``, it asks for
# a pong echoing ``n``: the round trip); a joiner's intro (the key it will sit with) and the host's
# welcome (what its hello, or its back to a seat it holds, is sealed against: nothing of the log
# goes to a connection before that is in); the sequencer's refusal of an envelope; a watcher's
# watch (the key it watches with) and the host's watching (the log follows, from its start).
# Every listener's first frame is a challenge (a fresh nonce and the listener's key); a frame that
# claims a key (intro, watch, direct) answers it with a ``proof`` statement (crypto/statements):
# optional in the schema only so that an older pageone's frame, which has none, is refused with
# a reason that says so.
MAX_PROOF_STATEMENT = 256  # a proof statement is ~150 bytes
CLAIMS = ("intro", "watch", "direct")  # control frames that claim a key: each carries a proof
CONTROLS: dict[str, dict[str, Check]] = {
    "ping": {},
    "challenge": {"nonce": blob(16), "from": blob(32)},
    "pong": {"n": integer(0, 2**32 - 1)},
    "intro": {"from": blob(32)},
    "watch": {"from": blob(32)},
    "watching": {"table": blob(16), "index": integer(0, 2**32 - 1)},
    "chat": {"text": text(200)},  # a watcher's line; relayed by the host with ``from``
    "direct": {"from": blob(32)},
    # a seat that lost the host tells the first successor (and the old host), signed
    "lost": {"from": blob(32), "proof": blob_upto(MAX_STATEMENT),
             "statement": blob_upto(MAX_STATEMENT)},
    "welcome": {"table": blob(16), "head": blob(32), "seq": integer(0, 2**32 - 1),
                "hand": integer(0, 2**32 - 1), "index": integer(0, 2**32 - 1),
                "seated": Check(lambda v: type(v) is bool, "true or false")},
    "entry": {"index": integer(0, 2**32 - 1), "raw": blob_upto(MAX_ENTRY)},
    "relay": {"raw": blob_upto(MAX_EVIDENCE)},  # another seat's envelope a peer hands the host
    "done": {"index": integer(0, 2**32 - 1)},
    # a joiner's listener, to a seat's intro: the host its own seat follows now (its word only)
    "follows": {"host": blob(32)},
    # ... or, with no host, in a drop: the lost statements it holds that name it (signed)
    "holds": {"lost": LOST},
    "refused": {"seq": integer(-1, 2**32 - 1), "reason": Check(
        lambda v: type(v) is str and len(v) <= 1000, "text of at most 1000 characters"),
        "code": integer(0, 255)},  # what it means to its receiver (session.common.Refusal)
}
# Signed statements that are never logged (protocol/SPEC.md §7, "Statements"; crypto/statements):
# the answer to a listener's challenge, a seat's sign of life on the mesh, a seat's word that it
# lost the host.
STATEMENTS: dict[str, dict[str, Check]] = {
    "proof": {"nonce": blob(16), "to": blob(32), "role": text(8)},
    "alive": {"table": blob(16), "index": integer(0, 2**32 - 1), "head": blob(32)},
    "lost": {"table": blob(16), "host": blob(32), "index": integer(0, 2**32 - 1),
             "head": blob(32), "why": text(200), "for": blob(32)},
    # the host's signature on its log's head after the entry an ``entry`` frame carries
    "receipt": {"table": blob(16), "index": integer(0, 2**32 - 1), "head": blob(32)},
}
# a sign of life may also name the newest head of the host's log it holds the host's receipt
# for, beyond the entries it folded: it read that much of the log (it answers a claim with it)
STATEMENT_OPTIONAL: dict[str, dict[str, Check]] = {
    "alive": {"read": integer(0, 2**32 - 1), "read_head": blob(32)}}
OPTIONAL: dict[str, dict[str, Check]] = {
    "ping": {"n": integer(0, 2**32 - 1)}, "chat": {"from": blob(32)},
    "entry": {"receipt": blob_upto(MAX_STATEMENT)},  # the host's, for the head after it
    **{kind: {"proof": blob_upto(MAX_PROOF_STATEMENT)} for kind in CLAIMS}}


def validate_control(value: dict[str, Any], allowed: tuple[str, ...]) -> str:
    """The kind of a well-formed control frame among ``allowed``; else a ``ProtocolError``."""
    kind = value.get("control")
    if type(kind) is not str or kind not in allowed:
        raise ProtocolError(f"unknown control frame {shown(kind)}")
    schema, optional = CONTROLS[kind], OPTIONAL.get(kind, {})
    fields = set(value) - {"control"}
    if not set(schema) <= fields <= set(schema) | set(optional):
        also = f" (and may carry {', '.join(optional)})" if optional else ""
        raise ProtocolError(f"a {kind} control frame has exactly the fields "
                            f"{', '.join(['control', *schema])}{also}")
    for name, check in {**schema, **optional}.items():
        if name in value and not check(value[name]):
            raise ProtocolError(f"field {name!r} of a {kind} control frame must be {check.what}, "
                                f"not {shown(value[name])}")
    return kind


def validate_statement(kind: str, data: dict[str, Any]) -> None:
    """Raise ``ProtocolError`` unless ``data`` holds exactly the fields of a ``kind`` statement."""
    schema = STATEMENTS.get(kind)
    if schema is None:
        raise ProtocolError(f"unknown statement {shown(kind)}")
    optional = STATEMENT_OPTIONAL.get(kind, {})
    extra = set(data) - set(schema)
    if not set(schema) <= set(data) or extra not in (set(), set(optional)):
        also = f" (and may carry {', '.join(optional)} together)" if optional else ""
        raise ProtocolError(f"a {kind} statement has exactly the fields {', '.join(schema)}"
                            f"{also}")
    for name, check in {**schema, **optional}.items():
        if name in data and not check(data[name]):
            raise ProtocolError(f"field {name!r} of a {kind} statement must be {check.what}, "
                                f"not {shown(data[name])}")
