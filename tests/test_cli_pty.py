"""The real `pageone` commands on a pseudo-terminal, read as a person reads the screen.

Loopback only (``--no-mdns``, ``--interface 127.0.0.1``); every command gets its own HOME.
"""

from __future__ import annotations

import re
import socket
import sys
from pathlib import Path

import pexpect
import pytest

CSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Z0-9]|\x1b[=>]|\r")
LOOPBACK = ["--no-mdns", "--interface", "127.0.0.1"]


def spawn(home: Path, *args: str, colour: bool = True) -> pexpect.spawn:
    """The line narration (``--plain``), read off the raw stream; tests/test_table_screen.py
    reads the table screen through a terminal emulator."""
    if args and args[0] in ("play", "host", "join"):
        args = (args[0], "--plain", *args[1:])
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / "cfg"),
           "XDG_DATA_HOME": str(home / "data"), "PATH": "/usr/bin:/bin", "TERM": "xterm",
           "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1",
           "PROMPT_TOOLKIT_NO_CPR": "1"}
    if not colour:
        env["NO_COLOR"] = "1"
    child = pexpect.spawn(sys.executable, ["-m", "p2p_pageone.cli.main", *args], env=env,
                          encoding="utf-8", codec_errors="replace", timeout=60,
                          dimensions=(40, 120))
    child.logfile_read = open(home / "screen.txt", "a")  # noqa: SIM115
    return child


def screen(home: Path) -> str:
    """What the terminal showed, without the escape sequences a terminal interprets."""
    return CSI.sub("", (home / "screen.txt").read_bytes().decode(errors="replace"))


def assert_clean(text: str) -> None:
    assert "Traceback" not in text, text[-3000:]
    assert "\x1b" not in text and "?[" not in text, "escape codes shown as text"
    assert not re.search(r"\[\d+(;\d+)*m", text), "escape codes shown as text"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_offline_table_turns_catches_and_ctrl_c(tmp_path: Path) -> None:
    """Events before the turn prompt, the prompt last, a catch made by the person within the
    window, and Ctrl-C asking first and leaving without a traceback."""
    child = spawn(tmp_path, "play", "--bots", "2", "--level", "random", "--seed", "11",
                  "--think", "0.2", "--deals", "5")
    caught = False
    turns = 0
    while not caught:
        found = child.expect([r"Type catch (\S+) now", r"Type pageone now",
                              r"YOUR TURN[^\n]*\n[^\n]*\n", "game over"], timeout=60)
        if found == 0:
            child.sendline(f"catch {child.match.group(1)}")
            index = child.expect([r"you catch \S+", r"not allowed[^\n]*"])
            caught = index == 0
        elif found == 1:
            child.sendline("pageone")
        elif found == 2:
            turns += 1
            hint = CSI.sub("", child.match.group(0).split("\n")[1])
            commands = re.findall(r"play (?:10|[2-9jqka])[shdc]|play jk|draw", hint)
            assert commands, hint
            child.sendline(commands[-1])
        else:
            break
    assert caught, "the person never caught a missed call"
    child.sendcontrol("c")
    child.expect("quitting ends this game")
    child.sendline("n")
    child.expect("playing on")
    child.sendcontrol("c")
    child.expect("quitting ends this game")
    child.sendcontrol("c")
    child.expect("you quit the game")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 4
    text = screen(tmp_path)
    assert_clean(text)
    # a path too long for the line goes on a line of its own (wrapped at word boundaries)
    assert re.search(r"check it with:\s+pageone audit /\S", text) and turns >= 1
    _turn_prompts_come_last(text)


def _turn_prompts_come_last(text: str) -> None:
    lines = [line for line in text.split("\n") if line.strip()]
    prompts = 0
    for index, line in enumerate(lines):
        if "YOUR TURN" not in line or "STILL YOUR TURN" in line:
            continue
        prompts += 1
        after = lines[index + 1 : index + 3]
        assert after and not any(word in after[0] for word in (" plays ", " draws ", "trick",
                                                               "Page One")), after
        before = lines[max(0, index - 1)]  # the table just above the prompt
        assert before.lstrip().startswith("trick:"), lines[index - 3 : index + 2]
    assert prompts >= 1
    for index, line in enumerate(lines):  # a trick is won before the next one is shown empty
        if "trick: empty, you lead" in line and index > 4:
            earlier = "\n".join(lines[max(0, index - 12) : index])
            assert "the trick" in earlier or "— hand" in earlier, earlier


def test_host_quits_joiner_is_told_and_a_game_under_way_says_so(tmp_path: Path) -> None:
    port = str(free_port())
    host_home, joiner_home, late_home = (tmp_path / "h", tmp_path / "j", tmp_path / "l")
    for home in (host_home, joiner_home, late_home):
        home.mkdir()
    host = spawn(host_home, "host", "--name", "alice", "--port", port, *LOOPBACK)
    host.expect("waiting for 1 more player")
    joiner = spawn(joiner_home, "join", "--name", "ALICE", "--connect", f"127.0.0.1:{port}")
    joiner.expect(r"you sit at seat 1 as ALICE-2")
    joiner.expect("your cards:")
    late = spawn(late_home, "join", "--name", "carol", "--connect", f"127.0.0.1:{port}",
                 colour=False)
    late.expect("could not sit down: the game is under way: it takes no new players",
                timeout=10)
    late.expect(pexpect.EOF)
    late.close()
    assert late.exitstatus == 3
    host.expect("your cards:")
    host.sendcontrol("c")
    host.expect("quitting closes the table for everyone")
    host.sendline("y")
    host.expect("you closed the table")
    host.expect(pexpect.EOF)
    joiner.expect("the host closed the table")
    joiner.expect(pexpect.EOF)
    for child in (host, joiner):
        child.close()
    assert host.exitstatus == 4 and joiner.exitstatus == 3
    for home in (host_home, joiner_home, late_home):
        assert_clean(screen(home))
    assert re.search(r"log:\s+/", screen(joiner_home)) and re.search(r"log:\s+/",
                                                                       screen(host_home))
    assert not list((late_home / "data").rglob("*.pageone-log"))
    # said once the host answers, and never to a joiner it refuses
    # seated in the last seat, the game starts at once: no word of waiting (issue 30)
    assert "waiting" not in screen(joiner_home)
    assert "waiting to be seated" not in screen(late_home)


@pytest.mark.parametrize("colour", [False])
def test_no_color_and_lobby_help(tmp_path: Path, colour: bool) -> None:
    child = spawn(tmp_path, "host", "--no-mdns", "--interface", "127.0.0.1", colour=colour)
    child.expect("waiting for 1 more player")
    child.sendline("help")
    child.expect("catch a missed Page One")
    child.sendline("help catch")
    child.expect("e.g. catch bob")
    child.sendline("say anyone there?")
    child.expect("anyone there")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    text = (tmp_path / "screen.txt").read_bytes().decode()
    assert child.exitstatus == 4 and "Traceback" not in text
    assert "\x1b[3" not in text and "\x1b[1m" not in text  # no colour under NO_COLOR
