"""Every message type and the exact fields it carries (protocol/SPEC.md §4).

``validate(kind, data)`` accepts a decoded message body only if it has exactly the listed fields
with the listed types and ranges; anything else is a ``ProtocolError`` naming the field.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .codec import ProtocolError

MAX_CARDS = 170
MAX_SEATS = 6
MAX_EVIDENCE = 64 * 1024  # one refused envelope: a 170-card shuffle with its proof is ~29 KB
MAX_ENTRY = 200 * 1024  # one log entry sent again in a takeover, inside a frame of 256 KiB
MAX_STATEMENT = 1024  # a signed statement (a lost one is ~400 bytes)
MAX_PROOF = 2 * 33 * MAX_CARDS + 32 * (6 + MAX_CARDS)  # a shuffle proof of MAX_CARDS cards


class Check:
    """A field's rule and how to say it: ``what`` completes "must be …" in an error."""

    def __init__(self, accepts: Callable[[Any], bool], what: str) -> None:
        self.accepts, self.what = accepts, what

    def __call__(self, value: Any) -> bool:
        return self.accepts(value)


def integer(low: int, high: int) -> Check:
    # type(v) is int: a boolean (true is 1 to Python) or a float (1.0) is not an integer here
    return Check(lambda v: type(v) is int and low <= v <= high, f"an integer {low} to {high}")


def text(longest: int) -> Check:
    return Check(lambda v: type(v) is str and len(v) <= longest and v.isprintable(),
                 f"printable text of at most {longest} characters")


def blob(size: int) -> Check:
    return Check(lambda v: type(v) is bytes and len(v) == size, f"{size} bytes")


def blob_upto(longest: int) -> Check:
    return Check(lambda v: type(v) is bytes and len(v) <= longest, f"at most {longest} bytes")


def blobs(size: int, longest: int) -> Check:
    """A list of at most ``longest`` strings of ``size`` bytes, checked with C-level ``map``: a
    shuffle carries hundreds of points (33 bytes: secp256k1, SEC1 compressed)."""
    return Check(lambda v: (type(v) is list and len(v) <= longest and set(map(type, v)) <= {bytes}
                            and set(map(len, v)) <= {size}),
                 f"an array of at most {longest}, each {size} bytes")


def integers(low: int, high: int, longest: int) -> Check:
    """A list of at most ``longest`` ints in [low, high] (``type`` is int: no booleans)."""
    return Check(lambda v: (type(v) is list and len(v) <= longest and set(map(type, v)) <= {int}
                            and (not v or (low <= min(v) and max(v) <= high))),
                 f"an array of at most {longest}, each an integer {low} to {high}")


flag = Check(lambda v: type(v) is bool, "a boolean")


def _option_map(v: Any) -> bool:
    return (
        type(v) is dict and len(v) <= 16
        and all(type(k) is str and len(k) <= 32 for k in v)
        and all(type(x) in (int, bool, str) and (type(x) is not str or len(x) <= 32)
                for x in v.values())
    )


option_map = Check(_option_map, "a map of at most 16 settings (integer, boolean or short text)")


def shown(value: Any) -> str:
    """A received value as an error names it: its type, and the value if it is short."""
    kind = {bool: "a boolean", int: "an integer", float: "a float", str: "text",
            bytes: "bytes", list: "an array", dict: "a map", type(None): "nil"}.get(
        type(value), type(value).__name__)
    if isinstance(value, (bytes, list, dict)):
        return f"{kind} of length {len(value)}"
    short = repr(value)
    return f"{kind} ({short})" if len(short) <= 24 else kind


POINT = blob(33)  # secp256k1, SEC1 compressed
SCALAR = blob(32)
DIGEST = blob(32)
PUBKEY = blob(32)
CARD = integer(0, MAX_CARDS - 1)
POSITION = integer(0, 4095)
DECK = text(32)

SCHEMAS: dict[str, dict[str, Check]] = {
    # lobby
    "hello": {"name": text(32), "proto": integer(0, 2**16), "client": text(64),
              "endpoint": text(64)},
    "table": {"name": text(48), "rules": text(16), "options": option_map,
              "seats": integer(2, MAX_SEATS)},
    "seat": {"seat": integer(0, MAX_SEATS - 1), "key": PUBKEY, "name": text(32)},
    "start": {"seats": integer(2, MAX_SEATS)},
    "ready": {},
    "coin_commit": {"commit": DIGEST},
    "coin_reveal": {"nonce": blob(32)},
    # the deck
    "seed_commit": {"commit": DIGEST},
    "shuffle": {"deck": DECK, "points": blobs(33, MAX_CARDS), "commits": blobs(33, 1),
                "proof": blob_upto(MAX_PROOF)},
    "lock": {"deck": DECK, "points": blobs(33, MAX_CARDS), "commits": blobs(33, MAX_CARDS),
             "proof": blob_upto(MAX_PROOF)},
    "keys": {"deck": DECK, "positions": integers(0, 4095, MAX_CARDS),
             "keys": blobs(32, MAX_CARDS)},
    "open": {"deck": DECK, "position": POSITION, "key": SCALAR, "card": CARD},
    "seed_reveal": {"seed": blob(32)},
    "head": {"index": integer(0, 2**32 - 1), "head": DIGEST},
    # play
    "move": {"kind": text(8), "positions": integers(0, 4095, 16),
             "cards": integers(0, MAX_CARDS - 1, 16), "keys": blobs(32, 16), "call": flag,
             "colour": integer(-1, 3), "target": integer(-1, MAX_SEATS - 1)},
    "say": {"text": text(200)},
    "heartbeat": {},
    "timeout": {"seat": integer(0, MAX_SEATS - 1), "waited_for": text(100)},
    "expel": {"seat": integer(0, MAX_SEATS - 1), "reason": text(200),
              "evidence": blob_upto(MAX_EVIDENCE)},
    "bye": {"reason": text(200)},
    "away": {"seat": integer(0, MAX_SEATS - 1), "why": text(100), "window": integer(1, 3600)},
    "back": {"endpoint": text(64)},
    "takeover": {"seat": integer(0, MAX_SEATS - 1), "window": integer(1, 3600),
                 "lost": Check(lambda v: (type(v) is list and len(v) <= MAX_SEATS
                                          and set(map(type, v)) <= {bytes}
                                          and all(len(raw) <= MAX_STATEMENT for raw in v)),
                               f"an array of at most {MAX_SEATS} lost statements")},
    "witness": {"seat": integer(0, MAX_SEATS - 1), "at": integer(0, 2**32 - 1),
                "heard": blob_upto(MAX_EVIDENCE)},
}

MOVE_KINDS = ("play", "draw", "call", "catch")


def validate(kind: Any, data: Any) -> dict[str, Any]:
    """Return ``data`` if it is a well-formed ``kind`` message; raise ``ProtocolError`` if not."""
    if type(kind) is not str or kind not in SCHEMAS:
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
    if kind == "move" and data["kind"] not in MOVE_KINDS:
        raise ProtocolError(f"a move is one of {', '.join(MOVE_KINDS)}")
    if kind in ("keys", "move") and len(data["positions"]) != len(data["keys"]):
        raise ProtocolError(f"a {kind} message needs one key per position")
    if kind == "move" and len(data["positions"]) != len(data["cards"]):
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
             "head": blob(32), "why": text(200)},
}
OPTIONAL: dict[str, dict[str, Check]] = {
    "ping": {"n": integer(0, 2**32 - 1)}, "chat": {"from": blob(32)},
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
    if set(data) != set(schema):
        raise ProtocolError(f"a {kind} statement has exactly the fields {', '.join(schema)}")
    for name, check in schema.items():
        if not check(data[name]):
            raise ProtocolError(f"field {name!r} of a {kind} statement must be {check.what}, "
                                f"not {shown(data[name])}")
