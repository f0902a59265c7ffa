"""Failover with real processes over loopback (no mDNS): `pageone host` killed with SIGKILL
mid-hand; the next seat's `pageone join` takes the table over, the others reconnect to it, and
the game finishes; every survivor's log is the same, the host's is a prefix of it, and the audit
is clean."""

from __future__ import annotations

import signal
import time
from pathlib import Path

from .test_cli_lobby import LOOPBACK, Proc, free_port
from .test_cli_reconnect import _logs, one_table


def _join(home: Path, port: int, name: str) -> Proc:
    return Proc(home, "join", "--bot", "--name", name, "--connect", f"127.0.0.1:{port}",
                "--think", "0.05", "--catch-window", "0")


def test_the_host_killed_mid_hand_the_next_seat_takes_over_and_the_game_finishes(
        tmp_path: Path) -> None:
    port = free_port()
    host = Proc(tmp_path / "h", "host", "--name", "hal", "--seats", "4", "--autoplay",
                "--deals", "1", "--port", str(port), "--think", "0.05", "--catch-window", "0",
                *LOOPBACK)
    procs = [host]
    try:
        host.wait_for("hosting")
        joiners = [_join(tmp_path / name, port, name) for name in ("ann", "bob", "cat")]
        procs += joiners
        joiners[0].wait_for(" plays ")  # a move into hand 1
        time.sleep(0.3)
        host.proc.send_signal(signal.SIGKILL)
        host.proc.wait(10)
        for joiner in joiners:
            assert joiner.finish(240) == 0, joiner.text()
        for joiner in joiners:
            screen = joiner.text()
            assert "is the table's host now" in screen, screen
            assert "hal (seat 0) left with its pageone" in screen
            assert "game over" in screen and "Traceback" not in screen
        one_table(_logs(tmp_path / "h")[0],
                  [_logs(tmp_path / name)[0] for name in ("ann", "bob", "cat")])
    finally:
        for proc in procs:
            if proc.proc.poll() is None:
                proc.proc.kill()
