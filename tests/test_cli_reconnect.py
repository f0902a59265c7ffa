"""Reconnect with real processes over loopback (no mDNS): a joiner killed with SIGKILL mid-hand
runs the same `pageone join` again, returns to its seat and plays on; the game finishes, every
log agrees and the audit is clean; everyone's screen says the player left and returned."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from .test_cli_lobby import LOOPBACK, Proc, free_port


def _join(home: Path, port: int, name: str) -> Proc:
    return Proc(home, "join", "--bot", "--name", name, "--connect", f"127.0.0.1:{port}",
                "--think", "0.1", "--catch-window", "0")


def _logs(home: Path) -> list[Path]:
    return sorted((home / "data" / "pageone" / "logs").glob("*.pageone-log"))


def _audit(*logs: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "p2p_pageone.cli.main", "audit",
                           *map(str, logs)], capture_output=True, text=True, timeout=300)


def one_table(killed: Path, full: list[Path]) -> None:
    """Every full log the same, the killed process's a prefix of it, and the audit OK."""
    assert len({log.read_bytes() for log in full}) == 1
    assert full[0].read_bytes().startswith(killed.read_bytes())
    audit = _audit(*full)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "verdict: OK" in audit.stdout


def test_a_joiner_killed_mid_hand_runs_the_same_join_again_and_plays_on(tmp_path: Path) -> None:
    port = free_port()
    host = Proc(tmp_path / "h", "host", "--name", "hal", "--seats", "3", "--autoplay",
                "--deals", "1", "--port", str(port), "--think", "0.1", "--catch-window", "0",
                *LOOPBACK)
    procs = [host]
    try:
        host.wait_for("hosting")
        ann = _join(tmp_path / "ann", port, "ann")
        bob = _join(tmp_path / "bob", port, "bob")
        procs += [ann, bob]
        bob.wait_for(" plays ")  # a move into hand 1
        time.sleep(0.3)
        seeds = list((tmp_path / "bob" / "data" / "pageone" / "tables").glob("*.seeds"))
        assert len(seeds) == 1 and seeds[0].stat().st_mode & 0o777 == 0o600
        bob.proc.send_signal(signal.SIGKILL)
        bob.proc.wait(10)
        host.wait_for("left (disconnected): the seat is kept for 60 s for bob to return")
        seat = re.search(r"bob \(seat (\d)\) left", host.text())
        assert seat is not None, host.text()
        again = _join(tmp_path / "bob", port, "bob")  # the same command, the same HOME
        procs.append(again)
        again.wait_for(f"back at the table as bob (seat {seat[1]})")
        assert host.finish(240) == 0, host.text()
        assert again.finish(60) == 0, again.text()
        assert ann.finish(60) == 0, ann.text()
        for screen in (host.text(), ann.text(), again.text()):
            assert f"bob (seat {seat[1]}) left (disconnected)" in screen
            # bob's own return is told once, by its own machine ("back at the table as bob")
            assert (f"bob (seat {seat[1]}) returned" in screen) == (screen != again.text())
            assert "game over" in screen and "Traceback" not in screen
        assert again.text().count("back at the table as bob") == 1
        assert "timed out" not in host.text() and "void" not in host.text()
        assert not list(seeds[0].parent.glob("*.seeds"))  # the game is over: secrets deleted
        logs = [*_logs(tmp_path / "h"), *_logs(tmp_path / "ann"), *_logs(tmp_path / "bob")]
        assert len(logs) == 4  # bob's first visit left its log too: a prefix of the others
        killed = min(_logs(tmp_path / "bob"), key=lambda p: p.stat().st_size)
        one_table(killed, [log for log in logs if log != killed])
    finally:
        for proc in procs:
            if proc.proc.poll() is None:
                proc.proc.kill()
