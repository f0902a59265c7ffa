"""`pageone host` over loopback TCP with CPU peers (no mDNS), and the terminal's commands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from p2p_pageone.crypto.envelope import ChainVerifier, open_envelope
from p2p_pageone.wire.codec import FrameDecoder

LOOPBACK = ("--no-mdns", "--interface", "127.0.0.1")  # no multicast; listen on loopback only


def pageone(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "p2p_pageone.cli.main", *args], input=stdin,
                          capture_output=True, text=True, timeout=180, env=env, check=False)


def read_log(path: Path) -> list[bytes]:
    return FrameDecoder().feed(path.read_bytes())


def test_host_with_bots_autoplay_exits_zero_and_writes_a_verifiable_log(tmp_path: Path) -> None:
    result = pageone(tmp_path, "host", "--bots", "3", "--autoplay", *LOOPBACK, "--deals", "1",
                     "--log", str(tmp_path / "table.log"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "game over" in result.stdout and f"log: {tmp_path / 'table.log'}" in result.stdout
    entries = read_log(tmp_path / "table.log")
    first = open_envelope(entries[0])
    chain = ChainVerifier(first.table, [first.sender])
    kinds = []
    for raw in entries:
        env = open_envelope(raw)
        if env.kind in ("hello", "seat"):
            chain.admit(env.data.get("key", env.sender))
            chain.admit(env.sender)
        if env.kind == "seed_commit" and chain.hand == 0:
            chain.start_hand(1)
        chain.accept(raw)
        kinds.append(env.kind)
    assert kinds.count("seat") == 4 and kinds.count("seed_reveal") == 4


def test_human_at_the_prompt_can_hand_over_to_the_cpu(tmp_path: Path) -> None:
    result = pageone(tmp_path, "host", "--bots", "1", *LOOPBACK, "--rules", "qdan",
                     stdin="help\nhand\nplay zz\nsay hello all\nauto\n")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "play CARD" in out and "'zz' is not a card" in out
    assert "hello all" in out and "the CPU plays for you" in out and "game over" in out


def test_bad_host_arguments(tmp_path: Path) -> None:
    result = pageone(tmp_path, "host", "--bots", "6", "--no-mdns")
    assert result.returncode == 2 and "2 to 6 players" in result.stderr
    result = pageone(tmp_path, "join", "--connect", "nonsense")
    assert result.returncode == 2 and "HOST:PORT" in result.stderr
    result = pageone(tmp_path, "join", "--connect", "127.0.0.1:9", "--bot")
    assert result.returncode == 3 and "could not connect" in result.stderr


def test_prompt_toolkit_terminal_under_a_pty(tmp_path: Path) -> None:
    import os
    import pty
    import select
    import time

    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "PATH": "/usr/bin:/bin", "TERM": "xterm"}
    pid, fd = pty.fork()
    if pid == 0:  # the child: the real command on a terminal
        os.execve(sys.executable, [sys.executable, "-m", "p2p_pageone.cli.main", "host",
                                   "--bots", "1", *LOOPBACK, "--deals", "1"], env)
    out, sent, start = b"", False, time.time()
    while time.time() - start < 90:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            out += data
        if not sent and b"your turn" in out:
            os.write(fd, b"hand\r")
            time.sleep(0.3)
            os.write(fd, b"auto\r")
            sent = True
    _, status = os.waitpid(pid, 0)
    text = out.decode(errors="replace")
    assert sent and os.waitstatus_to_exitcode(status) == 0, text[-2000:]
    assert "game over" in text and "Traceback" not in text
