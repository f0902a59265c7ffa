"""A peer timed out for flooding, with real processes over loopback (protocol/SPEC.md §7,
"Strangers and floods", "Witnesses"): a joiner changed to misbehave (``tests/flooding_peer.py``)
sends its host a burst of pings and then stays away until it has been timed out. Its
timeout stands (nobody holds its word from after the claim), the game goes on without it and
finishes; when it comes back (the game still on) it is told the game went on without it, takes
nothing over, advertises nothing and exits 3. Every log audits with nobody named."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from .log_subsets import assert_no_subset_names_anyone
from .test_cli_lobby import LOOPBACK, Proc, free_port
from .test_cli_majority import _audit, _join
from .test_cli_reconnect import _logs

PACE = ("--think", "0.2", "--catch-window", "0")


def test_a_peer_timed_out_for_flooding_takes_nothing_over_and_exits_3(tmp_path: Path) -> None:
    port = free_port()
    host = Proc(tmp_path / "h", "host", "--name", "hal", "--seats", "4", "--autoplay",
                "--deals", "1", "--port", str(port), *PACE, *LOOPBACK)
    procs: list[Proc] = [host]
    try:
        host.wait_for("hosting")
        for seat, name in enumerate(("ann", "bob"), 1):
            procs.append(_join(tmp_path / name, port, name))
            host.wait_for(f"{name} sits at seat {seat}")
        gate = tmp_path / "come back"  # the flooder reconnects once this file exists
        flooder = (sys.executable, str(Path(__file__).with_name("flooding_peer.py")), str(gate))
        cat = Proc(tmp_path / "cat", "join", "--bot", "--name", "cat", "--connect",
                   f"127.0.0.1:{port}", *PACE, command=flooder)
        procs.append(cat)
        host.wait_for("cat flooded the table with pings", 120)
        # when a witness holds cat's step, the claim falls and cat's seat is kept 60 s first
        host.wait_for("the game goes on without cat", 150)
        gate.touch()
        assert cat.finish(120) == 3, cat.text()
        assert host.finish(240) == 0, host.text()
        for joiner in procs[1:3]:
            assert joiner.finish(60) == 0, joiner.text()
        screen = cat.text()
        assert "the game went on without this machine" in screen, screen
        for words in ("takes the table over", "advertis", "Traceback", "run pageone"):
            assert words not in screen, screen
        full = [_logs(tmp_path / name)[0] for name in ("h", "ann", "bob")]
        assert len({log.read_bytes() for log in full}) == 1
        audit = _audit(*full)
        assert audit.returncode == 0 and "went silent" in audit.stdout, audit.stdout
        # the flooder's log stops where it was dropped: incomplete, nobody at fault
        audit = _audit(*full, _logs(tmp_path / "cat")[0])
        assert "FAIL" not in audit.stdout and "nobody at fault" in audit.stdout, audit.stdout
        assert_no_subset_names_anyone([*full, _logs(tmp_path / "cat")[0]])
    finally:
        for proc in procs:
            if proc.proc.poll() is None:
                proc.proc.send_signal(signal.SIGCONT)
                proc.proc.kill()
