"""Client timers on the host's steps, and "was it me?" before any timeout (protocol/SPEC.md §7):
a host that stops serving the table cannot hang its joiners; a stalled process or a network that
is down on this machine never makes anyone else named in the log."""

from __future__ import annotations

from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.engine import make_settings
from p2p_pageone.session.fold.obligations import Duty, joiner_timed
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession

from .cheats import table_with


class StuckHost(PeerSession):
    """A host that never sends its own shuffle pass, and so never times itself out either."""

    def flush(self, now: float) -> None:
        crypto = self.crypto
        if crypto is not None and crypto.pending_round and crypto.pass_turn()[1] == self.me:
            return
        super().flush(now)


def kinds(session: PeerSession) -> list[str]:
    return [open_envelope(raw).kind for raw in session.log]


def events(session: PeerSession) -> list[str]:
    return [event.text for event in session.take_events()]


def playing(t: MemoryTable) -> bool:
    game = t.sessions[1].game
    return (game is not None and t.sessions[1].hand_known() and game.deal.moves > 2
            and not t.sessions[0].game_over)


def until_playing(t: MemoryTable) -> None:
    """Entry by entry (a CPU table plays a whole game within one tick) until a hand is on."""
    while not playing(t):
        if not t.step():
            t.advance(t.now + 0.5)


def test_a_host_that_never_takes_its_own_step_does_not_hang_the_joiners() -> None:
    t = table_with(make_settings("classic", {"deals": 1}), 3, seed=41, doubles={0: StuckHost})
    t.run(limit=30)
    joiners = t.sessions[1:]
    assert not any(j.ended for j in joiners)  # the host has 30 s to time the step out
    t.run(limit=120)
    for joiner in joiners:
        assert joiner.ended.startswith("p0 (seat 0, "), joiner.ended
        assert ("has not sent its shuffle pass for 4" in joiner.ended
                and "did not time itself out: the host is unresponsive" in joiner.ended)
        assert "timeout" not in kinds(joiner) and "expel" not in kinds(joiner)


def test_a_host_that_swallows_a_joiners_message_is_left_as_unresponsive() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 2, seed=48)
    until_playing(t)
    joiner = t.sessions[1]
    t.sequencer.step_timeout = 1e9  # it never times anyone out either
    receive = t.sequencer.receive
    t.sequencer.receive = lambda conn, data, now: receive(conn, b"", now)  # type: ignore
    t.run(limit=t.now + 120)
    assert joiner.ended.startswith("p0 (seat 0, "), joiner.ended
    assert "has neither put our" in joiner.ended and "the host is unresponsive" in joiner.ended
    assert "timeout" not in kinds(joiner)


def test_a_host_that_times_itself_out_ends_the_table_for_everyone() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=42)
    host = t.sessions[0]
    until_playing(t)
    host.notify("timeout", {"seat": 0, "waited_for": "its move"})
    t.advance(t.now + 0.5)
    for joiner in t.sessions[1:]:
        assert "timed itself out" in joiner.ended and "no sequencer left" in joiner.ended


def test_a_stalled_host_names_nobody_and_plays_on() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=43)
    until_playing(t)
    t.now += 25  # the host's process was frozen: its first tick after comes 25 s late
    t.sequencer.tick(t.now)
    host = t.sessions[0]
    assert any("this machine stalled for 25 s" in text for text in events(host))
    assert "timeout" not in kinds(host)
    for client in t.clients:  # the joiners did not run either (one machine's clock jumped)
        client.tick(t.now)
    t.run(limit=t.now + 900)
    assert all(s.game_over and not s.ended for s in t.sessions), [s.ended for s in t.sessions]
    assert "timeout" not in kinds(host)


def test_a_stalled_joiner_does_not_blame_the_host() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 2, seed=44)
    until_playing(t)
    joiner = t.clients[0]
    joiner.tick(t.now + 30)  # its own process stood still for 30 s
    assert not joiner.session.ended
    assert any("this machine stalled for 30 s" in text for text in events(joiner.session))


def test_when_no_player_is_heard_at_all_the_host_blames_its_own_network() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 4, seed=45)
    until_playing(t)
    host = t.sessions[0]
    host.take_events()
    for _ in range(50):  # 25 s: every link is down at the host's end; only the host runs
        t.now += 0.5
        t.sequencer.tick(t.now)
    assert "timeout" not in kinds(host) and not host.ended
    assert any("no player has been heard for 1" in text and "nobody is timed out" in text
               for text in events(host))
    for _ in range(20):  # past three silent periods: this machine's network is down
        t.now += 0.5
        t.sequencer.tick(t.now)
    assert "this machine's network is most likely down" in host.local
    assert "closed the table (the host lost its network)" in host.ended
    assert "timeout" not in kinds(host)


def test_players_who_gave_up_while_the_hosts_network_was_down_are_not_named() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 4, seed=47)
    until_playing(t)
    host = t.sessions[0]
    for _ in range(24):  # 12 s without a word from anyone: the joiners gave up meanwhile
        t.now += 0.5
        t.sequencer.tick(t.now)
    t.sequencer.receive(1, b"", t.now)  # the link is back: their last bytes, then the close
    for conn in (1, 2, 3):
        t.sequencer.disconnect(conn, t.now)
    assert "timeout" not in kinds(host) and not host.ended
    assert host.away == {1: 60, 2: 60, 3: 60}  # their seats are kept: they may come back
    assert all("closed while this machine's network was down" in open_envelope(raw).data["why"]
               for raw in host.log if open_envelope(raw).kind == "away")
    for _ in range(130):  # none comes back: as when none is heard, it was this machine
        t.now += 0.5
        t.sequencer.tick(t.now)
    assert "none of the 3 players whose connections dropped came back" in host.local
    assert "timeout" not in kinds(host) and "the host lost its network" in host.ended


def test_without_a_window_players_who_gave_up_on_a_quiet_host_close_the_table() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 4, seed=47)
    t.sequencer.reconnect_window = 0
    until_playing(t)
    host = t.sessions[0]
    for _ in range(24):
        t.now += 0.5
        t.sequencer.tick(t.now)
    t.sequencer.disconnect(1, t.now)
    assert "connection closed while this machine's network was down" in host.local
    t.sequencer.disconnect(2, t.now)
    t.sequencer.disconnect(3, t.now)
    assert "timeout" not in kinds(host) and "the host lost its network" in host.ended


def test_one_silent_player_among_others_is_still_timed_out() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 4, seed=46)
    until_playing(t)
    t.kill(2)
    t.run(limit=t.now + 130)  # its seat is kept 60 s for its return, then timed out
    host = t.sessions[0]
    timeouts = [open_envelope(raw) for raw in host.log if open_envelope(raw).kind == "timeout"]
    assert [env.data["seat"] for env in timeouts] == [2]
    aways = [open_envelope(raw) for raw in host.log if open_envelope(raw).kind == "away"]
    assert [env.data["seat"] for env in aways] == [2]


def test_a_seat_kept_away_is_timed_on_the_joiners_clock_its_move_included() -> None:
    # a move has no time limit at a table of people, but a seat kept for its return has its
    # window: a host whose timeout of it the witnesses disproved, while the seat stays away
    # (a host that hangs up on a seat the others hear), keeps the table waiting for good
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=48)
    until_playing(t)
    joiner = t.sessions[1]
    while [o.duty for o in joiner.owed()] != [Duty.MOVE]:
        if not t.step():
            t.advance(t.now + 0.5)
    owed = joiner.owed()
    assert joiner_timed(joiner) == []
    joiner.away[owed[0].seat] = 60
    assert joiner_timed(joiner) == owed
