"""Local I/O errors are never network errors: a full disk, an unwritable log directory and a port
in use are told as this machine's problem, the log is kept whole as far as it goes, a `bye` is
sent, and no peer is timed out or named in any log."""

from __future__ import annotations

import asyncio
import errno
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.engine import make_settings
from p2p_pageone.net.joiner import run_joiner
from p2p_pageone.net.logwriter import LocalFault, LogWriter
from p2p_pageone.net.runner import EventSink, HostRunner
from p2p_pageone.session.common import Event
from p2p_pageone.session.memory import make_peer
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.wire.codec import FrameDecoder

LOOPBACK = ("--no-mdns", "--interface", "127.0.0.1")


class FullDisk(LogWriter):
    """A log whose disk fills after ``room`` bytes: the write that crosses it is taken in part,
    the next one raises ENOSPC, as a real nearly full disk does."""

    def __init__(self, path: Path, room: int | None) -> None:
        super().__init__(path)
        self.room = room

    def _write_some(self, data: bytes) -> int:
        if self.room is None:
            return super()._write_some(data)
        if self.room <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        taken = super()._write_some(data[: self.room])
        self.room -= taken
        return taken


def entries(path: Path) -> list[bytes]:
    decoder = FrameDecoder()
    out = decoder.feed(path.read_bytes())
    assert decoder.pending == 0, "the log ends in the middle of an entry"
    return out


def test_a_full_disk_keeps_the_log_whole_and_says_whose_problem_it_is(tmp_path: Path) -> None:
    session = make_peer("disk", "p0", host_table=("t", make_settings("classic"), 2))
    session.log.extend([b"a" * 100, b"b" * 100, b"c" * 100])
    log = FullDisk(tmp_path / "t.log", room=150)  # the second entry is cut by the disk
    with pytest.raises(LocalFault) as fault:
        log.sync(session)
    text = str(fault.value)
    assert "the disk is full" in text and "problem of this machine" in text and "--log" in text
    assert entries(tmp_path / "t.log") == [b"a" * 100]
    log.sync(session)  # told once; nothing more is tried
    log.close()


def closed_pipe(session: PeerSession, events: list[Event]) -> None:
    if events:
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


async def play(tmp_path: Path, full: dict[int, int],
               screens: dict[int, EventSink] | None = None) -> list[PeerSession]:
    """A 3-seat table on loopback whose peer ``i``'s disk fills after ``full[i]`` bytes, and
    whose peer ``i`` shows its events with ``screens[i]``."""
    screens = screens or {}
    shown: list[EventSink] = [screens.get(i, lambda s, e: None) for i in range(3)]
    settings = make_settings("classic", {"deals": 1})
    peers = [make_peer(f"local/{i}", f"p{i}", host_table=("t", settings, 3) if i == 0 else None)
             for i in range(3)]
    logs = [FullDisk(tmp_path / f"p{i}.log", full.get(i)) for i in range(3)]
    runner = HostRunner(peers[0], "127.0.0.1", 0, shown[0], logs[0])
    port = await runner.start()
    joiners = [asyncio.create_task(run_joiner(peer, "127.0.0.1", port, show, log))
               for peer, log, show in zip(peers[1:], logs[1:], shown[1:], strict=True)]
    await asyncio.wait_for(runner.run(), 240)
    await asyncio.wait_for(asyncio.gather(*joiners), 60)
    for log in logs:
        log.close()
    return peers


def no_blame(peers: list[PeerSession], tmp_path: Path) -> None:
    for index, peer in enumerate(peers):
        kinds = [open_envelope(raw).kind for raw in peer.log]
        assert "timeout" not in kinds and "expel" not in kinds, (index, kinds)
        written = entries(tmp_path / f"p{index}.log")
        assert written == peer.log[: len(written)]  # whole entries, a prefix of what it saw


def test_the_host_with_a_full_disk_closes_the_table_and_names_nobody(tmp_path: Path) -> None:
    peers = asyncio.run(play(tmp_path, {0: 6000}))  # full early in the first hand
    host, joiners = peers[0], peers[1:]
    assert "the disk is full" in host.local and "problem of this machine" in host.local
    assert "closed the table (the host's machine cannot write its log)" in host.ended
    for joiner in joiners:
        assert joiner.ended.endswith("closed the table (the host's machine cannot write its "
                                     "log)"), joiner.ended
        assert not joiner.local
    no_blame(peers, tmp_path)


def test_a_joiner_with_a_full_disk_leaves_and_the_table_plays_on(tmp_path: Path) -> None:
    peers = asyncio.run(play(tmp_path, {2: 6000}))
    host, other, failing = peers
    assert "the disk is full" in failing.local
    assert "the table goes on without us" in failing.ended
    assert host.game_over and other.game_over and not host.ended and not other.ended
    byes = [open_envelope(raw) for raw in host.log if open_envelope(raw).kind == "bye"]
    assert [(b.sender, b.data["reason"]) for b in byes] == [
        (failing.identity.public, "its machine cannot write its log")]
    no_blame(peers, tmp_path)


def test_a_screen_that_cannot_be_written_stops_no_one(tmp_path: Path) -> None:
    """The host's and a joiner's output go to a closed pipe: the table plays on, unseen."""
    peers = asyncio.run(play(tmp_path, {}, {0: closed_pipe, 1: closed_pipe}))
    assert all(peer.game_over and not peer.ended for peer in peers), [p.ended for p in peers]
    no_blame(peers, tmp_path)
    assert entries(tmp_path / "p0.log") == peers[0].log


def pageone(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / "cfg"),
           "XDG_DATA_HOME": str(home / "data"), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "p2p_pageone.cli.main", *args],
                          capture_output=True, text=True, timeout=60, env=env, check=False)


def test_an_unwritable_log_directory_is_refused_before_joining_anything(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("a file where the data directory should be")
    for args in (("host", "--bots", "1", "--autoplay", *LOOPBACK),
                 ("join", "--bot", "--connect", "127.0.0.1:9"),
                 ("host", "--bots", "1", "--autoplay", *LOOPBACK, "--log",
                  str(tmp_path / "data" / "x.log"))):
        result = pageone(tmp_path, *args)
        assert result.returncode == 1, (args, result.stdout, result.stderr)
        assert "cannot write the table's log in" in result.stderr, result.stderr
        assert "problem of this machine" in result.stderr
        assert "Traceback" not in result.stderr + result.stdout
        assert "could not connect" not in result.stderr  # refused before any network


def test_a_port_in_use_is_this_machines_problem(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = pageone(tmp_path, "host", "--port", str(port), *LOOPBACK)
    assert result.returncode == 2, result.stderr
    assert "the port is already in use on this machine" in result.stderr, result.stderr
    assert "choose another --port" in result.stderr and "Traceback" not in result.stderr


def test_a_host_on_a_really_full_disk_exits_cleanly(tmp_path: Path) -> None:
    """A 24 KiB tmpfs in a mount namespace of its own holds the host's log: it fills in the
    first hand."""
    mount = tmp_path / "small"
    mount.mkdir()
    host = (f"{sys.executable} -m p2p_pageone.cli.main host --bots 2 --autoplay "
            f"{' '.join(LOOPBACK)} --deals 1 --think 0 --catch-window 0 --log {mount}/t.log")
    script = (f"mount -t tmpfs -o size=24k tmpfs {mount} || exit 97; {host}; rc=$?; "
              f"cp {mount}/t.log {tmp_path}/t.log; exit $rc")
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}
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
    logged = [open_envelope(raw) for raw in entries(tmp_path / "t.log")]
    assert logged and all(env.kind != "timeout" for env in logged)
