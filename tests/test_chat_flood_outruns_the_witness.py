"""A host cannot outrun a claimed seat's witness with a flood of its own chat (review
helper-43, I2: three seats, the host dishonest and alone).

The host cuts one seat V's stream (entries only; pings go on) while V owes nothing, logs
hundreds of chat lines of its own, then times V out. The witness W serves V the log over the
mesh, but up to protocol 18 it served 24 entries at a time once V's sign of life had stayed
put for 2 s and answered with nothing after 8 s: V, hundreds of entries short of the claim, was
removed with nobody named. With 600 lines sealed against the head at the cut, no batch W could
serve held a receipt (it kept the 512 highest), so V could fold nothing more at all.

Now a running game's log holds at most ``IDLE_RUN`` chat lines in a row (the next names the
host); and, that limit lifted here to show it, a witness serves a claimed seat at each of its
signs of life as far ahead as it keeps entries, waits while it catches up (``catch_up``), and
keeps every 16th receipt, so V reads the claim and disproves it.
"""

from __future__ import annotations

import pytest

from p2p_pageone.byzantine import memo
from p2p_pageone.byzantine.deeds import host_appends
from p2p_pageone.byzantine.invariants import Outcome, removed_honest, watch
from p2p_pageone.byzantine.world import SimTable
from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.session.fold import state
from p2p_pageone.session.fold.obligations import Duty, owed
from tests.stream_cut import StreamCut

W, V = 1, 2


def _chat(t: SimTable, prev: bytes | None, text: str) -> None:
    """A chat line of the host's own, sealed against ``prev`` (None: its head)."""
    host = t.sequencer.host
    assert host.chain is not None
    if prev is None:
        assert host_appends(t, "say", {"text": text}, t.now)
        return
    env = open_envelope(seal(host.identity, host.table_id, host.hand,
                             host.chain.next_seq(host.identity.public), prev, "say",
                             {"text": text}))
    t.guarded(0, lambda: t.sequencer._append(env, t.now))


def _flood_then_claim(lines: int, old_prev: bool) -> tuple[SimTable, dict, int]:
    cut = StreamCut(V)  # V's stream: no entries, pings go on

    t = SimTable(make_settings("classic", {"deals": 2}), 3, 0, route=cut)
    t.corrupt = {0}
    t.connect_honest([W, V])
    notes = {p: watch(t.sessions[p]) for p in (W, V)}
    host, w, v = t.sequencer.host, t.sessions[W], t.sessions[V]
    claim_at = -1
    while t.now < 400 and not (w.game_over or w.ended) and claim_at < 0:
        t.advance(t.now + 0.25)
        if (host.game is not None and len(host.log) > 40 and not host.claims
                and V in host.active and [(o.seat, o.duty) for o in owed(host)] == [(W, Duty.MOVE)]
                and not v.in_flight and not v.outbox.pipe
                and len(w.log) == len(v.log) == len(host.log)):
            cut.on = True
            assert host.chain is not None
            head = host.chain.head if old_prev else None
            for i in range(lines):
                _chat(t, head, f"line {i}")
            claim_at = len(host.log)
            assert host_appends(t, "timeout", {"seat": V, "waited_for": "nothing"}, t.now)
    assert claim_at >= 0, "no moment where V owed nothing"
    while t.now < 400 and not (w.game_over or w.ended):
        t.advance(t.now + 0.25)
    return t, notes, claim_at


def test_a_flood_of_the_hosts_chat_names_the_host() -> None:
    with memo.installed():
        t, notes, _ = _flood_then_claim(300, old_prev=False)
    w = t.sessions[W]
    assert w.ended and "the chat is full" in w.ended, w.ended
    assert tuple({seat for seat, _ in notes[W].named}) == (0, )


@pytest.mark.parametrize("old_prev", [False, True])
def test_a_witness_brings_the_claimed_seat_through_a_long_log(
        old_prev: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state, "IDLE_RUN", 10_000)  # lifted: the witness alone must hold
    with memo.installed():
        t, notes, claim_at = _flood_then_claim(600, old_prev)
    w, v = t.sessions[W], t.sessions[V]
    outcome = Outcome(t.sessions, [W, V], notes, {0}, set(), False, 0.0)
    removed = removed_honest(outcome)
    assert V in w.active and not removed, (
        f"honest V removed: {[r.text for r in removed]}; claim at {claim_at}, "
        f"V's log {len(v.log)}, W's {len(w.log)}")
    assert len(v.log) > claim_at


def test_an_honest_host_refuses_the_line_past_the_limit_until_the_game_moves_on() -> None:
    with memo.installed():
        t = SimTable(make_settings("classic", {"deals": 1}), 3, 0)
        t.connect_honest([1, 2])
        host, seat = t.sequencer.host, t.sessions[1]
        while host.game is None or len(host.log) < 40:
            t.advance(t.now + 0.25)
        assert host.chain is not None and seat.chain is not None
        for i in range(state.IDLE_RUN):
            assert host.admissible(open_envelope(seal(
                host.identity, host.table_id, host.hand, host.chain.next_seq(
                    host.identity.public), host.chain.head, "say", {"text": "x"}))) is None
            _chat(t, None, f"line {i}")
        line = open_envelope(seal(seat.identity, host.table_id, host.hand,
                                  host.chain.next_seq(seat.identity.public), host.chain.head,
                                  "say", {"text": "one more"}))
        assert "the chat is full" in (host.admissible(line) or "")
