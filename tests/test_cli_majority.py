"""Takeover by majority with real processes over loopback (protocol/SPEC.md §7, "Failover"):
the host stopped for 90 s (kill -STOP) is replaced by the next seat on the others' signed word,
and on resuming appends nothing and exits 5; a joiner stopped while the game ended takes nothing
over and says so; a host whose disk fills hands the table over and the game finishes."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from pathlib import Path

from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.engine import make_settings
from p2p_pageone.net.joiner import run_joiner
from p2p_pageone.net.logwriter import LogWriter
from p2p_pageone.net.runner import HostRunner
from p2p_pageone.session.fold.lost import HANDOVER
from p2p_pageone.session.memory import make_peer
from p2p_pageone.session.peer import PeerSession

from .log_subsets import assert_no_subset_names_anyone
from .test_cli_lobby import LOOPBACK, Proc, free_port
from .test_cli_reconnect import _logs
from .test_local_faults import FullDisk

PACE = ("--think", "0.05", "--catch-window", "0")
STOPPED = 90.0


def _join(home: Path, port: int, name: str) -> Proc:
    return Proc(home, "join", "--bot", "--name", name, "--connect", f"127.0.0.1:{port}", *PACE)


def _audit(*logs: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "p2p_pageone.cli.main", "audit",
                           *map(str, logs)], capture_output=True, text=True, timeout=300)


def test_the_host_stopped_90_s_the_majority_moves_on_and_every_log_audits(
        tmp_path: Path) -> None:
    port = free_port()
    host = Proc(tmp_path / "h", "host", "--name", "hal", "--seats", "4", "--autoplay",
                "--deals", "1", "--port", str(port), *PACE, *LOOPBACK)
    procs = [host]
    try:
        host.wait_for("hosting")
        joiners = []
        for seat, name in enumerate(("ann", "bob", "cat"), 1):  # ann is the first successor
            joiners.append(_join(tmp_path / name, port, name))
            procs.append(joiners[-1])
            host.wait_for(f"{name} sits at seat {seat}")
        joiners[0].wait_for(" plays ", 120)
        host.proc.send_signal(signal.SIGSTOP)
        stopped = time.monotonic()
        # a loaded machine's round trips may stretch the joiners' silence threshold to 60 s
        joiners[0].wait_for("takes the table over", 180)
        time.sleep(max(0.0, STOPPED - (time.monotonic() - stopped)))
        host.proc.send_signal(signal.SIGCONT)
        assert host.finish(60) == 5, host.text()
        for joiner in joiners:
            assert joiner.finish(240) == 0, joiner.text()
        told = host.text()
        assert "moved to the next seat while this machine was stopped" in told or \
            "the table moved on to the next seat" in told, told
        for joiner in joiners:
            screen = joiner.text()
            assert "by 3 of the 4 seats that listen, a majority" in screen, screen
            assert "is the table's host now" in screen and "game over" in screen, screen
        full = [_logs(tmp_path / name)[0] for name in ("ann", "bob", "cat")]
        old = _logs(tmp_path / "h")[0]
        assert len({log.read_bytes() for log in full}) == 1
        # the old host's log: a prefix, or, if it appended one entry that reached nobody before
        # it was stopped, a split at the takeover on the old host's side; no fault either way
        audit = _audit(*full, old)
        assert "FAIL" not in audit.stdout, audit.stdout
        assert "moved to ann" in audit.stdout or "taken over by ann" in audit.stdout, (
            audit.stdout)
        assert "old host's side" in audit.stdout, (
            audit.stdout)
        assert _audit(*full).returncode == 0
        assert_no_subset_names_anyone([*full, old])
    finally:
        for proc in procs:
            if proc.proc.poll() is None:
                proc.proc.send_signal(signal.SIGCONT)
                proc.proc.kill()


def test_a_joiner_stopped_while_the_game_ended_takes_nothing_over(tmp_path: Path) -> None:
    """The first successor is stopped mid-game for 90 s; the host times it out and the game
    ends meanwhile. Resumed, it finds nobody of the table: no takeover, no advert, a clear
    message, exit 5."""
    port = free_port()
    host = Proc(tmp_path / "h", "host", "--name", "hal", "--seats", "3", "--autoplay",
                "--deals", "1", "--port", str(port), "--reconnect-window", "3", *PACE,
                *LOOPBACK)
    procs = [host]
    try:
        host.wait_for("hosting")
        ann = _join(tmp_path / "ann", port, "ann")  # seat 1: the first successor
        procs.append(ann)
        host.wait_for("ann sits at seat 1")
        bob = _join(tmp_path / "bob", port, "bob")
        procs.append(bob)
        ann.wait_for(" plays ", 120)
        ann.proc.send_signal(signal.SIGSTOP)
        stopped = time.monotonic()
        assert host.finish(STOPPED - 5) == 0, host.text()
        assert bob.finish(30) == 0, bob.text()
        time.sleep(max(0.0, STOPPED - (time.monotonic() - stopped)))
        ann.proc.send_signal(signal.SIGCONT)
        assert ann.finish(60) == 5, ann.text()
        screen = ann.text()
        assert "nobody of this table answers any more" in screen, screen
        assert "takes the table over" not in screen and "advertised" not in screen, screen
        assert "Traceback" not in screen
    finally:
        for proc in procs:
            if proc.proc.poll() is None:
                proc.proc.send_signal(signal.SIGCONT)
                proc.proc.kill()


async def _disk_fills(tmp_path: Path) -> list[PeerSession]:
    settings = make_settings("classic", {"deals": 1})
    peers = [make_peer(f"hand/{i}", f"p{i}", host_table=("t", settings, 4) if i == 0
                       else None) for i in range(4)]
    logs = [FullDisk(tmp_path / "p0.log", 12000)] + [
        LogWriter(tmp_path / f"p{i}.log") for i in range(1, 4)]
    runner = HostRunner(peers[0], "127.0.0.1", 0, lambda s, e: None, logs[0])
    port = await runner.start()
    joiners = [asyncio.create_task(run_joiner(peer, "127.0.0.1", port, lambda s, e: None, log,
                                              listen=True, reconnect_window=4))
               for peer, log in zip(peers[1:], logs[1:], strict=True)]
    await asyncio.wait_for(runner.run(), 120)
    await asyncio.wait_for(asyncio.gather(*joiners), 240)
    for log in logs:
        log.close()
    return peers


def test_a_host_whose_disk_fills_hands_the_table_over_and_the_game_finishes(
        tmp_path: Path) -> None:
    peers = asyncio.run(_disk_fills(tmp_path))
    host, joiners = peers[0], peers[1:]
    assert "the disk is full" in host.local
    assert all(p.game_over and not p.ended for p in joiners), [p.ended for p in joiners]
    entries = [open_envelope(raw) for raw in joiners[0].log]
    byes = [e for e in entries if e.kind == "bye"]
    assert [(b.sender, b.data["reason"]) for b in byes] == [(host.identity.public, HANDOVER)]
    takeover = next(e for e in entries if e.kind == "takeover")
    assert takeover.sender == joiners[0].identity.public and takeover.data["lost"] == []
    data = [(tmp_path / f"p{i}.log").read_bytes() for i in range(1, 4)]
    assert data[0] == data[1] == data[2]
    audit = _audit(tmp_path / "p1.log")
    assert audit.returncode == 0 and "the host handed it over" in audit.stdout, audit.stdout
