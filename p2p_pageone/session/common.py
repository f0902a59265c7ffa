"""Small shared pieces of the session layer."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from ..crypto.envelope import refused_as_broken_chain
from ..crypto.kdf import label, tagged_hash

# The sequencer's answer to a connection when too many wait to sit down (a flood of strangers):
# a joiner that gets it before it sits down tries again (within its retry time), not giving up.
BUSY = "too many connections are waiting to sit down at this table; try again in a moment"
# The sequencer's answer, in a running game, to the intro of a key whose seat left the game.
SEAT_GONE = "the game is under way and you left it: your seat was given up"


class Refusal(enum.IntEnum):
    """What a ``refused`` frame means to its receiver, as a code (since protocol 9): no peer reads
    another's text to decide what to do. The text is for the player."""

    OTHER = 0  # the envelope does not fit now (a race lost, a move the rules refuse, …)
    BUSY = 1  # too many connections wait to sit down: try again in a moment
    SEAT_GONE = 2  # the seat this key returns to was given up
    BROKEN_CHAIN = 3  # it extends a head the host never sent: the host's log is not ours

    @classmethod
    def of(cls, reason: str) -> Refusal:
        """The code of one of our own refusal texts (the sender's side)."""
        if reason == BUSY:
            return cls.BUSY
        if reason == SEAT_GONE:
            return cls.SEAT_GONE
        return cls.BROKEN_CHAIN if refused_as_broken_chain(reason) else cls.OTHER

    @classmethod
    def parse(cls, code: int) -> Refusal:
        """A code from the wire; one this pageone does not know is ``OTHER``."""
        return cls(code) if code in cls._value2member_map_ else cls.OTHER

PROTOCOL_VERSION = 20


def parse_endpoint(endpoint: str) -> tuple[str, int] | None:
    """``host:port`` (``[v6]:port``) as a pair; None if it is not one."""
    address, _, port = endpoint.rpartition(":")
    if address.startswith("[") and address.endswith("]"):
        address = address[1:-1]
    elif ":" in address:
        return None  # a v6 address is written in brackets
    if not address or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    return address, int(port)


def checked_endpoint(endpoint: str) -> str:
    """An announced endpoint as the table keeps it: "" (does not listen) unless well formed."""
    return endpoint if parse_endpoint(endpoint) is not None else ""

# Every pass and key is proven on receipt, so a card whose keys all checked out always opens
# (SPEC §5.5): if one does not, no peer can be shown to be wrong, and nobody is named.
DID_NOT_OPEN = ("a card did not open although every pass and key checked out ({}): this "
                "pageone is faulty, please report it")


@dataclass
class Event:
    """Something for the player to see: ``kind`` is a short tag, ``text`` a sentence."""

    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)


class TableEnded(Exception):
    """The table cannot go on; ``culprit`` is the seat to blame, or -1; ``position`` is the log
    entry that proves it, or -1 for the entry being applied. ``refusal``: what a sequencer whose
    check raised this tells the entry's author instead (the reason, if not given). ``step``: the
    protocol step at fault, as ``pageone audit`` labels it ("": the table's own rules)."""

    def __init__(self, reason: str, culprit: int = -1, position: int = -1,
                 refusal: str = "", step: str = "") -> None:
        super().__init__(reason)
        self.culprit = culprit
        self.position = position
        self.refusal = refusal or reason
        self.step = step


class MustRefuse(TableEnded):
    """An entry every sequencer refuses is in the log: the host that appended it is to blame,
    not its author, who may have sealed it before the log moved on."""

    def __init__(self, refusal: str, kind: str, host: int) -> None:
        super().__init__(f"relayed a {kind} message the sequencer must refuse ({refusal}): its "
                         "author is not to blame", host, refusal=refusal)


class TableClosed(TableEnded):
    """The table ends without a fault: too few players are left (``culprit`` is who left)."""


def coin_commitment(table: bytes, key: bytes, nonce: bytes) -> bytes:
    return tagged_hash(label("coin-commit"), table, key, nonce)


def coin_result(nonces: list[bytes], seats: int) -> int:
    """The first dealer: a hash of every revealed nonce in seat order."""
    return int.from_bytes(tagged_hash(label("coin-result"), *nonces), "big") % seats
