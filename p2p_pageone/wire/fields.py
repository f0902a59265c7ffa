"""The rules a message's fields are checked by (protocol/SPEC.md §4): a ``Check`` says what it
accepts and how an error names it. The entry kinds' fields are in ``kinds``; control frames' and
statements' in ``messages``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
