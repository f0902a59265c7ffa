"""Reconnect (RULINGS Q14; protocol/SPEC.md §7, "Reconnect"): a joiner whose connection drops
mid-game keeps its seat for a window; the same user running the same join again (the same
identity, the hand seeds it kept on disk) returns, resyncs from the log and plays on. After the
window the hand is void and the table goes on without it."""

from __future__ import annotations

from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.engine import make_settings
from p2p_pageone.session.memory import MemoryTable, make_peer
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.session.sequencer import Client

from .cheats import audit_of


class MemorySeeds:
    """A joiner's kept hand seeds, as the file on disk keeps them (outliving the process)."""

    def __init__(self) -> None:
        self.kept: dict[tuple[bytes, int], bytes] = {}

    def load(self, table: bytes, hand: int) -> bytes | None:
        return self.kept.get((table, hand))

    def save(self, table: bytes, hand: int, seed: bytes) -> str:
        self.kept[(table, hand)] = seed
        return ""


def kinds(session: PeerSession) -> list[str]:
    return [open_envelope(raw).kind for raw in session.log]


def texts(session: PeerSession) -> list[str]:
    return [event.text for event in session.take_events()]


def mid_hand(t: MemoryTable, seat: int, moves: int = 3) -> None:
    """Entry by entry until ``seat`` knows its cards and ``moves`` moves of hand 1 are made."""
    watcher = t.sessions[seat]
    while not (watcher.game is not None and watcher.hand_known()
               and watcher.game.deal.moves >= moves):
        if not t.step():
            t.advance(t.now + 0.5)


def drop(t: MemoryTable, conn: int) -> None:
    """The joiner's process dies: its TCP connection closes without a word."""
    t.kill(conn)
    t.sequencer.disconnect(conn, t.now)
    while t.step():
        pass


def come_back(t: MemoryTable, again: PeerSession) -> int:
    t.clients.append(Client(again, t.now))
    conn = len(t.clients)
    t.sequencer.connect(conn, t.now)
    while t.step():
        pass
    return conn


def table(seeds: MemorySeeds, deals: int = 2, seed: int = 21) -> MemoryTable:
    t = MemoryTable(make_settings("classic", {"deals": deals}), 3, seed=seed)
    t.sessions[2].seeds = seeds
    return t


def test_a_dropped_joiner_runs_the_same_join_again_returns_and_plays_on() -> None:
    seeds = MemorySeeds()
    t = table(seeds)
    mid_hand(t, 2)
    host, victim = t.sessions[0], t.sessions[2]
    hand = victim.hand
    drop(t, 2)
    assert victim.hand == hand and not host.ended
    assert "away" in kinds(host)
    assert any("p2 (seat 2) left (disconnected): the seat is kept for 60 s" in text
               for text in texts(host))
    t.advance(t.now + 20)  # within the window, the table waits for p2: nobody is timed out
    assert "timeout" not in kinds(host) and host.away == {2: 60}
    assert host.hand == hand and [seat for seat, _ in host.waiting_for()] == [2]

    again = make_peer("21/2", "p2")  # the same user: the same identity, a new process
    again.seeds = seeds
    come_back(t, again)
    assert again.me == 2 and again.returning and not again.ended, again.ended
    assert "back" in kinds(host)
    assert host.away == {}
    assert any("p2 (seat 2) returned" in text for text in texts(t.sessions[1]))
    t.run(limit=t.now + 900)
    live = [host, t.sessions[1], again]
    assert all(s.game_over and not s.ended for s in live), [s.ended for s in live]
    assert host.log == t.sessions[1].log == again.log
    assert victim.log == host.log[:len(victim.log)]  # the killed process's log: a prefix
    assert "timeout" not in kinds(host)
    report = audit_of(host)
    assert report.ok and all(line.status == "ok" for line in report.hands), report.hands
    assert len(report.hands) == 2


def test_the_window_runs_out_the_hand_is_void_and_the_table_goes_on() -> None:
    seeds = MemorySeeds()
    t = table(seeds, deals=2, seed=22)
    mid_hand(t, 2)
    host = t.sessions[0]
    hand = host.hand
    drop(t, 2)
    t.advance(t.now + 50)
    assert "timeout" not in kinds(host)
    t.run(limit=t.now + 900)
    for session in (host, t.sessions[1]):
        assert session.game_over and not session.ended, session.ended
        assert session.game is not None and session.game.places[2] == 3
    timeout = next(open_envelope(raw) for raw in host.log if open_envelope(raw).kind == "timeout")
    assert timeout.data == {"seat": 2, "waited_for": "its return within 60 s"}
    report = audit_of(host)
    assert report.ok, report.fault
    assert report.hands[0].status == "void" and report.hands[0].hand == hand
    # Too late: the same user's join again is told the seat was given up.
    again = make_peer("22/2", "p2")
    again.seeds = seeds
    come_back(t, again)
    assert "table is full" in again.ended or "given up" in again.ended, again.ended
