"""A host whose disk fills mid-game, with real processes over loopback (protocol/SPEC.md §7,
"Failover"; README, "When something fails"). The host's data directory is a small tmpfs of its
own, mounted in a mount namespace only its process sees, and the test fills it while the game
runs. The host cannot write its log: it says so, hands the table over in its `bye` and exits 1;
the next seat takes the table over, the game finishes, and every joiner's log audits OK."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from .log_subsets import assert_no_subset_names_anyone
from .test_cli_lobby import LOOPBACK, Proc, free_port
from .test_cli_majority import PACE, _audit, _join
from .test_cli_reconnect import _logs

# The host's pageone in a mount namespace of its own, its data directory a 1 MiB tmpfs there.
SMALL_DISK = ("unshare", "-m", "--propagation", "private", "--", "sh", "-c",
              'mkdir -p "$XDG_DATA_HOME" && mount -t tmpfs -o size=1m tmpfs "$XDG_DATA_HOME" '
              '&& exec "$@"', "sh", sys.executable, "-m", "p2p_pageone.cli.main")


def _why_not() -> str:
    """Empty if a private tmpfs can be mounted here, else why not."""
    if os.geteuid() != 0:
        return "a tmpfs in a mount namespace of its own needs root"
    if shutil.which("unshare") is None or shutil.which("nsenter") is None:
        return "util-linux's unshare and nsenter are not installed"
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "--", "sh", "-c",
                            "mount -t tmpfs -o size=64k tmpfs /tmp"], capture_output=True,
                           text=True, timeout=30)
    return "" if probe.returncode == 0 else f"cannot mount a tmpfs: {probe.stderr.strip()}"


def _fill(pid: int, directory: Path) -> None:
    """Fill the disk under ``directory`` as process ``pid`` sees it, to the last byte."""
    subprocess.run(["nsenter", "-t", str(pid), "-m", "--", "sh", "-c",
                    'cat /dev/zero > "$0/filler" 2>/dev/null; true', str(directory)],
                   check=True, timeout=60)


def test_a_host_whose_disk_fills_hands_over_and_the_game_finishes(tmp_path: Path) -> None:
    why = _why_not()
    if why:
        pytest.skip(why)
    port = free_port()
    host = Proc(tmp_path / "h", "host", "--name", "hal", "--seats", "4", "--autoplay",
                "--deals", "1", "--port", str(port), *PACE, *LOOPBACK, command=SMALL_DISK)
    procs = [host]
    try:
        host.wait_for("hosting")
        joiners = []
        for seat, name in enumerate(("ann", "bob", "cat"), 1):  # ann is the first successor
            joiners.append(_join(tmp_path / name, port, name))
            procs.append(joiners[-1])
            host.wait_for(f"{name} sits at seat {seat}")
        joiners[0].wait_for(" plays ", 120)
        _fill(host.proc.pid, tmp_path / "h" / "data")
        assert host.finish(60) == 1, host.text()
        for joiner in joiners:
            assert joiner.finish(240) == 0, joiner.text()
        told = host.text()
        assert "disk is full" in told and "Traceback" not in told, told
        assert "hands the table over to the next seat, ann (seat 1)" in told, told
        for joiner in joiners:
            screen = joiner.text()
            assert "cannot write its log" in screen and "game over" in screen, screen
        assert "takes the table over" in joiners[0].text()
        logs = [_logs(tmp_path / name)[0] for name in ("ann", "bob", "cat")]
        assert len({log.read_bytes() for log in logs}) == 1
        audit = _audit(*logs)
        assert audit.returncode == 0 and "the host handed it over" in audit.stdout, audit.stdout
        assert_no_subset_names_anyone(logs)  # the host's went with its mount namespace
    finally:
        for proc in procs:
            if proc.proc.poll() is None:
                proc.proc.send_signal(signal.SIGCONT)
                proc.proc.kill()
