"""Issue 30, the screens' second pass, on a pseudo-terminal at 80x24 read through a terminal
emulator (pyte) as a person sees it: your own draw told, PageUp that says you are looking back,
the log's path and the audit command whole, `pageone audit` wrapped, line wrap back after a
`kill -9`, and a watcher told at once that the host closed the table, with the story's end kept.
The watcher runs on a LAN of network namespaces made by the test."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pyte
import pytest

from . import netns
from .test_lan import pageone
from .test_table_screen import Term, areas, hinted_command, my_turn

ROWS, COLS = 24, 80


def _draw_hinted(lines: list[str]) -> bool:
    return my_turn(lines) and hinted_command(areas(lines)[2]) == "draw"


def _game_over(lines: list[str]) -> bool:
    return any(line.startswith("game over") for line in lines)


def _table_until_a_draw(tmp_path: Path) -> Term:
    """A table where it is our turn and we must draw. The CPU players' catches race a window of
    0.3 s, so on a loaded machine a seed's game can take another path; a game that ends before
    we had to draw is followed by the next seed's."""
    for seed in (1, 2, 3, 4):
        (tmp_path / str(seed)).mkdir()
        term = Term(tmp_path / str(seed), ["play", "--bots", "3", "--seed", str(seed),
                                           "--think", "0.05", "--catch-window", "0.3"],
                    ROWS, COLS, colour=False)
        while True:
            term.wait(lambda lines: my_turn(lines) or _game_over(lines), "your turn", 60)
            if _game_over(term.lines()):
                term.child.kill(signal.SIGKILL)
                break
            if _draw_hinted(term.lines()):
                return term
            term.type(hinted_command(areas(term.lines())[2]))
            term.pump(0.5)
    raise AssertionError("never had to draw in four games")


def test_1_your_draw_is_told_with_its_card_at_once(tmp_path: Path) -> None:
    term = _table_until_a_draw(tmp_path)
    term.type("draw")
    term.wait(lambda lines: any(re.match(r"\s+you draw 1 card: \S+", line)
                                for line in areas(lines)[1][-3:]),
              "you draw 1 card: <the card>, right under > draw", 3)
    story = areas(term.lines())[1]
    assert story[-2:][0].strip() == "> draw" or "> draw" in story[-3], story
    term.child.kill(signal.SIGKILL)


def test_10_pageup_moves_the_story_back_at_once_and_says_how_to_return(tmp_path: Path) -> None:
    term = Term(tmp_path, ["play", "--bots", "3", "--seed", "3", "--think", "0.05",
                           "--catch-window", "0.3"], ROWS, COLS, colour=False)
    for _ in range(4):
        term.wait(my_turn, "your turn", 60)
        term.type(hinted_command(areas(term.lines())[2]))
        term.pump(0.5)
    term.wait(my_turn, "your turn", 60)
    before = areas(term.lines())[1]
    term.child.send("\x1b[5~")  # PageUp
    term.pump(1.0)
    lines = term.lines()
    rules = [line for line in lines if line.startswith(("─", " looking back"))]
    assert any("looking back: PageDown to return" in line for line in rules), lines
    story = [line for line in lines[lines.index(rules[0]) + 1:] if not line.startswith(
        " looking back")][: len(before)]
    assert story[-1] != before[-1], (before, story)  # it moved at once
    term.child.send("\x1b[6~" * 5)  # PageDown to the end
    term.pump(1.0)
    assert not any("looking back" in line for line in term.lines())
    assert areas(term.lines())[1][-1] == before[-1]
    term.child.kill(signal.SIGKILL)


def _lines_of(raw: bytes) -> list[str]:
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw.decode("utf-8", "replace"))
    return [line for line in text.replace("\r", "").split("\n")]


@pytest.mark.parametrize("plain", [False, True], ids=["screen", "plain"])
def test_6_the_log_and_the_command_that_checks_it_are_each_one_line(
        tmp_path: Path, plain: bool) -> None:
    folder = tmp_path / "a-folder-with-a-rather-long-name-for-the-logs-of-this-machine"
    folder.mkdir()
    log = folder / "20261204-150000-0123abcd-play-OHF7-BNKN-BAWM-PI5B.pageone-log"
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "d"), "PATH": "/usr/bin:/bin",
           "LANG": "C.UTF-8", "TERM": "xterm", "NO_COLOR": "1"}
    out, code = pexpect.run(
        f"{sys.executable} -m p2p_pageone.cli.main play --autoplay --bots 1 --deals 1 "
        f"--seed 2 --log {log}" + (" --plain" if plain else ""), withexitstatus=True,
        timeout=120, env=env, dimensions=(ROWS, COLS))
    assert code == 0, out
    lines = _lines_of(out)
    assert str(log) in lines, lines[-6:]  # the path alone on its line: copied as one
    assert f"pageone audit {log}" in lines, lines[-6:]  # the command alone on its line


def test_4_audit_is_wrapped_at_80_columns_every_path_whole(tmp_path: Path) -> None:
    folder = tmp_path / "logs-of-three-tables-kept-in-a-folder-with-a-long-name"
    folder.mkdir()
    for seed in (1, 2, 3):
        subprocess.run([sys.executable, "-m", "p2p_pageone.cli.main", "play", "--autoplay",
                        "--bots", "2", "--deals", "1", "--seed", str(seed), "--log",
                        str(folder / f"table-{seed}.pageone-log")], capture_output=True,
                       timeout=120, check=True, env={**os.environ, "HOME": str(tmp_path),
                                                     "XDG_DATA_HOME": str(tmp_path / "d")})
    logs = sorted(str(p) for p in folder.iterdir())
    out, code = pexpect.run(f"{sys.executable} -m p2p_pageone.cli.main audit {' '.join(logs)}",
                            withexitstatus=True, timeout=120, dimensions=(ROWS, COLS),
                            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "xterm"})
    assert code == 0, out
    lines = _lines_of(out)
    assert "FAIL" not in "\n".join(lines)
    for line in lines:  # within the width, but a path (one word) kept whole on its own line
        assert len(line) <= COLS or (" " not in line.strip()), line
    for log in logs:
        assert any(line.startswith(log) for line in lines), (log, lines)
    said = " ".join(line.strip() for line in lines)
    assert "verdict: OK" in said and "each log is compared with the logs of its own table" in said


def test_17_a_pageone_started_after_a_kill_9_turns_line_wrap_back_on(tmp_path: Path) -> None:
    term = Term(tmp_path, ["play", "--bots", "1", "--seed", "1"], ROWS, COLS, colour=False)
    term.wait(my_turn, "the table screen", 60)
    assert pyte.modes.DECAWM not in term.screen.mode  # the full screen turns wrap off
    term.child.kill(signal.SIGKILL)
    term.child.close()
    assert pyte.modes.DECAWM not in term.screen.mode  # ... and a kill -9 leaves it off
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "TERM": "xterm",
           "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    after = pexpect.spawn(sys.executable, ["-m", "p2p_pageone.cli.main", "whoami"], env=env,
                          dimensions=(ROWS, COLS))
    after.expect(pexpect.EOF, timeout=30)
    term.stream.feed(after.before or b"")
    assert pyte.modes.DECAWM in term.screen.mode, "line wrap still off"
    # Ctrl-C and SIGTERM on the table screen turn it back on themselves
    for stop in ("ctrl-c", "sigterm"):
        again = Term(tmp_path, ["play", "--bots", "1", "--seed", "1"], ROWS, COLS,
                     colour=False)
        again.wait(my_turn, "the table screen", 60)
        if stop == "ctrl-c":
            again.child.sendcontrol("c")
            again.wait(lambda lines: any(line.startswith("quit? (y/n)") for line in lines),
                       "quit?")
            again.type("y")
        else:
            again.child.kill(signal.SIGTERM)
        again.child.expect(pexpect.EOF, timeout=20)
        again.stream.feed(again.child.before or b"")
        assert pyte.modes.DECAWM in again.screen.mode, stop


REASON = netns.available()


def _watch_on_screen(cmd: list[str], until: str, seconds: float) -> tuple[pexpect.spawn, bytes]:
    """``pageone watch`` at 80x24, read until the emulated screen shows ``until``."""
    child = pexpect.spawn(cmd[0], cmd[1:], dimensions=(ROWS, COLS), timeout=60)
    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.ByteStream(screen)
    raw = b""
    deadline = time.monotonic() + seconds
    while until not in "\n".join(screen.display):
        assert time.monotonic() < deadline, "\n".join(screen.display)
        try:
            data = child.read_nonblocking(65536, timeout=0.2)
        except pexpect.TIMEOUT:
            continue
        except pexpect.EOF:
            break
        raw += data
        stream.feed(data)
    return child, raw


@pytest.mark.skipif(bool(REASON), reason=f"no network namespaces here: {REASON}")
def test_3_14_a_watcher_is_told_at_once_the_host_closed_the_table(tmp_path: Path) -> None:
    """The host quits mid-game: the watcher's screen closes within 5 s saying the host closed
    the table, the story's end stays on the terminal, and the verdict follows, wrapped."""
    with netns.lan(2, "s") as hosts:
        # a person hosts (their commands piped, none typed): the table waits for them
        host = subprocess.Popen(pageone(hosts[0], tmp_path / "h", "host", "--bots", "1",
                                        "--no-mdns", "--port", "38700", "--interface",
                                        hosts[0].address),
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            time.sleep(3)
            child, raw = _watch_on_screen(pageone(hosts[1], tmp_path / "w", "watch",
                                                  "--connect", f"{hosts[0].address}:38700"),
                                          " deals —", 60)
            host.send_signal(signal.SIGTERM)  # the host quits: it closes the table
            closed = time.monotonic()
            child.expect(pexpect.EOF, timeout=30)
            took = time.monotonic() - closed
            raw += child.before or b""
            child.close()
        finally:
            host.kill()
            host.wait()
    text = "\n".join(_lines_of(raw))
    assert took < 5, f"the verdict came {took:.1f} s after the close\n{text}"
    assert "lost the table" not in text, text
    tail = text[text.rfind("watch>"):]  # what stays on the terminal once the screen closed
    assert "the table ended: the host, root, closed the table" in tail, text
    assert " deals —" in tail, text
    assert "verdict: INCOMPLETE" in text and "log:" in text, text
    for line in _lines_of(raw)[-12:]:
        assert len(line) <= COLS or " " not in line.strip(), line


@pytest.mark.skipif(bool(REASON), reason=f"no network namespaces here: {REASON}")
def test_14_a_watchers_end_screen_keeps_the_standings_the_players_see(tmp_path: Path) -> None:
    with netns.lan(3, "t") as hosts:
        pace = ("--think", "0.05", "--catch-window", "0")
        host = subprocess.Popen(pageone(hosts[0], tmp_path / "h", "host", "--seats", "3",
                                        "--bots", "1", "--autoplay", "--deals", "1", "--no-mdns",
                                        "--port", "38701", "--interface", hosts[0].address,
                                        *pace),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs = [host]
        try:
            time.sleep(3)
            child, raw = _watch_on_screen(
                pageone(hosts[1], tmp_path / "w", "watch", "--connect",
                        f"{hosts[0].address}:38701"), "sits at seat 1", 60)
            procs.append(subprocess.Popen(
                pageone(hosts[2], tmp_path / "j", "join", "--bot", "--connect",
                        f"{hosts[0].address}:38701", *pace),
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            child.expect(pexpect.EOF, timeout=120)
            raw += child.before or b""
            child.close()
        finally:
            for proc in procs:
                proc.kill()
                proc.wait()
    text = "\n".join(_lines_of(raw))
    tail = text[text.rfind("watch>"):]  # what stays on the terminal once the screen closed
    assert "game over:" in tail and "final standings:" in tail and "1st" in tail, text
    assert "verdict: OK" in tail, text
