"""Player moves and chance requests, shared by both rule families.

Moves are treated as immutable values; they are not frozen only because frozen dataclasses cost
four times as much to build, and the engine lists thousands of them per game.
"""

from __future__ import annotations

from dataclasses import dataclass


class IllegalMove(Exception):
    """A move the rules refuse; ``str()`` is a reason a player understands."""


class UnknownCard(IllegalMove):
    """The engine needs the identity of a card this viewer has not been shown."""


class ChanceError(ValueError):
    """A chance outcome (deal, reshuffle, turned card) that does not fit the request."""


@dataclass(slots=True, unsafe_hash=True)
class Play:
    """Play cards from hand. ``slots`` are deck positions, ``cards`` what they hold.

    Classic plays one card. Qdan may play several cards of one rank; the last is on top. ``call``
    attaches the Page One call; ``colour`` is the colour chosen with a Qdan change-colour card.
    """

    seat: int
    slots: tuple[int, ...]
    cards: tuple[int, ...]
    call: bool = False
    colour: int = -1


@dataclass(slots=True, unsafe_hash=True)
class Draw:
    """Classic: draw one card to try to follow. Qdan: draw one card (or a pending total), pass."""

    seat: int


@dataclass(slots=True, unsafe_hash=True)
class Call:
    """Say "Page One!" as a move of its own."""

    seat: int


@dataclass(slots=True, unsafe_hash=True)
class Catch:
    """Flag ``target``'s missed Page One call while its window is open."""

    seat: int
    target: int


Move = Play | Draw | Call | Catch


@dataclass(frozen=True, slots=True)
class DealRequest:
    """Deal ``size`` deck positions (slot ``i`` is position ``i`` of the shuffled deck)."""

    size: int


@dataclass(frozen=True, slots=True)
class ReshuffleRequest:
    """Reshuffle these public cards (at these slots) into a new stock (new slots, unknown order)."""

    cards: tuple[int, ...]
    slots: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class TurnUpRequest:
    """Qdan start: the stock's top position ``slot`` must be opened publicly."""

    slot: int


@dataclass(frozen=True, slots=True)
class RevealRequest:
    """Classic scoring: the hands left at the end of a deal must be opened (the seed reveal)."""

    slots: tuple[int, ...]


Chance = DealRequest | ReshuffleRequest | TurnUpRequest | RevealRequest
