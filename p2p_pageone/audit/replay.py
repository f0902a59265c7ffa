"""Stepping through audited hands move by move, with every card known (for ``pageone replay``
and ``pageone log show``). The hands come from the fold (``TableState.history``); the steps are
the same engine's, so a replay is deterministic."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ..engine.classic import ClassicDeal
from ..engine.deal import Deal
from ..engine.moves import Call, Catch, Move, Play, ReshuffleRequest, TurnUpRequest
from ..engine.qdan import QdanDeal
from ..engine.settings import ClassicSettings, Settings
from ..session.fold.records import HandRecord


@dataclass
class Step:
    """The deal after a move (``move`` None: just dealt), and the engine events it caused."""

    deal: Deal
    move: Move | None
    position: int
    events: list[tuple[object, ...]]


def steps(settings: Settings, seats: int, record: HandRecord) -> Iterator[Step]:
    deal: Deal
    if isinstance(settings, ClassicSettings):
        deal = ClassicDeal(settings, record.players, record.dealer, seats)
    else:
        deal = QdanDeal(settings, record.players, record.dealer, seats)
    deal.deal(record.cards[: settings.deck_size])
    seen, index = 0, 0
    while True:
        request = deal.chance
        if isinstance(request, ReshuffleRequest):
            start = len(deal.known)
            deal.reshuffle(record.cards[start : start + len(request.cards)])
            continue
        if isinstance(request, TurnUpRequest):
            assert isinstance(deal, QdanDeal)
            deal.turn_up(deal.known[request.slot])
            continue
        move = record.moves[index - 1] if index else None
        position = record.positions[index - 1] if index and record.positions else -1
        yield Step(deal, move, position, list(deal.events[seen:]))
        seen = len(deal.events)
        if deal.over or index >= len(record.moves):
            return
        deal.apply(record.moves[index])
        index += 1


@dataclass
class CardTrail:
    """Where one player's cards went in a hand."""

    dealt: list[int] = field(default_factory=list)
    drawn: int = 0
    played: list[int] = field(default_factory=list)
    kept: list[int] = field(default_factory=list)


def card_trails(settings: Settings, seats: int, record: HandRecord) -> dict[int, CardTrail]:
    trails = {seat: CardTrail() for seat in record.players}
    last: Deal | None = None
    for step in steps(settings, seats, record):
        if step.move is None:
            for seat, trail in trails.items():
                trail.dealt = [step.deal.known[s] for s in step.deal.hands[seat]]
        if isinstance(step.move, Play):
            trails[step.move.seat].played.extend(step.move.cards)
        for event in step.events:
            if event[0] == "draw" and isinstance(event[1], int) and isinstance(event[2], int):
                trails[event[1]].drawn += event[2]
        last = step.deal
    if last is not None:
        for seat, trail in trails.items():
            trail.kept = [last.known[s] for s in last.hands[seat]]
    return trails


def missed_calls(settings: Settings, seats: int, record: HandRecord) -> list[tuple[int, int, int]]:
    """Every missed Page One call of a hand: (seat, entry of the play that missed it, the seat
    that caught it or -1). A call made late, while the catch window was still open (before
    anyone else acted), is a call: that play missed nothing."""
    missed: list[tuple[int, int, int]] = []
    open_before = -1
    for step in steps(settings, seats, record):
        move = step.move
        if isinstance(move, Catch):
            at = max(i for i, (seat, _, by) in enumerate(missed) if seat == move.target and by < 0)
            missed[at] = (missed[at][0], missed[at][1], move.seat)
        elif isinstance(move, Call) and move.seat == open_before:
            del missed[max(i for i, (seat, _, by) in enumerate(missed)
                           if seat == move.seat and by < 0)]
        miss = step.deal.open_miss
        if miss >= 0 and miss != open_before:
            missed.append((miss, step.position, -1))
        open_before = miss
    return missed
