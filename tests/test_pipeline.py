"""Moves behind the envelope in flight (protocol/SPEC.md §7, "Moves behind"): the player after
a draw sends its keys for the drawn card and its own move together, and a CPU sends its Page One
call and the play after it together, so neither costs a round trip more. Measured in simulated
time over a model of a 50 ms link; the log, and every check of it, is what it was."""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.crypto.envelope import Envelope, open_envelope
from p2p_pageone.engine import make_settings
from p2p_pageone.engine.deal import UNKNOWN
from p2p_pageone.engine.moves import ReshuffleRequest
from p2p_pageone.session import pipeline
from p2p_pageone.session.hand import HandDeck
from p2p_pageone.session.memory import MemoryTable, SlowLinkTable
from p2p_pageone.session.peer import PeerSession

DELAY = 0.05
TICK = 0.005


def _timed(table: MemoryTable) -> list[tuple[float, int, str]]:
    """(simulated time, seat, move kind) of each move as the host appends it."""
    host = table.sequencer.host
    moves: list[tuple[float, int, str]] = []
    on_log = host.on_log

    def noted(raw: bytes, now: float, env: Envelope | None = None) -> None:
        on_log(raw, now, env)
        env = env or open_envelope(raw)
        if env.kind == "move":
            moves.append((now, host.seat_of(env.sender), env.data["kind"]))

    host.on_log = noted  # type: ignore[method-assign]
    return moves


def _after(moves: list[tuple[float, int, str]], kind: str, same_seat: bool) -> list[float]:
    """Time from each move ``kind`` to the next move, when that is a joiner's: another seat's
    (``same_seat`` False) or the same one's (True)."""
    return [later[0] - first[0] for first, later in itertools.pairwise(moves)
            if first[2] == kind and later[1] != 0 and (later[1] == first[1]) == same_seat]


def _slow_qdan(seed: int) -> SlowLinkTable:
    return SlowLinkTable(make_settings("qdan", {}), 3, seed, {1, 2}, DELAY, lambda: 0.0)


def _agree_and_audit(sessions: list[PeerSession]) -> None:
    assert all(s.game_over and not s.ended for s in sessions), [s.ended for s in sessions]
    logs = [list(s.log) for s in sessions]
    assert all(log == logs[0] for log in logs)
    report = audit_bytes(b"".join(len(raw).to_bytes(4, "big") + raw for raw in logs[0]))
    assert report.ok, report.fault


def test_a_draw_and_a_page_one_call_cost_no_round_trip_more() -> None:
    table = _slow_qdan(3)
    moves = _timed(table)
    table.run(limit=3600, dt=TICK)
    _agree_and_audit(table.sessions)
    after_draw, after_call = _after(moves, "draw", False), _after(moves, "call", True)
    round_trip = 2 * DELAY
    assert len(after_draw) > 10 and after_call
    # A joiner's move after another seat's draw arrives with its keys, one round trip after
    # the draw (it was two: keys, then the move once they were logged).
    assert statistics.median(after_draw) <= round_trip + 2 * TICK, after_draw
    assert max(after_call) <= 2 * TICK, after_call  # the play came with the call


def test_without_a_move_behind_a_draw_costs_two_round_trips() -> None:
    """The same measure with the pipelining off: what the test above gains."""
    real = pipeline.follow_intent
    pipeline.follow_intent = lambda *args: None  # type: ignore[assignment]
    try:
        table = _slow_qdan(3)
        moves = _timed(table)
        table.run(limit=3600, dt=TICK)
    finally:
        pipeline.follow_intent = real
    _agree_and_audit(table.sessions)
    after_draw = _after(moves, "draw", False)
    assert statistics.median(after_draw) >= 2 * (2 * DELAY) - TICK, after_draw


def _refuse_once(table: MemoryTable, which: str) -> list[int]:
    """The host refuses, once per joiner, ``which`` of a joiner's envelopes while a move is
    out behind it: "first" (its keys or call: the moves behind are refused for their sequence
    number) or "behind" (the move behind: a race lost)."""
    host = table.sequencer.host
    by_key = {c.session.identity.public: c.session for c in table.clients}
    admissible, refused = host.admissible, []

    def maybe_refuse(env: Envelope) -> str | None:
        joiner = by_key.get(env.sender)
        if joiner is not None and len(joiner.outbox.pipe) > 1 and joiner.me not in refused:
            target = joiner.outbox.pipe[0] if which == "first" else joiner.outbox.pipe[-1]
            if env.seq == target.seq and not target.doomed:
                refused.append(joiner.me)
                return "refused by the test"
        return admissible(env)

    host.admissible = maybe_refuse  # type: ignore[method-assign]
    return refused


def test_a_refused_envelope_with_moves_behind_it_loses_nothing() -> None:
    for which in ("first", "behind"):
        table = _slow_qdan(5)
        refused = _refuse_once(table, which)
        table.run(limit=3600, dt=TICK)
        assert sorted(refused) == [1, 2], which
        _agree_and_audit(table.sessions)
        for session in table.sessions:
            assert not session.outbox.pipe
            assert not [e for e in session.take_events() if e.kind == "refused"]


def _held_table(seed: int, window: float) -> MemoryTable:
    """Random CPUs on both joiners, whose moves the sequencer holds through the Page One
    window as it holds the host's own CPU players' (so windows, and holds, are frequent)."""
    table = MemoryTable(make_settings("qdan", {}), 3, seed, levels=["random"] * 3,
                        catch_window=window)
    table.sequencer.cpu_keys = {c.session.identity.public for c in table.clients}
    return table


def test_nothing_goes_behind_what_the_sequencer_may_hold() -> None:
    """While a Page One window is open (or a player's keys are not all logged) the sequencer may
    hold a move; one behind it would be refused for its sequence number, again and again, till
    the host took the refusals for a flood. So none is sent then."""
    table = _held_table(24, 5.0)
    refusals = {client.session.name: 0 for client in table.clients}
    for client in table.clients:
        refused = client.session.refused

        def counted(reason: str, now: float, seq: int = -1, code: Any = None,
                    name: str = client.session.name,
                    refused: Callable[..., None] = refused) -> None:
            refusals[name] += 1
            refused(reason, now, seq, code)

        client.session.refused = counted  # type: ignore[method-assign]
    table.run(limit=600, dt=0.1)
    _agree_and_audit(table.sessions)
    kinds = {open_envelope(raw).kind for raw in table.sequencer.log}
    assert not kinds & {"away", "timeout", "expel"}
    assert max(refusals.values()) <= 2, refusals


def test_a_reshuffle_takes_the_cards_as_known_when_it_starts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The stock ran out while the keys of a hand eliminated into the discards were still
    coming: the reshuffle starts from those cards once they are all open, not from the
    request's picture (which had them unknown and named the honest host for a pass that
    "repeats a point")."""
    table = _held_table(0, 2.0)
    host, late = table.sequencer.host, []
    start = HandDeck.start

    def started(deck: HandDeck, label: str, cards: Sequence[int]) -> None:
        chance = host.game.chance if host.game is not None else None
        if deck is host.crypto and isinstance(chance, ReshuffleRequest):
            late.append(UNKNOWN in chance.cards)
        start(deck, label, cards)

    monkeypatch.setattr(HandDeck, "start", started)
    table.run(limit=600, dt=0.1)
    assert any(late)  # the case this test is about
    _agree_and_audit(table.sessions)
