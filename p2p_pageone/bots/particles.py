"""Qdan: a population of deals of the hidden cards, each one the public record and ``normal``'s
habits make likely, for ``expert``'s search to draw its worlds from.

The other players are taken to play as ``normal`` does, a function of their own hand. A deal of
the cards this seat cannot see (the other hands and the stock, from the pool of unseen cards)
is weighed by how many of the record's clues it breaks: each play since the deal that
``normal`` would not have made from the hand the player held then (``infer.Record.choices``,
every play, not only the recent ones) and each slot holding a card the record rules out
(``Record.unlikely``: passes, refused stacks, kinds played out). Each member of the population
starts from the slot-by-slot deal (``SeatView.determinize``) and walks: two hidden positions of
different owners swap cards, kept when the deal breaks no more clues than before, else with
chance ``exp(-beta * more)`` (Metropolis over the deals, the cards staying disjoint and from
the unseen pool): after enough steps it is a draw from the deals weighed by the clues. A world
for the search is one member with its stock shuffled afresh.

``Filter`` keeps the population over one deal's decisions (issue 29's particle filter): at the
next decision each member is made to agree with what the seat now sees (the cards played since
in their places, a member's card kept in a hidden slot while it is still unseen), weighed by
``exp(-beta * clues broken)`` under the longer record, drawn again in proportion, and walked
``carry`` swaps (rejuvenation); with ``carry`` 0 it walks a fresh population every decision.
Read from the seat's own views only (the hidden slots are dealt, never read), and repeatable
for the random stream given: a carried population was drawn from this seat's earlier views.

Measured (bots36, README): off by default, no gain that pays its time. What the clues say
about the hands at 3 cards or fewer, at seat 0's decisions of 25 ``normal`` games: cards
matched 8.9% dealt by the slot guesses, 9.3% walked afresh (24 x 200 swaps, beta 3), 9.9%
carried (24 members, 100 swaps then 30 a decision); Brier score of "holds a card of each
colour" 0.162, 0.148, 0.155. Win share against three ``normal`` (tuning seeds 603-607, 200
games each, paired): walked afresh, uncapped (55-65 ms a decision), 0.323 against 0.300 for
the default (135 games won only by the default, 158 only by it, z 1.3), but on fresh seeds
9601 and 9602 (400 games each) 0.2575 and 0.360 against 0.3025 and 0.3275; carried at 24-26 ms
(603-605) 0.282 against 0.288 (48 members, 20 swaps a decision: 0.290 at 28-31 ms), walked
afresh only near the end (16 x 100, 24-27 ms) 0.287; fresh seeds 9601 and 9602 (400 games
each), carried, 0.2925 and 0.315 against the default's 0.3025 and 0.3275 at 17-19 ms.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ..engine.deal import Deal
from ..engine.view import SeatView
from .infer import Record, _normal_would, read_record


@dataclass(frozen=True)
class Walk:
    """The population's shape: ``size`` members, ``steps`` swaps tried for each, ``beta`` per
    clue broken (the larger, the closer to keeping only deals that break none); ``cards``:
    where it is used at all."""

    size: int = 16
    steps: int = 60
    beta: float = 2.0
    cards: int = 0  # walk only where another player holds this many cards or fewer (0: always)
    carry: int = 0  # swaps for a member carried from the deal's last decision (0: none carried)

    def applies(self, view: SeatView) -> bool:
        if not self.cards:
            return True
        counts = [n for seat, n in view.counts().items() if seat != view.seat and n > 0]
        return bool(counts) and min(counts) <= self.cards


class Population:
    """Deals of the hidden cards drawn by ``Walk`` from those the record makes likely: fresh
    ones from the slot-by-slot deal, or ``starts`` (an earlier decision's members) carried on."""

    def __init__(self, view: SeatView, record: Record, rng: random.Random, walk: Walk,
                 starts: list[list[int]] | None = None) -> None:
        self.base = view.determinize(rng, forbidden=record.unlikely)
        self.unlikely = record.unlikely
        self.owner: dict[int, int] = {}
        for seat in view.players():
            if seat != view.seat:
                for slot in view.held_slots(seat):
                    self.owner[slot] = seat
        self.stock = list(self.base.stock)
        self.free = list(self.owner) + self.stock  # positions whose cards may move
        self.choices = [c for choices in record.choices.values() for c in choices]
        self.touching: dict[int, list[int]] = {slot: [] for slot in self.owner}
        for index, choice in enumerate(self.choices):
            for slot in choice.held:
                if slot in self.touching:
                    self.touching[slot].append(index)
        self.active = [s for s in self.owner if self.touching[s] or self.unlikely.get(s)]
        steps = walk.steps
        if starts is None:
            starts = [list(view.determinize(rng, forbidden=record.unlikely).known)
                      for _ in range(walk.size)]
        else:
            starts = self._resampled([self._agreeing(m, rng) for m in starts], rng, walk.beta)
            steps = walk.carry
        self.members = [self._walk(m, rng, steps, walk.beta) for m in starts]

    def _agreeing(self, known: list[int], rng: random.Random) -> list[int]:
        """An earlier member made to agree with what this seat sees now: every card it can see
        in place, each hidden hand slot keeping the member's card while that card is still
        unseen, the rest of the unseen cards dealt at random (the walk then mends them).
        Positions are never reused, but a reshuffle adds new ones: the member may be shorter."""
        out = list(self.base.known)
        unseen = Counter(out[slot] for slot in self.free)
        rest = []
        for slot in self.owner:
            card = known[slot] if slot < len(known) else -1
            if unseen[card] > 0:
                out[slot] = card
                unseen[card] -= 1
            else:
                rest.append(slot)
        cards = list(unseen.elements())
        rng.shuffle(cards)
        for slot, card in zip(rest + self.stock, cards, strict=True):
            out[slot] = card
        return out

    def _resampled(self, members: list[list[int]], rng: random.Random,
                   beta: float) -> list[list[int]]:
        """As many members drawn again, each in proportion to ``exp(-beta * clues broken)``."""
        weights = [math.exp(-beta * self.clues(m)) for m in members]
        return [list(m) for m in rng.choices(members, weights, k=len(members))]

    def _fits(self, index: int, known: list[int]) -> bool:
        choice = self.choices[index]
        return _normal_would(choice, [known[s] for s in choice.held] + choice.shown)

    def _misplaced(self, slot: int, known: list[int]) -> int:
        return (self.unlikely.get(slot, 0) >> known[slot]) & 1

    def clues(self, known: list[int]) -> int:
        """Clues the deal ``known`` breaks: plays ``normal`` would not have made, and slots
        holding a card the record rules out."""
        misfits = sum(1 for i in range(len(self.choices)) if not self._fits(i, known))
        return misfits + sum(self._misplaced(slot, known) for slot in self.owner)

    def _walk(self, known: list[int], rng: random.Random, steps: int,
              beta: float) -> list[int]:
        """``steps`` swaps tried on ``known``, each kept as Metropolis says; the plays
        each swap concerns are replayed, the others' standing is remembered."""
        if not self.active:
            return known
        free, owner, touching = self.free, self.owner, self.touching
        bad = [not self._fits(i, known) for i in range(len(self.choices))]
        for _ in range(steps):
            a = self.active[rng.randrange(len(self.active))]
            b = free[rng.randrange(len(free))]
            if owner.get(b, -1) == owner[a] or known[a] == known[b]:
                continue
            concerned = set(touching[a]).union(touching.get(b, ()))
            before = sum(bad[i] for i in concerned)
            before += self._misplaced(a, known) + self._misplaced(b, known)
            known[a], known[b] = known[b], known[a]
            now = {i: not self._fits(i, known) for i in concerned}
            more = sum(now.values()) + self._misplaced(a, known) + self._misplaced(b, known)
            more -= before
            if more > 0 and rng.random() >= math.exp(-beta * more):
                known[a], known[b] = known[b], known[a]
                continue
            for i, value in now.items():
                bad[i] = value
        return known

    def world(self, index: int, rng: random.Random) -> Deal:
        """Member ``index`` (modulo the size), its stock shuffled afresh."""
        known = self.members[index % len(self.members)]
        deal = self.base.clone()
        target = deal.known
        for slot in self.owner:
            target[slot] = known[slot]
        cards = [known[s] for s in self.stock]
        rng.shuffle(cards)
        for slot, card in zip(self.stock, cards, strict=True):
            target[slot] = card
        return deal


class Filter:
    """A seat's population over one deal, carried from decision to decision (``Walk.carry``
    swaps each after the members are weighed by the new clues), or walked afresh each time.
    What it holds was drawn from this seat's earlier views only; it starts afresh whenever the
    record is not the last one's continuation (a new deal, a new game, another seat)."""

    def __init__(self, walk: Walk) -> None:
        self.walk = walk
        self.events: list[tuple[object, ...]] = []
        self.seat = -1
        self.population: Population | None = None

    def sampler(self, view: SeatView, rng: random.Random) -> Callable[[random.Random], Deal]:
        """Worlds for one decision's search: the members met in turn, each with its stock
        shuffled afresh. Spends one draw of ``rng`` whatever the path."""
        own = random.Random(rng.getrandbits(64))
        events = view.events()
        last, population = self.events, self.population
        same = (population is not None and self.seat == view.seat
                and len(events) >= len(last) and events[:len(last)] == last)
        if not same or population is None or not self.walk.carry:
            population = Population(view, read_record(view, 99), own, self.walk)
        elif events != last:
            population = Population(view, read_record(view, 99), own, self.walk,
                                    population.members)
        self.events, self.seat, self.population = events, view.seat, population
        drawn = itertools.count()
        kept = population
        return lambda luck: kept.world(next(drawn), luck)
