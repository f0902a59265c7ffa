"""`pageone watch` on the table screen, on a pseudo-terminal at 80x24 read through pyte: a host
and three CPU players on loopback (no mDNS), watched from the lobby to the verdict."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .test_table_screen import SGR, Term, areas


def test_watching_a_table_on_the_screen_at_80x24(tmp_path: Path) -> None:
    home = tmp_path / "host"
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / "cfg"),
           "XDG_DATA_HOME": str(home / "data"), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    host = subprocess.Popen(
        [sys.executable, "-m", "p2p_pageone.cli.main", "host", "--bots", "3", "--autoplay",
         "--no-mdns", "--interface", "127.0.0.1", "--port", "0", "--think", "0.2",
         "--option", "deals=1"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=env)
    try:
        assert host.stdout is not None
        port = ""
        for line in host.stdout:
            if "port " in line and line.startswith("hosting"):
                port = line.rsplit("port ", 1)[1].strip()
                break
        assert port.isdigit(), "the host did not say its port"
        term = Term(tmp_path / "watcher", ["watch", "--connect", f"127.0.0.1:{port}"],
                    24, 80, colour=False)
        term.wait(lambda lines: any("stock" in line for line in lines), "the table", 60)
        table, _, hand = areas(term.lines())
        assert table[0].startswith("hand 1") and "classic" in table[0]
        assert any("root" in line for line in table), table
        assert not any("you" in line for line in table), table
        assert any("checked, every one holds" in line for line in hand), hand
        assert hand[-1].startswith("watch>")
        for line in term.lines():  # nothing runs past the edge
            assert len(line) <= 80
        term.child.expect("verdict: OK", timeout=120)
        assert not SGR.search(term.raw), "NO_COLOR: no colour or attribute escapes"
        term.child.expect(r"log:\s+/\S+", timeout=30)  # the path whole, on its line if long
        term.child.wait()
        assert term.child.exitstatus == 0
    finally:
        host.kill()
        host.wait()
