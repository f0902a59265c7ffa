"""The story of a table as its players were told it, for `pageone replay`: the log folded again
entry by entry and narrated by the game's own Narrator (draws grouped, "hand 1 over: …", places,
who left), with the audit's line for each hand beside the game's, and the hands a viewer may see.

Every hand is told, a void one too: its moves are public (cards played face up, draws as counts).
A finished hand's cards are all known after the seed reveal; a void hand's only where the log
reveals them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast

from ..audit.check import Audit, HandLine, fold_entry
from ..audit.replay import steps
from ..audit.report import hand_line
from ..engine.deal import UNKNOWN, Deal
from ..session.fold.table import TableState
from ..session.peer import PeerSession
from .narrator import Narrator
from .render import Line


@dataclass
class Told:
    """One log entry as the table was told it: the lines, and the deal after it (None before
    the first hand); ``moved``: a step of a hand, its deal or a move (where ``--step`` waits)."""

    hand: int
    lines: list[Line]
    deal: Deal | None
    moved: bool
    hands: dict[int, list[int]] = field(default_factory=dict)  # seat → cards (UNKNOWN hidden)
    dealt: dict[int, list[int]] = field(default_factory=dict)  # the hand just dealt: as dealt
    closes: bool = False  # the audit's line for the hand is told here


class _Replayed:
    """The public fold as the Narrator reads a peer: no seat, no secrets, not the host."""

    is_host = False
    autoplay = False

    def __init__(self, state: TableState) -> None:
        self.state, self.ended = state, ""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.state, name)


def story(audit: Audit, shown: tuple[int, ...] | None, symbols: bool) -> Iterator[Told]:
    """Each entry of the audited log as told; ``shown``: the seats whose cards are shown (None:
    every seat's)."""
    assert audit.state is not None
    state = TableState(defer_proofs=True, rederive=True)
    again = Audit(state=state)
    replayed = _Replayed(state)
    lines: list[Line] = []
    narrator = Narrator(cast(PeerSession, replayed), lines.extend, symbols=symbols,
                        prompts=False)
    finished = _finished_hands(audit)
    verdicts = {line.last_entry: line for line in audit.hands if line.last_entry >= 0}
    told_verdicts: set[int] = set()
    seen, first_moves = 0, set()
    for position, raw in enumerate(audit.state.log):
        before = state.hand
        going = fold_entry(again, state, position, raw)
        events, seen = state.events[seen:], len(state.events)
        replayed.ended = next((e.text for e in events if e.kind == "ended"), replayed.ended)
        verdict = verdicts.get(position)
        closes = verdict is not None
        cut = next((i for i, e in enumerate(events) if e.kind == "hand"), len(events))
        if verdict is not None and verdict.hand == before < state.hand:
            # the hand ended (a leave voids it) in the entry that starts the next: its end first
            narrator.show(events[:cut])
            narrator.idle()
            lines.append(_verdict_line(verdict, audit))
            told_verdicts.add(verdict.hand)
            yield Told(before, lines[:], None, False, closes=True)
            lines.clear()
            events, verdict, closes = events[cut:], None, False
        narrator.show(events)
        moved = any(e.kind == "engine" for e in events)
        if not going:
            narrator.idle()
        if verdict is not None:
            narrator.idle()
            lines.append(_verdict_line(verdict, audit))
            told_verdicts.add(verdict.hand)
        game = state.game
        deal = game.deal if game is not None and state.hand > 0 else None
        known = finished.get(state.hand)
        dealt = {}
        if deal is not None and state.hand not in first_moves and _dealt(state):
            first_moves.add(state.hand)  # a step of its own: the hand just dealt
            dealt, moved = _hands(deal, known, -1, shown), True
        yield Told(state.hand, lines[:], deal, moved, _hands(deal, known, position, shown), dealt,
                   closes)
        lines.clear()
        if not going:
            break
    narrator.idle()
    lines += [_verdict_line(line, audit) for line in audit.hands if line.hand not in told_verdicts]
    if lines:
        yield Told(state.hand, lines[:], None, False, closes=True)


def _dealt(state: TableState) -> bool:
    game = state.game
    return game is not None and game.chance is None and any(game.deal.hands[s]
                                                            for s in game.deal.players)


def _verdict_line(line: HandLine, audit: Audit) -> Line:
    return [("class:hint", "  " + hand_line(line, audit.fault))]


def _finished_hands(audit: Audit) -> dict[int, dict[int, dict[int, list[int]]]]:
    """Per finished hand, per log entry of a move (-1: just dealt), every seat's cards."""
    state = audit.state
    assert state is not None
    out: dict[int, dict[int, dict[int, list[int]]]] = {}
    for record in state.history:
        assert state.settings is not None
        out[record.number] = {
            step.position: {seat: [step.deal.known[s] for s in step.deal.hands[seat]]
                            for seat in step.deal.players}
            for step in steps(state.settings, state.seat_count, record)}
    return out


def _hands(deal: Deal | None, known: dict[int, dict[int, list[int]]] | None, position: int,
           shown: tuple[int, ...] | None) -> dict[int, list[int]]:
    """The cards of the seats shown: from the finished hand's record (all known), else what the
    public log reveals of them."""
    if deal is None:
        return {}
    seats = [s for s in deal.players if shown is None or s in shown]
    if known:
        cards = known[max((p for p in known if p <= position), default=min(known))]
        return {s: cards[s] for s in seats if s in cards}
    if position < 0:  # as dealt, from the public log: the hands now, with the plays back
        return {s: [deal.known[slot] for slot in deal.hands[s]] for s in seats}
    return {s: [deal.known[slot] for slot in deal.hands[s]] for s in seats}


def hidden(cards: list[int]) -> int:
    return sum(1 for card in cards if card == UNKNOWN)
