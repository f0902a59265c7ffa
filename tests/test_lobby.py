"""The lobby (protocol/SPEC.md §7): a leaver before the first deal frees its seat and the table
waits for another; the host may start with fewer; an idle lobby closes; refusals come at once."""

from __future__ import annotations

from p2p_pageone.audit.check import Audit, audit_bytes
from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.session.memory import MemoryTable, make_peer
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.session.sequencer import Client
from p2p_pageone.wire.codec import frame, unpack

from .helpers import introduce


def lobby(seats: int = 4, silent: tuple[int, ...] = (3,)) -> MemoryTable:
    """A table of ``seats`` whose joiners in ``silent`` never connect: the others sit down."""
    t = MemoryTable(make_settings("classic", {"deals": 1}), seats, seed=4)
    for conn in silent:
        t.kill(conn)
        t.sequencer.disconnect(conn, t.now)
    settle(t)
    return t


def settle(t: MemoryTable) -> None:
    for _ in range(50):
        if not t.step():
            return


def arrive(t: MemoryTable, peer: PeerSession) -> int:
    """A new joiner connects; returns its connection."""
    t.clients.append(Client(peer, t.now))
    conn = len(t.clients)
    t.sequencer.connect(conn, t.now)
    settle(t)
    return conn


def audit(session: PeerSession) -> Audit:
    return audit_bytes(b"".join(frame(raw) for raw in session.log))


def quit_(session: PeerSession) -> None:
    session.notify("bye", {"reason": "the player quit"})
    session.flush(0.0)


def texts(session: PeerSession) -> list[str]:
    return [e.text for e in session.take_events()]


def test_a_leaver_before_the_deal_frees_its_seat_and_a_newcomer_takes_it() -> None:
    t = lobby()
    host, leaver = t.sessions[0], t.sessions[2]
    assert len(host.keys) == 3 and host.game is None
    quit_(leaver)
    t.advance(t.now + 0.5)
    t.kill(2)
    t.sequencer.disconnect(2, t.now)
    assert "the table goes on without us" in leaver.ended
    for session in (t.sessions[0], t.sessions[1]):
        assert not session.ended and session.names == ["p0", "p1"]
        assert any("p2 left the table: the player quit: the seat is free again; waiting for 2 "
                   "more players" in text for text in texts(session))
    for name in ("dora", "erin"):
        arrive(t, make_peer(f"new/{name}", name))
    t.run(limit=t.now + 900)
    playing = [t.sessions[i] for i in (0, 1, 4, 5)]
    assert all(s.game_over and not s.ended for s in playing), [s.ended for s in playing]
    assert playing[0].names == ["p0", "p1", "dora", "erin"]
    assert [s.me for s in playing] == [0, 1, 2, 3]
    report = audit(host)
    assert report.ok and [name for _, name, _ in report.players] == playing[0].names, report


def test_a_silent_seat_in_a_full_lobby_is_freed_and_the_same_user_can_sit_again() -> None:
    t2 = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=5)
    host = t2.sessions[0]
    while len(host.keys) < 3:
        assert t2.step()
    t2.kill(2)  # p2 is seated, then hears nothing and says nothing more
    settle(t2)
    stalled = t2.sessions[2]
    assert host.game is None and len(host.keys) == 3, host.keys
    t2.run(limit=t2.now + 40)
    assert not host.ended and host.game is None and host.names == ["p0", "p1"]
    assert any("p2 went silent while the table waited for a live connection" in text
               for text in texts(host))
    # The same user comes back with a new pageone (same identity): it sits down again.
    again = make_peer("5/2", "p2")
    assert again.identity.public == stalled.identity.public
    arrive(t2, again)
    t2.run(limit=t2.now + 900)
    assert host.game_over and again.game_over and not again.ended, again.ended
    assert audit(host).ok


def test_a_second_pageone_of_a_seated_user_is_told_and_leaves() -> None:
    t = lobby()
    twin = make_peer("4/1", "p1-again")  # p1's identity, from another process
    assert twin.identity.public == t.sessions[1].identity.public
    arrive(t, twin)  # its hello is refused at once, and it is shown nothing of the log
    assert "this identity is already at the table: each user sits once" in twin.ended
    assert twin.log == []
    assert not t.sessions[1].ended and len(t.sessions[0].keys) == 3


def test_the_host_starts_with_fewer_once_the_lobby_is_still() -> None:
    t = lobby()
    t.sequencer.min_players, t.sequencer.start_after = 3, 30.0
    host = t.sessions[0]
    t.run(limit=t.now + 20)
    assert host.game is None
    t.run(limit=t.now + 900)
    assert host.seat_count == 3
    assert all(s.game_over and not s.ended for s in t.sessions[:3]), [s.ended for s in t.sessions]
    report = audit(host)
    assert report.ok and len(report.players) == 3, report


def test_min_players_is_not_reached_so_the_table_waits() -> None:
    t = lobby(silent=(2, 3))
    t.sequencer.min_players, t.sequencer.start_after = 3, 30.0
    t.run(limit=t.now + 300)
    assert t.sessions[0].game is None and not t.sessions[0].ended


def test_an_idle_lobby_closes_with_a_message() -> None:
    t = lobby()
    t.sequencer.lobby_timeout = 600.0
    host, joiner = t.sessions[0], t.sessions[1]
    t.run(limit=t.now + 590)
    assert not host.ended and not joiner.ended
    t.run(limit=t.now + 30)
    assert any("nobody sat down or left for 10 min: closing the table" in text
               for text in texts(host))
    assert "closed the table (the table did not fill in 10 min)" in joiner.ended
    assert host.ended


def test_a_late_joiner_is_told_the_game_is_under_way_at_once() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 2, seed=6)
    settle(t)
    assert t.sessions[0].game is not None
    late = make_peer("late", "late")
    t.clients.append(Client(late, t.now))
    conn = len(t.clients)
    t.sequencer.connect(conn, t.now)  # in a running game its intro decides: its first frame
    t.sequencer.receive(conn, introduce(t.sequencer, conn, t.clients[-1], t.now), t.now)
    frames = [unpack(data[4:]) for c, data in t.sequencer.out if c == conn]
    assert frames == [{"control": "refused", "seq": -1,
                       "reason": "the game is under way: it takes no new players", "code": 0}]
    assert conn in t.sequencer.to_close
    t.step()
    assert late.ended == (
        "the host refused to seat us: the game is under way: it takes no new players")
    assert late.log == []


def test_a_step_sealed_before_someone_left_is_refused_not_fatal() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=7)
    host, p1 = t.sessions[0], t.sessions[1]
    while len(host.keys) < 3:
        assert t.step()
    t.kill(2)  # seated, and then silent
    settle(t)
    assert len(host.keys) == 3 and host.game is None and len(host.ready) == 2
    # p2 sat down but will never be ready: a commitment is not due, nor a second ready
    assert p1.chain is not None
    early = seal(p1.identity, p1.table_id, 0, p1.chain.next_seq(p1.identity.public),
                 p1.chain.head, "coin_commit", {"commit": bytes(32)})
    assert host.admissible(open_envelope(early)) == (
        "a coin commitment comes once, when every player is ready")
    again = seal(p1.identity, p1.table_id, 0, p1.chain.next_seq(p1.identity.public),
                 p1.chain.head, "ready", {})
    assert host.admissible(open_envelope(again)) == "ready is said once, when every seat is taken"


def test_the_host_can_start_by_hand_with_two_or_more() -> None:
    t = lobby(silent=(2, 3))
    host, joiner = t.sessions[0], t.sessions[1]
    assert joiner.start_now() == "only the host starts the game"
    assert host.start_now() == ""
    t.run(limit=t.now + 900)
    assert host.seat_count == 2 and host.game_over and joiner.game_over
    assert host.start_now() == "the game has started already"
    alone = lobby(silent=(1, 2, 3)).sessions[0]
    assert alone.start_now() == "wait: a game needs 2 players or more, seated"

