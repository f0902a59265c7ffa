"""A host cannot bury a seat it cut off under entries that do not move the game (review
helper-44's remainder, I2 with the host alone at three seats).

Protocol 19 held at most 60 chat lines in a row, but an ``away`` of the other, connected seat
and that seat's ``back`` ended the run: 60 lines, away, back, again and again, grew the log by
thousands of entries between two steps of the game, more than a witness can serve the seat the
host cut off before it must answer a claim about it (a claim about a step it owes, which only
the step disproves, stood). Now away and back count toward the run like chat (``IDLE_RUN``):
past it a chat line names the host, and so does an ``away`` of a seat that had
``AWAYS_PAST_RUN`` (2) aways past it already; a ``back`` is never refused for it. A seat whose
link blips with the run full is still kept away and taken back (review helper-46: with every
away refused past the run, its ``back`` was refused on every try, and a dishonest seat that
filled the run and relayed nothing of the seat's kept the table waiting for good).
"""

from __future__ import annotations

import random
from typing import Any

from p2p_pageone.byzantine import memo
from p2p_pageone.byzantine.deeds import host_appends, sealed_by
from p2p_pageone.byzantine.invariants import watch
from p2p_pageone.byzantine.world import SimTable
from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.engine import make_settings
from p2p_pageone.session.fold import state
from p2p_pageone.session.fold.obligations import Duty, owed
from p2p_pageone.wire.kinds import EntryKind
from tests.stream_cut import StreamCut

W, V = 1, 2
REFUSED = "aways of one seat after 60 entries in a row"


def _table(honest: bool) -> SimTable:
    t = SimTable(make_settings("classic", {"deals": 2}), 3, 0)
    if not honest:
        t.corrupt = {0}
    t.connect_honest([W, V] if not honest else [0, W, V])
    host = t.sequencer.host
    while not (host.game is not None and len(host.log) > 40 and not host.claims
               and [(o.seat, o.duty) for o in owed(host)] == [(W, Duty.MOVE)]):
        t.advance(t.now + 0.25)
        assert t.now < 400, "no moment where W owes its move"
    return t


def _away_and_back(t: SimTable, seat: int = W) -> None:
    host = t.sequencer.host
    assert host_appends(t, "away", {"seat": seat, "why": "its connection closed", "window": 60},
                        t.now)
    stop = t.now + 2.0
    while seat in host.away and t.now < stop:  # the honest seat says back at once
        t.advance(t.now + 0.05)


def _named_by_w(t: SimTable, lines: int, pairs: int) -> tuple[set[int], str]:
    notes = watch(t.sessions[W])
    for i in range(lines):
        assert host_appends(t, "say", {"text": f"line {i}"}, t.now)
    for _ in range(pairs):
        if t.sessions[W].ended:
            break
        _away_and_back(t)
    for _ in range(20):
        t.advance(t.now + 0.25)
    return {seat for seat, _ in notes.named}, t.sessions[W].ended


def test_sixty_lines_then_an_away_names_the_host() -> None:
    with memo.installed():
        t = _table(honest=False)
        named, ended = _named_by_w(t, state.IDLE_RUN, state.AWAYS_PAST_RUN + 1)
    assert named == {0} and REFUSED in ended, ended
    assert REFUSED in t.sessions[V].ended  # V names the host too


def test_aways_and_backs_alone_are_a_run_too() -> None:
    with memo.installed():
        t = _table(honest=False)
        named, ended = _named_by_w(t, 0, state.IDLE_RUN // 2 + state.AWAYS_PAST_RUN + 1)
    assert named == {0} and REFUSED in ended, ended


def test_an_honest_host_keeps_a_seat_past_its_aways_and_says_so_once_the_game_moves() -> None:
    with memo.installed():
        t = _table(honest=True)
        sequencer, host = t.sequencer, t.sequencer.host
        thinker = _Thinker(t.sessions[W].bot)  # W thinks over its move meanwhile
        t.sessions[W].bot = thinker  # type: ignore[assignment]
        for i in range(state.IDLE_RUN):
            assert host_appends(t, "say", {"text": f"line {i}"}, t.now)
        for _ in range(state.AWAYS_PAST_RUN):  # V's link blips: kept away, and back at once
            _away_and_back(t, V)
        assert host.idle_run_full() and host.away_past_run_refused(V)
        t.dead.add(V)  # then V's machine goes; the host sees its connection close
        conn = next(c for c, link in sequencer.links.items() if link.key == host.keys[V])
        sequencer.disconnect(conn, t.now)
        assert V in sequencer.away_since and V not in host.away and V in host.active
        full_until, thinker.hold = len(host.log), False
        while V not in host.away and t.now < 120:
            t.advance(t.now + 0.25)
        away_at = len(host.log) - 1  # (the away is the newest entry once folded)
        kinds = [open_envelope(raw).kind for raw in host.log[full_until:away_at + 1]]
    assert kinds[-1] == EntryKind.AWAY and EntryKind.MOVE in kinds, kinds
    assert not any(k == EntryKind.TIMEOUT for k in kinds), kinds  # kept, not timed out


class _Thinker:
    """A person who thinks over a move: plays as its CPU would once ``hold`` is off."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.hold = inner, True

    def choose(self, view: Any, rng: random.Random) -> Any:
        return None if self.hold else self.inner.choose(view, rng)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_seat_whose_link_blips_with_the_run_full_is_taken_back() -> None:
    """Review helper-46, with nobody dishonest: two people chat while one thinks over a move
    (5 lines per 10 s each), the run fills, and the thinker's link blips once. With every away
    refused past the run its back was refused on every try and it left the table."""
    with memo.installed():
        t = SimTable(make_settings("classic", {"deals": 2}), 2, 0)
        t.connect_honest([0, 1])
        thinker = _Thinker(t.sessions[1].bot)
        t.sessions[1].bot = thinker  # type: ignore[assignment]
        host = t.sequencer.host
        while not (host.game is not None and not host.claims and len(host.log) > 10
                   and [(o.seat, o.duty) for o in owed(host)] == [(1, Duty.MOVE)]):
            t.advance(t.now + 0.1)
            assert t.now < 400, "the table never waited on seat 1's move"
        n, last = 0, -10.0
        while not host.idle_run_full():
            if t.now - last >= 2.0:
                last, n = t.now, n + 1
                for p in (0, 1):
                    t.sessions[p].outbox.chat.append(f"chat {p}/{n}")
                    t.sessions[p].flush(t.now)
            t.advance(t.now + 0.1)
            assert t.now < 900, "the run did not fill"
        full_at, conn = len(host.log), t.links.conn_of(1)
        t._enqueue("up", 1, 0, b"", 0.0, conn, "close")  # a reset both ways
        t._enqueue("down", 0, 1, b"", 0.0, conn, "close")
        decide, stop = t.now + 5.0, t.now + 120.0
        while t.now < stop and not t.sessions[1].ended and len(host.log) < full_at + 5:
            thinker.hold = t.now < decide
            t.advance(t.now + 0.25)
        kinds = [open_envelope(raw).kind for raw in host.log[full_at:]]
    assert not t.sessions[1].ended and EntryKind.MOVE in kinds, (t.sessions[1].ended, kinds)
    assert kinds[:2] == [EntryKind.AWAY, EntryKind.BACK], kinds


def test_a_step_claim_after_the_most_the_run_allows_leaves_the_seat_in() -> None:
    """The remainder helper-44 left open: the host cuts V's stream just before V owes its pass
    of the deck, grows the log by every idle entry the fold still takes (chat, then an away of
    connected W and W's back, again), then times V out for that pass. Only V's pass disproves
    such a claim, and V can seal it only once it has folded the log up to W's pass: protocol 19
    took thousands of such entries, and V was removed; now the run ends at 60 and W brings V
    through in a moment."""
    cut = StreamCut(V)  # V's stream: no entries, pings go on

    passes = (Duty.SHUFFLE, Duty.LOCK)
    with memo.installed():
        t = SimTable(make_settings("classic", {"deals": 2}), 3, 0, route=cut)
        t.corrupt = {0}
        t.connect_honest([W, V])
        notes = {p: watch(t.sessions[p]) for p in (W, V)}
        host, w = t.sequencer.host, t.sessions[W]
        while not (host.game is not None and not host.claims
                   and [(o.seat, o.duty in passes) for o in owed(host)] == [(W, True)]):
            t.advance(t.now + 0.05)
            assert t.now < 400, "no moment where W owes a pass of the deck"
        cut.on = True
        while not any(o.seat == V and o.duty in passes for o in owed(host)):
            t.advance(t.now + 0.05)
            assert t.now < 400, "V never came to owe its pass"
        duty = next(o.duty for o in owed(host) if o.seat == V)
        grown = _grow_within_the_rules(t, 4000)
        assert host_appends(t, "timeout", {"seat": V, "waited_for": duty.text}, t.now)
        stop = t.now + 90  # past the catch-up bound and the step's
        while t.now < stop and V in w.active and not w.ended:
            t.advance(t.now + 0.25)
    assert grown <= state.IDLE_RUN + 2 * state.AWAYS_PAST_RUN + 1, grown
    assert V in w.active and not notes[W].named and not notes[V].named, (
        w.ended, [e.text for e in w.events if e.kind in ("left", "refuted")][-3:])


def _grow_within_the_rules(t: SimTable, most: int) -> int:
    host = t.sequencer.host
    start, n = len(host.log), 0
    while len(host.log) - start < most:
        kind, data = ("say", {"text": f"line {n}"})
        env = sealed_by(host, kind, data)
        if env is None or host.admissible(env) is not None:
            env = sealed_by(host, "away", {"seat": W, "why": "its connection closed",
                                           "window": 60})
            if env is None or host.admissible(env) is not None:
                break  # the fold takes nothing more that does not move the game
            host_appends(t, "away", {"seat": W, "why": "its connection closed", "window": 60},
                         t.now)
            stop = t.now + 2.0
            while W in host.away and t.now < stop:  # honest W says back at once
                t.advance(t.now + 0.05)
            continue
        host_appends(t, kind, data, t.now)
        n += 1
    return len(host.log) - start
