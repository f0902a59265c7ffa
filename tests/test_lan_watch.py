"""`pageone watch` on a LAN of network namespaces: two watchers follow a table of a host and
three CPU players from the lobby to the end; the host is killed mid-hand and the watchers follow
the seat that takes the table over; every log, the watchers' too, is the same and audits OK."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from . import netns
from .test_lan import Watched, logs_agree_and_audit, pageone

REASON = netns.available()
pytestmark = pytest.mark.skipif(bool(REASON), reason=f"no network namespaces here: {REASON}")


def test_two_watchers_follow_a_table_through_a_takeover_and_every_log_audits_ok(
        tmp_path: Path) -> None:
    with netns.lan(6, "w") as hosts:
        table, pace = "lan-watch", ("--think", "0.05", "--catch-window", "0")
        server = Watched("host", pageone(
            hosts[0], tmp_path / "h0", "host", "--rules", "classic", "--deals", "2", "--seats",
            "4", "--autoplay", "--table", table, "--watchers", "2", *pace, "--interface",
            hosts[0].address))
        procs = [server]
        try:
            server.wait_for("advertised on the LAN", 60)
            watchers = [Watched(f"watcher{i}", pageone(hosts[i], tmp_path / f"w{i}", "watch",
                                                       table, "--interface", hosts[i].address))
                        for i in (4, 5)]
            procs += watchers
            for watcher in watchers:
                watcher.wait_for("sits at seat 0", 60)
            joins = [Watched(name, pageone(hosts[i], tmp_path / f"j{i}", "join", table, "--bot",
                                           "--name", name, *pace, "--interface",
                                           hosts[i].address))
                     for i, name in ((1, "ann"), (2, "bob"), (3, "cat"))]
            procs += joins
            joins[0].wait_for(" plays ", 120)
            server.stop()  # SIGKILL mid-hand: no bye, no mDNS goodbye
            deadline = time.monotonic() + 60
            while not any("takes the table over" in "\n".join(p.lines) for p in joins):
                assert time.monotonic() < deadline, "\n".join(p.output() for p in procs)
                time.sleep(0.1)
            codes = [p.proc.wait(240) for p in [*joins, *watchers]]
            shown = "\n".join(p.output() for p in procs)
            assert codes == [0] * 5, shown
            for watcher in watchers:
                text = "\n".join(watcher.lines)
                assert "is the table's host now" in text and "game over" in text, shown
                assert "verdict: OK" in text, shown
            logs = [next((tmp_path / d / "data" / "pageone" / "logs").glob("*"))
                    for d in ("j1", "j2", "j3", "w4", "w5")]
            logs_agree_and_audit(logs, shown)
        finally:
            for proc in procs:
                proc.stop()
