"""A seat gets one return per step it owes, and only while it owes that step: an honest seat
that dropped and came back once keeps its whole window the next time it drops owing a step that
looks the same (keys again in the same hand)."""

from __future__ import annotations

from typing import Any

import pytest

from p2p_pageone.byzantine import runner
from p2p_pageone.byzantine.scenario import Scenario
from p2p_pageone.byzantine.world import HonestFault, SimTable
from p2p_pageone.session.fold.obligations import came_back_owing, step_owed

SEAT = 2
FIRST_STOP, SECOND_STOP = 20.0, 45.0  # both inside the 60 s a dropped seat is kept for


def _drop(table: SimTable, now: float, span: float) -> None:
    table.links.flap(SEAT)  # its connection closes: the host reads the close and says away
    table.links.tick(now)
    table.faults.append(HonestFault("stop", (SEAT,), now + 0.02, now + span))


def test_a_seat_that_came_back_once_keeps_its_window_the_next_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Twice in one hand the honest seat drops while it owes nothing, and a draw makes it owe
    # keys while it is away. Its first return was noted against "keys owed in this hand"; that
    # note outlived the keys it then gave, so its second drop counted as a return already spent
    # and the host timed it out 30 s into a 60 s window.
    seen: dict[str, Any] = {"phase": 0, "hand": -1, "spent_again": False}
    late = runner._call_late

    def drop_twice(table: SimTable, honest: list[int], tried: set[tuple[int, int, int]]) -> None:
        late(table, honest, tried)
        host, now = table.sequencer.host, table.now
        seen["table"] = table
        if host.game is None or host.game_over:
            return
        phase, owes = seen["phase"], step_owed(host, SEAT)
        there = SEAT not in host.away and not table.stopped(SEAT, now)
        if phase in (0, 2) and owes is None and there and table.links.back_in(SEAT) \
                and host.game.deal.turn not in (SEAT, -1) and len(host.log) > 40:
            if phase == 2 and host.hand != seen["hand"]:
                seen["phase"] = 0  # the hand ended between the drops: start again
                return
            _drop(table, now, FIRST_STOP if phase == 0 else SECOND_STOP)
            seen["phase"], seen["hand"] = phase + 1, host.hand
        elif phase == 1 and there and owes is None:
            seen["phase"] = 0 if host.hand != seen["hand"] else 2
            seen["returned_after_keys"] = host.returned.get(SEAT)
        elif phase == 3 and SEAT in host.away and came_back_owing(host, SEAT):
            seen["spent_again"] = True

    monkeypatch.setattr(runner, "_call_late", drop_twice)
    result = runner.run(Scenario(2, "classic", 4, frozenset({3}), SEAT, "random", ()))
    assert seen["phase"] == 3, "the seat never dropped twice in one hand"
    assert seen["returned_after_keys"] is None  # its keys given, its return is its own again
    assert not seen["spent_again"]
    assert result.verdicts == [], [v.text for v in result.verdicts]
    assert SEAT in seen["table"].sequencer.host.active  # not timed out inside its window


def test_a_witness_round_keeps_the_return_a_seat_spent_on_the_step_it_still_owes() -> None:
    # while a round is open the table owes only witnesses: the step the seat owed before it is
    # owed again after it, so the round does not give the seat a second return for that step
    from p2p_pageone.crypto.envelope import Envelope
    from p2p_pageone.engine import make_settings
    from p2p_pageone.session.fold.claims import Claim
    from p2p_pageone.session.fold.obligations import forget_returns_discharged
    from p2p_pageone.session.memory import MemoryTable

    s = MemoryTable(make_settings("classic", {"deals": 1}), 4, seed=5).sessions[0]
    s.returned[SEAT] = ("spent",)
    claim = Envelope(b"", b"", b"", 1, 10, b"", "timeout", {"seat": 1})
    s.claims.append(Claim(10, 1, claim, due={SEAT, 3}))
    forget_returns_discharged(s)
    assert s.returned == {SEAT: ("spent",)}
    s.claims.clear()  # the round is over and the seat owes nothing: its return is its own
    forget_returns_discharged(s)
    assert s.returned == {}
