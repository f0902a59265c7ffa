"""Exit codes (README "Exit codes"; protocol/SPEC.md §7, "This machine's own faults"): this
machine's network (5) is told apart from its files (1) without reading any message; a joiner that
reached nobody at all after a drop is told its own network is most likely down, naming nobody;
and a start that fails leaves no log file behind, not even an empty one."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import errno
import os
import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from p2p_pageone.cli import identity_store
from p2p_pageone.cli.draws import ended_text
from p2p_pageone.cli.identity_store import IdentityFileError, load_or_create
from p2p_pageone.cli.playing import EXIT_FILES, EXIT_NETWORK, finish
from p2p_pageone.engine import make_settings
from p2p_pageone.net.joiner import run_joiner
from p2p_pageone.net.logwriter import LocalFault, LogWriter
from p2p_pageone.net.runner import HostRunner
from p2p_pageone.session.common import Event
from p2p_pageone.session.memory import MemoryTable, make_peer
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.session.reach import DropReach

from .test_liveness import until_playing

LOOPBACK = ("--no-mdns", "--interface", "127.0.0.1")
HOST, OTHER = ("10.0.0.1", 7420), ("10.0.0.2", 7421)

# --- a drop that reached nobody ----------------------------------------------------------------


def test_a_drop_whose_every_attempt_failed_at_two_places_reached_nobody() -> None:
    reach = DropReach()
    reach.note(HOST, "unreachable")
    assert not reach.nobody()  # the host alone: a host that is down looks the same
    reach.note(OTHER, "unreachable")
    reach.note(HOST, "unreachable")
    assert reach.nobody()
    reach.note(OTHER, "")  # one connection was made: the network works
    assert not reach.nobody()
    reach.clear()  # back at the table: the next drop starts afresh
    reach.note(HOST, "unreachable")
    reach.note(OTHER, "refused")  # that machine answered: nothing listens there
    assert not reach.nobody()
    reach.clear()
    reach.note(HOST, "unreachable")
    reach.note(OTHER, "unreachable")
    assert reach.nobody()


def test_exit_5_is_this_machines_network_and_1_its_files() -> None:
    quiet = SimpleNamespace(quitting=False, offline=False)
    for network, code in ((True, EXIT_NETWORK), (False, EXIT_FILES)):
        session = make_peer("exit", "p1")
        session.local, session.local_network = "this machine failed", network
        assert finish(session, quiet, None) == code  # type: ignore[arg-type]
    assert EXIT_NETWORK == 5


def test_a_host_that_hears_no_player_stops_for_its_network() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 4, seed=45)
    until_playing(t)
    host = t.sessions[0]
    for _ in range(70):  # 35 s, every link down at the host's end
        t.now += 0.5
        t.sequencer.tick(t.now)
    assert "this machine's network is most likely down" in host.local
    assert host.local_network and "the host lost its network" in host.ended
    events = [e for e in host.take_events() if e.kind == "local"]
    assert [e.data for e in events] == [{"network": True}]


def test_none_back_within_the_window_is_the_hosts_network_too() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 4, seed=47)
    until_playing(t)
    host = t.sessions[0]
    for _ in range(24):
        t.now += 0.5
        t.sequencer.tick(t.now)
    for conn in (1, 2, 3):
        t.sequencer.disconnect(conn, t.now)
    for _ in range(130):
        t.now += 0.5
        t.sequencer.tick(t.now)
    assert "came back" in host.local and host.local_network


def test_a_full_disk_is_not_the_network() -> None:
    session = make_peer("disk", "p0", host_table=("t", make_settings("classic"), 2))
    session.local_fault("cannot write the table's log: the disk is full", 0.0)
    assert session.local and not session.local_network


OFFLINE: contextvars.ContextVar[dict[str, bool] | None] = contextvars.ContextVar(
    "offline", default=None)
_open_connection = asyncio.open_connection


async def _open_unless_offline(*args: Any, **kwargs: Any) -> Any:
    """``asyncio.open_connection``, but a task whose link is down gets ENETUNREACH (as a
    machine whose cable is out does), wherever it connects."""
    link = OFFLINE.get()
    if link is not None and link["down"] and "sock" not in kwargs:
        raise OSError(errno.ENETUNREACH, os.strerror(errno.ENETUNREACH))
    return await _open_connection(*args, **kwargs)


class Cable:
    """A loopback relay to the host whose cable can be pulled: every connection it carries is
    reset at once (so the drop is seen whatever the measured round trip) and new ones too."""

    def __init__(self, port: int) -> None:
        self.port, self.pulled = port, False
        self.writers: list[asyncio.StreamWriter] = []
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.pulled:
            writer.transport.abort()
            return
        up_reader, up_writer = await _open_connection("127.0.0.1", self.port)
        self.writers += [writer, up_writer]

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(ConnectionError, OSError):
                while data := await source.read(65536):
                    sink.write(data)
            sink.transport.abort()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))

    def pull(self) -> None:
        self.pulled = True
        for writer in self.writers:
            writer.transport.abort()

    def close(self) -> None:
        if self.server is not None:
            self.server.close()


async def _own_link_down() -> tuple[PeerSession, list[Event]]:
    """Host, p1 and p2 on loopback, every joiner listening for a takeover; mid-hand p2's own
    link goes down: its connection to the host is cut, and every new one (to the host, to p1,
    its successor) fails at once, as with no route."""
    settings = make_settings("classic", {"deals": 2})
    peers = [make_peer(f"own/{i}", f"p{i}", host_table=("t", settings, 3) if i == 0 else None)
             for i in range(3)]
    runner = HostRunner(peers[0], "127.0.0.1", 0, lambda s, e: None, None, silent_after=2.0)
    port = await runner.start()
    relay = Cable(port)
    relayed = await relay.start()
    mid = asyncio.get_running_loop().create_future()
    heard: list[Event] = []

    def watch(session: PeerSession, events: list[Event]) -> None:
        heard.extend(events)
        game = session.game
        if not mid.done() and game is not None and session.hand_known() and game.deal.moves >= 3:
            mid.set_result(None)

    link = {"down": False}
    context = contextvars.copy_context()
    context.run(OFFLINE.set, link)
    other = asyncio.create_task(run_joiner(peers[1], "127.0.0.1", port, lambda s, e: None,
                                           None, 2.0, listen=True))
    cut = asyncio.create_task(run_joiner(peers[2], "127.0.0.1", relayed, watch, None, 2.0,
                                         retry_for=3.0, listen=True), context=context)
    host = asyncio.create_task(runner.run())
    try:
        await asyncio.wait_for(mid, 120)
        link["down"] = True
        relay.pull()
        await asyncio.wait_for(cut, 60)
    finally:
        for task in (host, other, cut):
            task.cancel()
        await asyncio.gather(host, other, cut, return_exceptions=True)
        await runner.close()
        relay.close()
    return peers[2], heard


def test_a_joiner_whose_own_link_is_down_is_told_so_names_nobody_and_exits_5(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(asyncio, "open_connection", _open_unless_offline)
    joiner, heard = asyncio.run(_own_link_down())
    assert joiner.local_network, joiner.ended
    assert joiner.local.startswith("could not reach the host or any other player for 3 s: "
                                   "this machine's network is most likely down"), joiner.local
    assert joiner.ended == f"left the table: {joiner.local}"
    assert "p0" not in joiner.ended and "p1" not in joiner.ended  # nobody is named
    ended = [e for e in heard if e.kind == "ended"]
    assert [e.data["culprit"] for e in ended] == [-1]
    assert not any("could not connect" in e.text for e in ended)
    assert joiner.attachment.dropped  # the seat's secrets are kept for a return
    assert ended_text(joiner, -1) == joiner.ended  # no "the table ended": it may go on
    quiet = SimpleNamespace(quitting=False, offline=False)
    assert finish(joiner, quiet, None) == EXIT_NETWORK  # type: ignore[arg-type]


# --- a failed start leaves no log file ---------------------------------------------------------


class RefusingDisk(LogWriter):
    """A disk that takes ``room`` bytes of the first write, then no more (ENOSPC)."""

    def __init__(self, path: Path, room: int) -> None:
        super().__init__(path)
        self.room = room

    def _write_some(self, data: bytes) -> int:
        if self.room <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        taken = super()._write_some(data[: self.room])
        self.room -= taken
        return taken


@pytest.mark.parametrize("room", [0, 3, 50])  # nothing, part of the header, part of the entry
def test_a_disk_that_takes_no_whole_entry_leaves_no_file(tmp_path: Path, room: int) -> None:
    session = make_peer("disk", "p0", host_table=("t", make_settings("classic"), 2))
    session.log.extend([b"a" * 100, b"b" * 100])
    log = RefusingDisk(tmp_path / "t.log", room)
    with pytest.raises(LocalFault, match="the disk is full"):
        log.sync(session)
    assert list(tmp_path.iterdir()) == [] and log.path is None
    log.close()


def test_a_full_disk_at_the_first_entry_leaves_no_file_with_the_real_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = make_peer("disk", "p0", host_table=("t", make_settings("classic"), 2))
    session.log.append(b"a" * 100)
    log = LogWriter(tmp_path / "t.log")

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(LocalFault, match="the disk is full"):
        log.sync(session)
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []


def test_a_log_with_whole_entries_is_kept_when_the_disk_fills_later(tmp_path: Path) -> None:
    session = make_peer("disk", "p0", host_table=("t", make_settings("classic"), 2))
    session.log.extend([b"a" * 100, b"b" * 100])
    log = RefusingDisk(tmp_path / "t.log", 150)
    with pytest.raises(LocalFault):
        log.sync(session)
    assert log.path == tmp_path / "t.log" and log.path.stat().st_size == 104
    log.close()


def test_an_identity_the_disk_refuses_is_this_machines_problem_and_left_nowhere(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cfg").write_text("a file where the config directory should be")
    with pytest.raises(IdentityFileError, match=r"a part of the path is a file.*problem of this "
                       r"machine"):
        load_or_create(tmp_path / "cfg" / "pageone")

    class Full:
        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def write(self, data: bytes) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def fdopen(fd: int, mode: str) -> Full:
        os.close(fd)
        return Full()

    monkeypatch.setattr(identity_store.os, "fdopen", fdopen)
    with pytest.raises(IdentityFileError, match="the disk is full"):
        load_or_create(tmp_path / "new")
    assert not (tmp_path / "new" / "identity.key").exists()  # no empty identity to trip on


def pageone(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / "cfg"),
           "XDG_DATA_HOME": str(home / "data"), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "p2p_pageone.cli.main", *args],
                          capture_output=True, text=True, timeout=60, env=env, check=False)


def no_logs(home: Path) -> list[Path]:
    return [p for p in (home / "data").rglob("*") if p.is_file()]


def test_a_host_whose_port_is_in_use_leaves_no_log(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = pageone(tmp_path, "host", "--port", str(port), "--bots", "1", *LOOPBACK)
    assert result.returncode == 2 and "already in use" in result.stderr, result.stderr
    assert no_logs(tmp_path) == []


def test_a_join_that_reaches_no_table_leaves_no_log(tmp_path: Path) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # bound, never listening: refused
        result = pageone(tmp_path, "join", "--bot", "--connect", f"127.0.0.1:{port}")
    assert result.returncode == 3 and "could not connect" in result.stderr, result.stderr
    assert no_logs(tmp_path) == []


def test_an_unusable_identity_is_exit_1_with_no_log_and_no_traceback(tmp_path: Path) -> None:
    (tmp_path / "cfg").write_text("a file where the config directory should be")
    result = pageone(tmp_path, "host", "--bots", "1", "--autoplay", *LOOPBACK)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "problem of this machine" in result.stderr and "Traceback" not in result.stderr
    assert no_logs(tmp_path) == []


def test_a_host_whose_data_directory_is_full_exits_1_and_leaves_no_log(tmp_path: Path) -> None:
    """A 64 KiB tmpfs in a mount namespace of its own, filled before the start, is the data
    directory: the table's first entry does not fit."""
    data = tmp_path / "data"
    data.mkdir()
    host = (f"{sys.executable} -m p2p_pageone.cli.main host --bots 2 --autoplay "
            f"{' '.join(LOOPBACK)} --deals 1 --think 0 --catch-window 0")
    script = (f"mount -t tmpfs -o size=64k tmpfs {data} || exit 97; "
              f"dd if=/dev/zero of={data}/filler bs=4k count=64 2>/dev/null; {host}; rc=$?; "
              f"find {data} -type f ! -name filler > {tmp_path}/left; exit $rc")
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_DATA_HOME": str(data), "PATH": "/usr/bin:/bin"}
    try:
        result = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True,
                                text=True, timeout=120, env=env, check=False)
    except FileNotFoundError:
        pytest.skip("no unshare on this machine")
    if result.returncode == 97 or "unshare:" in result.stderr:
        pytest.skip(f"cannot mount a tmpfs in a mount namespace here: {result.stderr[-200:]}")
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "the disk is full" in result.stderr and "problem of this machine" in result.stderr
    assert "Traceback" not in output
    assert not any(line.startswith("log: ") for line in result.stdout.splitlines())
    assert (tmp_path / "left").read_text() == ""  # no log file, not even an empty one
