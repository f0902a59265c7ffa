"""Every kind of log entry, in one place (protocol/SPEC.md §4): its name on the wire, its fields,
and what the protocol says about it everywhere else (who may sign it, when, what it does to the
table's clocks), so that no module keeps a set of kinds of its own.

``EntryKind`` is a ``StrEnum`` whose values are the wire strings: an envelope's ``type`` is
exactly the text it always was. ``KIND_RULES[kind]`` is that kind's row; the modules read its
flags (``rules(kind).during_round``) and never list kinds themselves. A new kind is one member
here and one row, and its check and effect in the fold module that owns it.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from .fields import (
    CARD,
    DECK,
    DIGEST,
    MAX_CARDS,
    MAX_EVIDENCE,
    MAX_PROOF,
    MAX_SEATS,
    MAX_STATEMENT,
    POSITION,
    PUBKEY,
    SCALAR,
    Check,
    blob,
    blob_upto,
    blobs,
    flag,
    integer,
    integers,
    option_map,
    text,
)


class EntryKind(enum.StrEnum):
    """A log entry's kind; its value is the envelope's ``type`` on the wire."""

    HELLO = "hello"
    TABLE = "table"
    SEAT = "seat"
    START = "start"
    READY = "ready"
    COIN_COMMIT = "coin_commit"
    COIN_REVEAL = "coin_reveal"
    SEED_COMMIT = "seed_commit"
    SHUFFLE = "shuffle"
    LOCK = "lock"
    KEYS = "keys"
    OPEN = "open"
    SEED_REVEAL = "seed_reveal"
    HEAD = "head"
    MOVE = "move"
    SAY = "say"
    HEARTBEAT = "heartbeat"
    TIMEOUT = "timeout"
    EXPEL = "expel"
    BYE = "bye"
    AWAY = "away"
    BACK = "back"
    TAKEOVER = "takeover"
    WITNESS = "witness"


class Signer(enum.Enum):
    """Who may sign a kind, as every entry is checked for before its own check
    (``fold.apply.check_common``)."""

    ANYONE = "anyone"  # nothing beyond the kind's own check (a chat line; a back: its own)
    NEWCOMER = "newcomer"  # a key not at the table yet: checked before it joins the chain
    HOST = "host"  # only the table's host (its sequencer)
    SEAT = "seat"  # a seated key
    SUCCESSOR = "successor"  # the seat taking the table over: its own check judges its place


@dataclass(frozen=True)
class KindRules:
    """One kind's row: its fields, and what the protocol says of it outside its own check."""

    fields: Mapping[str, Check] = field(default_factory=dict)
    signer: Signer = Signer.SEAT
    logged: bool = True  # False: a kind of an earlier version, refused from the log
    in_hand: bool = False  # a step of the hand's own: its check says its seat is in the game
    while_away: bool = False  # a seat the host says is away may send it
    during_round: bool = False  # the log takes it while a witness round is open
    opens_connection: bool = False  # said on a connection of its author's own, first
    relayed: bool = True  # another seat may hand it to the host (a hello may not: it seats a
    # newcomer on a connection of its own; a back may: its author reaches the others only)
    chat: bool = False  # a line of chat: no step of a clock; given up if the host holds it
    deck_step: bool = False  # a pass or keys: its content is the deck's to check
    deck_evidence: bool = False  # a refusal of its content expels its author, with it as evidence
    pipelined: bool = False  # may go out behind another of ours not logged yet
    makes_host: bool = False  # its author sequences the log from it on


SEAT_NO = integer(0, MAX_SEATS - 1)
INDEX = integer(0, 2**32 - 1)
LOST = Check(lambda v: (type(v) is list and len(v) <= MAX_SEATS and set(map(type, v)) <= {bytes}
                        and all(len(raw) <= MAX_STATEMENT for raw in v)),
             f"an array of at most {MAX_SEATS} lost statements")

KIND_RULES: dict[EntryKind, KindRules] = {
    # the lobby
    EntryKind.HELLO: KindRules({"name": text(32), "proto": integer(0, 2**16),
                                "client": text(64), "endpoint": text(64)},
                               signer=Signer.NEWCOMER, opens_connection=True, relayed=False),
    EntryKind.TABLE: KindRules({"name": text(48), "rules": text(16), "options": option_map,
                                "seats": integer(2, MAX_SEATS)},
                               signer=Signer.HOST, makes_host=True),
    EntryKind.SEAT: KindRules({"seat": SEAT_NO, "key": PUBKEY, "name": text(32)},
                              signer=Signer.HOST),
    EntryKind.START: KindRules({"seats": integer(2, MAX_SEATS)}, signer=Signer.HOST),
    EntryKind.READY: KindRules(),
    EntryKind.COIN_COMMIT: KindRules({"commit": DIGEST}),
    EntryKind.COIN_REVEAL: KindRules({"nonce": blob(32)}),
    # the deck
    EntryKind.SEED_COMMIT: KindRules({"commit": DIGEST}, in_hand=True),
    EntryKind.SHUFFLE: KindRules({"deck": DECK, "points": blobs(33, MAX_CARDS),
                                  "commits": blobs(33, 1), "proof": blob_upto(MAX_PROOF)},
                                 in_hand=True,
                                 deck_step=True, deck_evidence=True),
    EntryKind.LOCK: KindRules({"deck": DECK, "points": blobs(33, MAX_CARDS),
                               "commits": blobs(33, MAX_CARDS), "proof": blob_upto(MAX_PROOF)},
                              in_hand=True,
                              deck_step=True, deck_evidence=True),
    EntryKind.KEYS: KindRules({"deck": DECK, "positions": integers(0, 4095, MAX_CARDS),
                               "keys": blobs(32, MAX_CARDS)},
                              in_hand=True, deck_step=True, deck_evidence=True, pipelined=True),
    EntryKind.OPEN: KindRules({"deck": DECK, "position": POSITION, "key": SCALAR, "card": CARD},
                              signer=Signer.ANYONE, logged=False),
    EntryKind.SEED_REVEAL: KindRules({"seed": blob(32)}, in_hand=True),
    EntryKind.HEAD: KindRules({"index": INDEX, "head": DIGEST}, in_hand=True),
    # play
    EntryKind.MOVE: KindRules({"kind": text(8), "positions": integers(0, 4095, 16),
                               "cards": integers(0, MAX_CARDS - 1, 16), "keys": blobs(32, 16),
                               "call": flag, "colour": integer(-1, 3),
                               "target": integer(-1, MAX_SEATS - 1)},
                              deck_evidence=True, pipelined=True),
    EntryKind.SAY: KindRules({"text": text(200)}, signer=Signer.ANYONE, during_round=True,
                             chat=True),
    EntryKind.HEARTBEAT: KindRules(signer=Signer.ANYONE, logged=False),
    # leaving, and who is here
    EntryKind.TIMEOUT: KindRules({"seat": SEAT_NO, "waited_for": text(100)},
                                 signer=Signer.HOST, during_round=True),
    EntryKind.EXPEL: KindRules({"seat": SEAT_NO, "reason": text(200),
                                "evidence": blob_upto(MAX_EVIDENCE)}, signer=Signer.HOST),
    EntryKind.BYE: KindRules({"reason": text(200)}, while_away=True, during_round=True),
    EntryKind.AWAY: KindRules({"seat": SEAT_NO, "why": text(100), "window": integer(1, 3600)},
                              signer=Signer.HOST, during_round=True),
    EntryKind.BACK: KindRules({"endpoint": text(64)}, signer=Signer.ANYONE, while_away=True,
                              during_round=True, opens_connection=True),
    EntryKind.TAKEOVER: KindRules({"seat": SEAT_NO, "window": integer(1, 3600), "lost": LOST},
                                  signer=Signer.SUCCESSOR, makes_host=True),
    EntryKind.WITNESS: KindRules({"seat": SEAT_NO, "at": INDEX,
                                  "heard": blob_upto(MAX_EVIDENCE)},
                                 while_away=True, during_round=True),
}
assert set(KIND_RULES) == set(EntryKind), "every entry kind has its row"


def rules(kind: str) -> KindRules:
    """The row of ``kind`` (an ``EntryKind``, or its wire string)."""
    return KIND_RULES[EntryKind(kind)]


def kinds_where(flag_name: str) -> frozenset[EntryKind]:
    """The kinds whose row sets ``flag_name`` (for a message that lists them)."""
    return frozenset(k for k, row in KIND_RULES.items() if getattr(row, flag_name))
