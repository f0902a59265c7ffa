"""A live peer's memory does not grow with the game (issue 9): once its log file holds the
entries, it keeps in memory only what the hand in play and the chain need; the audit reads the
file, through the same fold."""

from __future__ import annotations

from pathlib import Path

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.engine import make_settings
from p2p_pageone.net.logwriter import LogWriter
from p2p_pageone.session.client import Client
from p2p_pageone.session.fold.entrylog import EntryLog
from p2p_pageone.session.memory import MemoryTable, make_peer
from p2p_pageone.wire.codec import frame


def test_an_entry_log_forgets_only_with_a_way_back() -> None:
    entries = [bytes([i]) * 3 for i in range(10)]
    log = EntryLog(entries)
    log.forget(6)  # nothing to read them back from: kept
    assert log.in_memory() == 10 and log == entries
    log.read_back = lambda start, stop: entries[start:stop]
    log.forget(6)
    assert log.in_memory() == 4 and len(log) == 10
    assert log == entries and log[2] == entries[2] and log[-1] == entries[-1]
    assert log[4:8] == entries[4:8] and log.index(entries[1]) == 1 and list(log) == entries


def _heads(t: MemoryTable, seat: int) -> int:
    chain = t.sessions[seat].chain
    return len(chain._heads) if chain is not None else 0


def test_a_peer_with_its_log_on_disk_keeps_the_hand_in_play_and_the_audit_reads_the_file(
        tmp_path: Path) -> None:
    t = MemoryTable(make_settings("classic", {"deals": 6}), 3, seed=9)
    writers = [LogWriter(tmp_path / f"peer{i}.pageone-log") for i in range(3)]
    ends: dict[int, int] = {}  # hand number -> log length when it was scored
    while not t.finished():
        if not t.step():
            t.advance(t.now + 0.5)
        for session, writer in zip(t.sessions, writers, strict=True):
            writer.sync(session)  # as the runner does after every entry
        hands = len(t.sessions[0].history) and t.sessions[0].history[-1].number
        ends.setdefault(hands, len(t.sessions[0].log))
        assert t.now < 3600
    host = t.sessions[0]
    assert host.game_over and host.hand == 6, host.ended
    for session, writer in zip(t.sessions, writers, strict=True):
        assert writer.path is not None
        data = writer.path.read_bytes()
        assert session.log.in_memory() == 0 and len(session.log) == len(host.log)
        assert b"".join(frame(raw) for raw in session.log) == data  # read back from the file
        whole = list(session.log)
        for index in (5, 6, 7, 3, len(whole) - 1, 0, 6):  # on from the last read, or again
            assert session.log[index] == whole[index]
        assert len(session.history) == 1  # the last hand; the audit has them all from the file
        report = audit_bytes(data)
        assert report.ok and len(report.hands) == 6, report
    # the chain keeps the heads since the last hand but one ended, not those of the whole game
    assert all(_heads(t, seat) <= len(host.log) - ends[5] + 1 for seat in range(3))


def test_a_joiner_sitting_down_is_sent_the_log_read_back_from_the_file(tmp_path: Path) -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=4)
    t.kill(2)
    writer = LogWriter(tmp_path / "host.pageone-log")
    for _ in range(30):
        t.step()
        writer.sync(t.sessions[0])
    host = t.sessions[0]
    assert host.log.in_memory() == 0 and len(host.keys) == 2 and host.game is None
    late = make_peer("late", "late")
    t.clients.append(Client(late, t.now))
    t.sequencer.connect(len(t.clients), t.now)
    for _ in range(30):
        t.step()
        writer.sync(host)
    assert late.me == 2 and not late.ended and late.log == host.log[: len(late.log)]
