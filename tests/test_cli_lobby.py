"""The lobby with real processes over loopback (no mDNS): SIGTERM and Ctrl-C in the lobby say
`bye` and free the seat; the table fills again and plays; --min-players; --lobby-timeout."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

LOOPBACK = ("--no-mdns", "--interface", "127.0.0.1")
FAST = ("--think", "0", "--catch-window", "0")


class Proc:
    """A `pageone` command with its own HOME, its output in a file we can watch."""

    def __init__(self, home: Path, *args: str,
                 command: tuple[str, ...] = (sys.executable, "-m", "p2p_pageone.cli.main")) -> None:
        home.mkdir(parents=True, exist_ok=True)
        env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / "cfg"),
               "XDG_DATA_HOME": str(home / "data"), "PATH": "/usr/bin:/bin",
               "PYTHONUNBUFFERED": "1"}
        self.out = home / "out.txt"
        with self.out.open("w") as sink:  # the child keeps its own copy of the descriptor
            self.proc = subprocess.Popen(
                [*command, *args], env=env,
                stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT)

    def text(self) -> str:
        return self.out.read_text(errors="replace")

    def wait_for(self, text: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.text():
            assert self.proc.poll() is None or text in self.text(), self.text()
            assert time.monotonic() < deadline, f"no {text!r} in:\n{self.text()}"
            time.sleep(0.1)

    def finish(self, timeout: float = 120.0) -> int:
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def joiner(home: Path, port: int, name: str) -> Proc:
    return Proc(home, "join", "--bot", "--name", name, "--connect", f"127.0.0.1:{port}", *FAST)


def test_leavers_in_the_lobby_free_their_seats_and_the_table_fills_again(tmp_path: Path) -> None:
    port = free_port()
    host = Proc(tmp_path / "h", "host", "--name", "hal", "--seats", "3", "--autoplay",
                "--deals", "1", "--port", str(port), *LOOPBACK, *FAST)
    procs = [host]
    try:
        host.wait_for("hosting")
        for name, signum in (("ann", signal.SIGTERM), ("bob", signal.SIGINT)):
            leaver = joiner(tmp_path / name, port, name)
            procs.append(leaver)
            host.wait_for(f"{name} sits at seat 1")
            leaver.proc.send_signal(signum)
            assert leaver.finish(30) == 4, leaver.text()
            assert "you left the table" in leaver.text() and "Traceback" not in leaver.text()
            host.wait_for(f"{name} left the table: the player quit: the seat is free again; "
                          "waiting for 2 more players")
        assert host.proc.poll() is None
        fillers = [joiner(tmp_path / name, port, name) for name in ("cat", "dan")]
        procs += fillers
        assert host.finish() == 0, host.text()
        for proc in fillers:
            assert proc.finish(30) == 0, proc.text()
        assert "game over" in host.text() and "Traceback" not in host.text()
    finally:
        for proc in procs:
            if proc.proc.poll() is None:
                proc.proc.kill()


def test_min_players_starts_with_fewer_and_an_idle_lobby_closes(tmp_path: Path) -> None:
    port = free_port()
    host = Proc(tmp_path / "h", "host", "--name", "hal", "--seats", "4", "--min-players", "2",
                "--start-after", "1", "--autoplay", "--deals", "1", "--port", str(port),
                *LOOPBACK, *FAST)
    host.wait_for("hosting")
    guest = joiner(tmp_path / "g", port, "gus")
    try:
        assert host.finish() == 0, host.text()
        assert guest.finish(30) == 0, guest.text()
        assert "the host starts the game with the 2 players seated" in host.text()
        assert "game over" in guest.text()
    finally:
        for proc in (host, guest):
            if proc.proc.poll() is None:
                proc.proc.kill()
    port = free_port()
    alone = Proc(tmp_path / "a", "host", "--name", "hal", "--seats", "3", "--autoplay",
                 "--lobby-timeout", "8", "--port", str(port), *LOOPBACK, *FAST)
    alone.wait_for("hosting")
    guest = joiner(tmp_path / "g2", port, "gus")
    try:
        alone.wait_for("gus sits at seat 1")
        assert alone.finish(60) == 3, alone.text()
        assert "nobody sat down or left for 8 s: closing the table" in alone.text()
        assert guest.finish(30) == 3, guest.text()
        assert "the host closed the table (the table did not fill in 8 s)" in guest.text()
        for proc in (alone, guest):
            assert "Traceback" not in proc.text()
    finally:
        for proc in (alone, guest):
            if proc.proc.poll() is None:
                proc.proc.kill()
