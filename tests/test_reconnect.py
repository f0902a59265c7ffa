"""Reconnect (RULINGS Q14; protocol/SPEC.md §7, "Reconnect"): a joiner whose connection drops
mid-game keeps its seat for a window; the same user running the same join again (the same
identity, the hand seeds it kept on disk) returns, resyncs from the log and plays on. After the
window the hand is void and the table goes on without it."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.cli.seed_file import SeedFile
from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.engine import make_settings
from p2p_pageone.net.joiner import run_joiner
from p2p_pageone.net.logwriter import LogWriter
from p2p_pageone.net.runner import HostRunner
from p2p_pageone.session.common import Event
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
    assert host.advert()["free"] == 1  # `pageone join NAME` finds the table to return to
    assert host.hand == hand and [seat for seat, _ in host.waiting_for()] == [2]

    again = make_peer("21/2", "p2")  # the same user: the same identity, a new process
    again.seeds = seeds
    come_back(t, again)
    assert again.me == 2 and again.attachment.returning and not again.ended, again.ended
    assert "back" in kinds(host)
    assert host.away == {} and host.advert()["free"] == 0
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
    back = kinds(host).index("back")
    assert report.hands[0].text.endswith(f"; p2 (seat 2, {again.identity.fingerprint}) dropped "
                                         f"and returned at entry {back}")


def test_dropped_when_its_seed_reveal_is_due_it_returns_and_reveals_from_disk() -> None:
    seeds = MemorySeeds()
    t = table(seeds, seed=23)
    host = t.sessions[0]
    while not (host.hand_over() and 2 not in host.seed_reveals):
        if not t.step():
            t.advance(t.now + 0.5)
    drop(t, 2)  # its seed reveal never reached the host
    t.advance(t.now + 30)
    assert host.hand == 1 and 2 not in host.seed_reveals and "timeout" not in kinds(host)
    again = make_peer("23/2", "p2")
    again.seeds = seeds
    come_back(t, again)
    t.run(limit=t.now + 900)
    assert all(s.game_over and not s.ended for s in (host, again)), again.ended
    reveals = [open_envelope(raw) for raw in host.log if open_envelope(raw).kind ==
               "seed_reveal" and open_envelope(raw).sender == again.identity.public]
    assert [env.data["seed"] for env in reveals] == [seeds.kept[(host.table_id, 1)],
                                                      seeds.kept[(host.table_id, 2)]]
    report = audit_of(host)
    assert report.ok and [line.status for line in report.hands] == ["ok", "ok"]


def test_without_its_seeds_a_returning_joiner_says_it_cannot_play_the_hand_on() -> None:
    seeds = MemorySeeds()
    t = table(seeds, seed=24)
    mid_hand(t, 2)
    drop(t, 2)
    again = make_peer("24/2", "p2")
    again.seeds = MemorySeeds()  # another machine, or its data directory wiped
    come_back(t, again)
    assert "does not have the hand secrets this seat committed to in hand 1" in again.ended
    host = t.sessions[0]
    t.run(limit=t.now + 900)
    assert "back" in kinds(host)  # its back went in before it could fold the log
    byes = [open_envelope(raw) for raw in host.log if open_envelope(raw).kind == "bye"]
    assert [env.sender for env in byes] == [again.identity.public]  # it left at once
    assert host.game_over and not host.ended and "timeout" not in kinds(host)
    assert audit_of(host).ok


def test_two_joiners_drop_at_once_and_both_return() -> None:
    stores = {2: MemorySeeds(), 3: MemorySeeds()}
    t = MemoryTable(make_settings("qdan"), 4, seed=26)
    for seat, store in stores.items():
        t.sessions[seat].seeds = store
    mid_hand(t, 3)
    drop(t, 2)
    drop(t, 3)
    host = t.sessions[0]
    assert host.away == {2: 60, 3: 60}
    for seat, store in stores.items():
        again = make_peer(f"26/{seat}", f"p{seat}")
        again.seeds = store
        come_back(t, again)
        assert again.attachment.returning and not again.ended, again.ended
    t.run(limit=t.now + 900)
    live = [host, t.sessions[1], *t.sessions[4:]]
    assert all(s.game_over and not s.ended for s in live), [s.ended for s in live]
    assert kinds(host).count("back") == 2 and "timeout" not in kinds(host)
    assert audit_of(host).ok


def test_with_no_window_a_drop_is_timed_out_at_once() -> None:
    t = table(MemorySeeds(), seed=25)
    t.sequencer.reconnect_window = 0
    mid_hand(t, 2)
    drop(t, 2)
    host = t.sessions[0]
    assert "away" not in kinds(host) and kinds(host).count("timeout") == 1
    assert 2 not in host.active


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


# --- over loopback TCP, with the seeds file on disk ------------------------------------------


async def _tcp_return(tmp_path: Path) -> tuple[list[PeerSession], PeerSession, list[Path]]:
    """A 3-seat table on loopback; p2's connection is cut mid-hand (its task is cancelled: the
    socket closes without a bye, as a killed process's does); a new p2 with the same identity
    and the same seeds file comes back."""
    settings = make_settings("classic", {"deals": 2})
    peers = [make_peer(f"tcp/{i}", f"p{i}", host_table=("t", settings, 3) if i == 0 else None)
             for i in range(3)]
    files = SeedFile(peers[2].identity.fingerprint, tmp_path / "tables")
    peers[2].seeds = files
    logs = [LogWriter(tmp_path / f"p{i}.log") for i in range(3)]
    runner = HostRunner(peers[0], "127.0.0.1", 0, lambda s, e: None, logs[0])
    port = await runner.start()
    cut = asyncio.get_running_loop().create_future()

    def watch(session: PeerSession, events: list[object]) -> None:
        game = session.game
        if (not cut.done() and game is not None and session.hand_known()
                and game.deal.moves >= 3):
            cut.set_result(session.hand)

    tasks = [asyncio.create_task(run_joiner(peer, "127.0.0.1", port, show, log))
             for peer, log, show in zip(peers[1:], logs[1:], [lambda s, e: None, watch],
                                        strict=True)]
    host_task = asyncio.create_task(runner.run())
    await asyncio.wait_for(cut, 120)
    tasks[1].cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await tasks[1]
    logs[2].close()
    while peers[2].me not in peers[0].away:  # seats go in the order the hellos came
        await asyncio.sleep(0.05)
    again = make_peer("tcp/2", "p2")
    again.seeds = SeedFile(again.identity.fingerprint, tmp_path / "tables")
    again_log = LogWriter(tmp_path / "p2-again.log")
    back = asyncio.create_task(run_joiner(again, "127.0.0.1", port, lambda s, e: None,
                                          again_log))
    await asyncio.wait_for(host_task, 240)
    await asyncio.wait_for(asyncio.gather(tasks[0], back), 60)
    for log in (logs[0], logs[1], again_log):
        log.close()
    return [peers[0], peers[1], again], peers[2], [tmp_path / "p0.log", tmp_path / "p1.log",
                                                    tmp_path / "p2-again.log"]


def test_over_tcp_a_cut_joiner_returns_with_its_seeds_from_disk(tmp_path: Path) -> None:
    live, killed, paths = asyncio.run(_tcp_return(tmp_path))
    host = live[0]
    assert all(s.game_over and not s.ended for s in live), [s.ended for s in live]
    assert killed.ended == "" and not killed.game_over  # cut, never told anything
    assert kinds(host).count("away") == 1 and kinds(host).count("back") == 1
    assert "timeout" not in kinds(host) and "bye" not in kinds(host)
    files = list((tmp_path / "tables").glob("*.seeds"))
    assert len(files) == 1 and files[0].stat().st_mode & 0o777 == 0o600
    data = [path.read_bytes() for path in paths]
    assert data[0] == data[1] == data[2]  # every log the same, byte for byte
    report = audit_bytes(data[0])
    assert report.ok and [line.status for line in report.hands] == ["ok", "ok"], report.fault
    prefix = (tmp_path / "p2.log").read_bytes()
    assert data[0].startswith(prefix) and len(prefix) < len(data[0])


class WifiDrop:
    """A loopback TCP relay that can be cut like a Wi-Fi link: while cut, every byte is lost
    both ways and nothing is closed (no FIN gets through); the connections it carried stay dead;
    new ones are closed at once. Lifted, new connections go through again."""

    def __init__(self, port: int) -> None:
        self.port, self.cut, self.generation = port, False, 0
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.cut:
            writer.close()
            return
        born = self.generation
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.port)

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(ConnectionError, OSError):
                while data := await source.read(65536):
                    if born == self.generation and not self.cut:
                        sink.write(data)
            if born == self.generation and not self.cut:
                sink.close()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))

    def drop(self) -> None:
        self.cut, self.generation = True, self.generation + 1

    def lift(self) -> None:
        self.cut = False

    def close(self) -> None:
        if self.server is not None:
            self.server.close()


async def _wifi_drop() -> tuple[list[PeerSession], list[str]]:
    settings = make_settings("classic", {"deals": 2})
    peers = [make_peer(f"wifi/{i}", f"p{i}", host_table=("t", settings, 3) if i == 0 else None)
             for i in range(3)]
    peers[2].seeds = MemorySeeds()
    runner = HostRunner(peers[0], "127.0.0.1", 0, lambda s, e: None, None, silent_after=2.0)
    port = await runner.start()
    relay = WifiDrop(port)
    relayed = await relay.start()
    shown: list[str] = []
    cut = asyncio.get_running_loop().create_future()

    def watch(session: PeerSession, events: list[Event]) -> None:
        shown.extend(event.text for event in events)
        game = session.game
        if (not cut.done() and game is not None and session.hand_known()
                and game.deal.moves >= 3):
            cut.set_result(None)

    tasks = [asyncio.create_task(run_joiner(peers[1], "127.0.0.1", port, lambda s, e: None,
                                            None, 2.0)),
             asyncio.create_task(run_joiner(peers[2], "127.0.0.1", relayed, watch, None, 2.0))]
    host_task = asyncio.create_task(runner.run())
    await asyncio.wait_for(cut, 120)
    relay.drop()
    while peers[2].me not in peers[0].away or not peers[2].attachment.dropped:
        await asyncio.sleep(0.05)
    await asyncio.sleep(2.0)  # it tries, and cannot get through
    relay.lift()
    await asyncio.wait_for(host_task, 240)
    await asyncio.wait_for(asyncio.gather(*tasks), 60)
    relay.close()
    return peers, shown


def test_a_joiner_cut_off_by_a_wifi_drop_reconnects_by_itself_and_plays_on() -> None:
    peers, shown = asyncio.run(_wifi_drop())
    host, cut = peers[0], peers[2]
    assert all(s.game_over and not s.ended for s in peers), [s.ended for s in peers]
    assert host.log == peers[1].log == cut.log  # the same session folded on, nothing lost
    assert kinds(host).count("away") == 1 and kinds(host).count("back") == 1
    assert "timeout" not in kinds(host)
    assert any("trying to reconnect" in text for text in shown), shown
    assert any(f"p2 (seat {cut.me}) returned" in text for text in shown), shown
    report = audit_of(host)
    assert report.ok and [line.status for line in report.hands] == ["ok", "ok"], report.fault


def test_the_seeds_file_is_owner_only_keeps_whole_records_and_goes_away(tmp_path: Path) -> None:
    import os

    from p2p_pageone.cli.seed_file import sweep

    folder = tmp_path / "tables"
    store, table = SeedFile("FP", folder), bytes(range(16))
    assert store.load(table, 1) is None
    assert store.save(table, 1, b"a" * 32) == "" and store.save(table, 2, b"b" * 32) == ""
    path = folder / f"{table.hex()}-FP.seeds"
    assert path.stat().st_mode & 0o777 == 0o600 and folder.stat().st_mode & 0o777 == 0o700
    with path.open("ab") as handle:
        handle.write((3).to_bytes(4, "big") + b"c" * 10)  # cut by a crash mid-write
    again = SeedFile("FP", folder)  # the next process
    assert again.load(table, 1) == b"a" * 32 and again.load(table, 2) == b"b" * 32
    assert again.load(table, 3) is None and SeedFile("FP", folder).load(bytes(16), 1) is None
    again.forget()
    assert not path.exists()
    store.save(table, 1, b"a" * 32)
    os.utime(path, (0, 0))
    sweep(folder)
    assert not path.exists()
    blocked = SeedFile("FP", tmp_path / "file-not-dir")
    (tmp_path / "file-not-dir").write_bytes(b"")
    assert "file-not-dir" in blocked.save(table, 1, b"a" * 32)


def test_coming_back_in_a_later_hand_tells_the_hand_in_play_and_sums_up_the_rest() -> None:
    from p2p_pageone.cli.repl import _story_so_far

    seeds = MemorySeeds()
    t = table(seeds, deals=3, seed=27)
    victim = t.sessions[2]
    while not (victim.hand == 2 and victim.hand_known() and victim.game is not None
               and victim.game.deal.moves >= 2):
        if not t.step():
            t.advance(t.now + 0.5)
    drop(t, 2)
    again = make_peer("27/2", "p2")
    again.seeds = seeds
    come_back(t, again)
    events = again.take_events()  # the log read at once, then the game played on
    read = events[:next(i for i, e in enumerate(events) if e.kind == "returning") + 1]
    told = [event.text for event in _story_so_far(read)]
    assert told[0].startswith("table 'memory'") and "p2 sits at seat 2" in told[3]
    assert "hand 1 was played before you came back (type scores for the totals)" in told
    assert "hand 2: p1 deals" in told and "hand 1: p0 deals" not in told
    assert not any(event.kind == "scores" for event in _story_so_far(read))
    assert told[-1] == "back at the table as p2 (seat 2): the game goes on"
    assert len(told) < len(read) / 2


def test_entries_from_the_mesh_while_a_new_connection_checks_the_log_are_no_fork() -> None:
    # a dropped joiner tries a host that does not answer (yet) while the others serve it the
    # log: those entries are new, not the host's log sent again, so they are folded, and the
    # host's resend, when it comes, is checked against what we held and skips what the mesh
    # brought
    t = table(MemorySeeds(), seed=23)
    mid_hand(t, 2)
    joiner, host = t.sessions[2], t.sessions[0]
    held = len(joiner.log)
    t.clients[1].receive = lambda data, now: None  # type: ignore[method-assign]
    while len(host.log) < held + 2:
        if not t.step():
            t.advance(t.now + 0.5)
    joiner.attachment.may_resume = True
    joiner.lost_host("the connection to the host closed")
    joiner.resume()
    for raw in host.log[held:held + 2]:  # as logsync takes them (``_take_from_mesh``)
        joiner.mesh.skip.append(raw)
        joiner.on_log(raw, t.now, in_place=True)
    assert not joiner.ended and joiner.log == host.log[:held + 2]
    for raw in host.log[:held + 2]:  # the host's resend
        joiner.on_log(raw, t.now)
    assert not joiner.ended, joiner.ended
    assert joiner.log == host.log[:held + 2]


def test_an_entry_the_host_sent_ahead_before_a_drop_is_no_entry_sent_again() -> None:
    # (seed 53864) the host sent entry n+2 before our connection dropped, n and n+1 withheld:
    # it waits behind the gap. Dropped, we read the log again on the next connection; the mesh
    # fills the gap meanwhile, and n+2 is then taken where it belongs, not checked as the first
    # entry of the host's log sent again (a "different log", and we left a table going on)
    t = table(MemorySeeds(), seed=23)
    mid_hand(t, 2)
    joiner, host = t.sessions[2], t.sessions[0]
    held = len(joiner.log)
    t.clients[1].receive = lambda data, now: None  # type: ignore[method-assign]
    while len(host.log) < held + 3:
        if not t.step():
            t.advance(t.now + 0.5)
    receipt = t.sequencer.receipts.of(host.log, held + 2)  # (every entry comes with one)
    assert not joiner.from_host(held + 2, host.log[held + 2], t.now, receipt)  # it waits, ahead
    joiner.attachment.may_resume = True
    joiner.lost_host("the connection to the host closed")
    joiner.resume()
    for raw in host.log[held:held + 2]:  # the mesh fills the gap
        joiner.mesh.skip.append(raw)
        joiner.on_log(raw, t.now, in_place=True)
    joiner._take_from_mesh(None, t.now)
    assert not joiner.ended, joiner.ended
    assert joiner.log == host.log[:held + 3]


def test_the_hosts_resend_that_skips_to_the_next_new_entry_takes_it() -> None:
    # (seed 16255) back at the host, a seat reads the log again; the host skipped the last
    # entries the seat held (it may: the seat has them) and sent the next new one, with its
    # receipt: that one is the log's next, not "entry n where entry n was due" (malformed data)
    t = table(MemorySeeds(), seed=23)
    mid_hand(t, 2)
    joiner, host = t.sessions[2], t.sessions[0]
    held = len(joiner.log)
    t.clients[1].receive = lambda data, now: None  # type: ignore[method-assign]
    while len(host.log) < held + 1:
        if not t.step():
            t.advance(t.now + 0.5)
    joiner.attachment.may_resume = True
    joiner.lost_host("the connection to the host closed")
    joiner.resume()
    receipts = t.sequencer.receipts
    for index in range(held - 2):
        assert joiner.from_host(index, host.log[index], t.now, receipts.of(host.log, index))
    assert joiner.from_host(held, host.log[held], t.now, receipts.of(host.log, held))
    assert not joiner.ended and joiner.attachment.dropped == "", joiner.attachment.dropped


def test_the_hosts_resend_that_skips_then_sends_another_entry_we_hold_is_its_fork() -> None:
    t = table(MemorySeeds(), seed=23)
    mid_hand(t, 2)
    joiner, host = t.sessions[2], t.sessions[0]
    held = len(joiner.log)
    joiner.attachment.may_resume = True
    joiner.lost_host("the connection to the host closed")
    joiner.resume()
    assert joiner.from_host(0, host.log[0], t.now)
    assert not joiner.from_host(held - 1, host.log[held - 2], t.now)  # other bytes there
    assert "sent entry" in joiner.ended and "(a fork)" in joiner.ended, joiner.ended
