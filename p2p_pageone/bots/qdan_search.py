"""Qdan search helpers for ``expert``: what a playout is scored on and when it stops, and how
many playouts a decision gets.

Places (Q10): a playout races for the best place still free at the decision (the first place
while nobody has gone out; the second once someone has, and so on), so the search keeps playing
for places after the game's winner is known. Before bots34 every playout after the first place
went scored the same, so those decisions were a race of ties.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ..engine.deal import Deal
from ..engine.qdan import QdanDeal
from ..engine.view import SeatView


@dataclass(frozen=True)
class Stakes:
    """What a qdan decision plays for: ``active`` players still in the game at the decision,
    and the place to win (``gone``: players who have gone out, not eliminated, before it)."""

    active: int
    gone: int

    def target(self, deal: QdanDeal) -> int:
        return deal.first_place + self.gone


def read_stakes(view: SeatView) -> Stakes:
    """From the public record only: hand sizes and eliminations."""
    eliminated = {event[1] for event in view.events() if event[0] == "eliminated"}
    counts = view.counts()
    active = sum(1 for n in counts.values() if n > 0)
    gone = sum(1 for seat, n in counts.items() if n == 0 and seat not in eliminated)
    return Stakes(active, gone)


def finish_line(deal: QdanDeal, stakes: Stakes) -> Callable[[], bool]:
    """A playout stops once a player leaves the game (goes out or is eliminated)."""
    return lambda: deal.over or len(deal.active) < stakes.active


def place_value(deal: Deal, me: int, softness: float, stakes: Stakes) -> float:
    """The chance ``me`` takes the place played for: 1 or 0 once someone has taken it, else a
    guess from the cards in hand (``softness`` per card) among the players still in."""
    assert isinstance(deal, QdanDeal)
    target = stakes.target(deal)
    places = deal.places
    for seat in deal.players:
        if places[seat] == target:
            return 1.0 if seat == me else 0.0
    weights = {p: math.exp(-softness * len(deal.hands[p])) for p in deal.active}
    return weights.get(me, 0.0) / max(1e-12, sum(weights.values()))


@dataclass(frozen=True)
class Spend:
    """How a qdan decision's playouts scale: ``low`` when some player still racing holds at
    most ``cards`` cards (the end is near), ``high`` otherwise, and ``later`` once the first
    place has gone (the win is decided; places are still played for)."""

    cards: int = 0
    low: float = 1.0
    high: float = 1.0
    later: float = 1.0

    def scale(self, view: SeatView, stakes: Stakes) -> float:
        if stakes.gone:
            return self.later
        if not self.cards:
            return 1.0
        near = min(n for n in view.counts().values() if n > 0) <= self.cards
        return self.low if near else self.high
