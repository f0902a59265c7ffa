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
                     "--think", "0", "--catch-window", "0",  # no pacing: done in seconds
                     stdin="help\nhand\nplay zz\nsay hello all\nauto\n")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "commands (help COMMAND for more)" in out and "'zz' is not a card" in out
    assert "hello all" in out and "the CPU plays for you" in out and "game over" in out
    assert "\x1b" not in out  # not a terminal: plain text


def test_bad_flags_are_errors_not_tracebacks(tmp_path: Path) -> None:
    cases = [
        (("host", "--bots", "6", "--no-mdns"), "at most 5 CPU players"),
        (("host", "--bots", "normal,grandmaster", "--no-mdns"), "unknown bot level 'grandmaster'"),
        (("host", "--port", "99999", "--no-mdns"), "is not a TCP port"),
        (("host", "--interface", "1.2.3.4", "--no-mdns"), "cannot listen on 1.2.3.4"),
        (("host", "--seats", "2", "--bots", "2", "--no-mdns"), "leaves no seat for you"),
        (("host", "--option", "hand_size=9", "--no-mdns"), "hand_size"),
        (("play", "--bots", "9"), "give a whole number 1-5"),
        (("join", "--connect", "nonsense"), "HOST:PORT"),
        (("join", "--connect", "127.0.0.1:99999"), "HOST:PORT"),
        (("host", "--catch-window", "soon"), "not a number of seconds"),
    ]
    for args, message in cases:
        result = pageone(tmp_path, *args)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr and "Traceback" not in result.stderr, result.stderr
    result = pageone(tmp_path, "join", "--connect", "127.0.0.1:9", "--bot")
    assert result.returncode == 3 and "could not connect" in result.stderr
    assert not list((tmp_path / "data").rglob("*.pageone-log"))  # failed starts leave no logs
    version = pageone(tmp_path, "--version")
    assert version.returncode == 0 and version.stdout.startswith("pageone ")
    for command in ("host", "join", "play", "tables"):
        text = pageone(tmp_path, command, "--help").stdout
        assert "--name" in text or command == "tables"
        assert all(line.split()[0].startswith("-") is False or len(line.split()) > 1
                   for line in text.splitlines() if line.strip().startswith("--"))


def test_two_games_against_the_same_host_and_port_leave_two_logs(tmp_path: Path) -> None:
    import socket
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    host_home, joiner_home = tmp_path / "host", tmp_path / "joiner"
    fast = ("--think", "0", "--catch-window", "0")
    for _ in range(2):
        host = pageone_async(host_home, "host", "--autoplay", "--seats", "2", "--port", port,
                             *LOOPBACK, "--deals", "1", *fast)
        joined = None
        for _attempt in range(50):  # until the host listens
            joined = pageone(joiner_home, "join", "--bot", "--connect", f"127.0.0.1:{port}",
                             *fast)
            if "could not connect" not in joined.stderr:
                break
            time.sleep(0.2)
        assert joined is not None and joined.returncode == 0, joined.stdout + joined.stderr
        assert host.wait(timeout=120) == 0
    logs = sorted((joiner_home / "data").rglob("*.pageone-log"))
    assert len(logs) == 2 and all(log.stat().st_size > 0 for log in logs)
    assert len({read_log(log)[0] for log in logs}) == 2  # two tables, two first entries
    assert len(list((host_home / "data").rglob("*.pageone-log"))) == 2


def pageone_async(home: Path, *args: str) -> subprocess.Popen[str]:
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / "cfg"),
           "XDG_DATA_HOME": str(home / "data"), "PATH": "/usr/bin:/bin"}
    return subprocess.Popen([sys.executable, "-m", "p2p_pageone.cli.main", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
