"""Every log holds the table's last entry: a host that closes its table (quit) waits for the
close to reach its CPU players before it stops them, so their logs end with it too."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from p2p_pageone.audit.check import audit_bytes


def test_the_cpu_players_logs_end_with_the_hosts_close(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    host = subprocess.Popen(
        [sys.executable, "-m", "p2p_pageone.cli.main", "host", "--bots", "2", "--no-mdns",
         "--interface", "127.0.0.1", "--plain", "--think", "0.1"], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert host.stdin is not None and host.stdout is not None
    for line in host.stdout:
        if "YOUR TURN" in line or "plays" in line:
            break
    time.sleep(0.5)
    host.stdin.write("quit\ny\n")
    host.stdin.flush()
    out, _ = host.communicate(timeout=60)
    assert host.returncode == 4, out
    logs = sorted((tmp_path / "data" / "pageone" / "logs").glob("*cpu*"))
    assert len(logs) == 2
    for log in logs:
        audit = audit_bytes(log.read_bytes())
        assert audit.verdict == "INCOMPLETE" and audit.early is not None
        assert audit.early.table_closed and "closed the table" in audit.early.reason, log
