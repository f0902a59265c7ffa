"""Joining over mDNS inside the tests' own network namespaces: a full table is named at once,
names match in any case, and several open tables are listed."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from . import netns
from .test_lan import FAST, finish, pageone, start

REASON = netns.available()
pytestmark = pytest.mark.skipif(bool(REASON), reason=f"no network namespaces here: {REASON}")


def test_full_named_table_at_once_any_case_and_several_tables(tmp_path: Path) -> None:
    with netns.lan(3, "f") as hosts:
        full = start(pageone(hosts[0], tmp_path / "h0", "host", "--table", "Full House",
                             "--seats", "2", "--bots", "1", "--autoplay", "--deals", "200",
                             "--interface", hosts[0].address, *FAST))
        open_ = start(pageone(hosts[1], tmp_path / "h1", "host", "--table", "Open Door",
                              "--autoplay", "--interface", hosts[1].address, *FAST))
        try:
            time.sleep(2.0)  # let both adverts go out
            began = time.monotonic()
            result = subprocess.run(
                pageone(hosts[2], tmp_path / "j", "join", "full house", "--wait", "20",
                        "--interface", hosts[2].address),
                capture_output=True, text=True, timeout=60, check=False)
            took = time.monotonic() - began
            assert result.returncode == 3, result.stdout + result.stderr
            assert "looking for tables" in result.stdout
            # its seats are taken and its game has begun: said as such, not as "full"
            assert ("the game at 'Full House' is under way (2 players): it takes no new "
                    "players" in result.stderr), result.stderr
            assert took < 10, f"a full table should be named at once, took {took:.1f} s"
            listed = subprocess.run(
                pageone(hosts[2], tmp_path / "j", "tables", "--all", "--timeout", "2",
                        "--interface", hosts[2].address),
                capture_output=True, text=True, timeout=60, check=False)
            assert "TABLE" in listed.stdout and "playing (2 players)" in listed.stdout
            assert "Open Door" in listed.stdout
        finally:
            for proc in (full, open_):
                proc.terminate()
                finish(proc, 30)
