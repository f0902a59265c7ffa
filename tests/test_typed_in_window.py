"""Nothing typed is lost: a play, a draw and a catch typed inside a Page One catch window are each
answered (held and then made, or refused with the reason), on a real pty."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pexpect

from tests.test_cli_pty import CSI, assert_clean, spawn

SEED = "3"
TURN = re.compile(r"YOUR TURN(.*?)pageone>", re.S)  # the turn, the hand, what to do
ECHO = re.compile(r"\s*(?:pageone>\s*)*(?:draw|play \S+|pageone|catch \S+)?\s*")
ANSWERS = {
    "play": r"you play |{c}: (held until the catch window closes|not allowed)|you do not hold",
    "draw": r"you draw |draw: (held until the catch window closes|not allowed)",
    "catch": r"you catch |catch \S+: not allowed|not accepted|no longer possible",
}


def _without_echoes(hint: str) -> str:
    """The turn's text without the lines that only echo what we typed (a loaded machine redraws
    the screen between our typing and its answer: a "draw" echoed after "play the card you
    drew: play 4d" was taken for the hint, and the refused draw was typed again for good)."""
    return "\n".join(line for line in hint.splitlines() if not ECHO.fullmatch(line))


def _answered(text: str, command: str, kind: str) -> bool:
    pattern = ANSWERS[kind].replace("{c}", re.escape(command))
    return re.search(pattern, text) is not None


def test_play_draw_and_catch_typed_in_the_window_are_each_answered(tmp_path: Path) -> None:
    # two players: a window the CPU player opens comes with our turn (it always forgets)
    child = spawn(tmp_path, "play", "--bots", "1", "--cpu-forgets", "100", "--seed", SEED,
                  "--think", "0.1", "--deals", "5", "--catch-window", "20")
    # a long window: our catch closes it at once, and a loaded machine (the whole suite on 2
    # cores) still types all three inside it
    held_and_made = 0
    windows = 0
    play = "play 2c"
    while held_and_made == 0 and windows < 12:  # (the window comes on our turn by chance)
        found = child.expect([r"Type catch (\S+) now", r"Type pageone now", TURN, "game over"],
                             timeout=60)
        if found == 3:
            break
        if found == 1:
            child.sendline("pageone")
            continue
        if found == 2:
            hint = _without_echoes(CSI.sub("", child.match.group(1)))
            commands = re.findall(r"play (?:10|[2-9jqka])[shdc]|play jk|draw", hint)
            play = next((c for c in commands if c.startswith("play")), play)
            child.sendline(commands[-1])
            continue
        windows += 1
        name = child.match.group(1)
        try:  # our turn comes with the window when the one who forgot sits before us
            child.expect(TURN, timeout=3)
            hint = CSI.sub("", child.match.group(1))
            play = next(iter(re.findall(r"play (?:10|[2-9jqka])[shdc]|play jk", hint)), play)
        except pexpect.TIMEOUT:
            pass
        child.logfile_read.flush()
        mark = _screen_length(tmp_path)
        for command in (play, "draw", f"catch {name}"):
            child.sendline(command)
        deadline = time.monotonic() + 30  # each of the three gets its answer in the window's
        while time.monotonic() < deadline:  # time: a deadline, not a count of lines read
            child.expect([pexpect.TIMEOUT, r"\n"], timeout=0.1)
            child.logfile_read.flush()
            text = _screen_since(tmp_path, mark)
            if all(_answered(text, c, k) for c, k in ((play, "play"), ("draw", "draw"),
                                                       (f"catch {name}", "catch"))):
                break
        text = _screen_since(tmp_path, mark)
        for command, kind in ((play, "play"), ("draw", "draw"), (f"catch {name}", "catch")):
            assert _answered(text, command, kind), (command, text)
        if f"{play}: held until the catch window closes" in text:
            # held, then made or refused with its reason once the window closed
            child.expect([r"you play ", re.escape(play) + r": not allowed[^\n]*"], timeout=40)
            held_and_made += 1
    assert held_and_made, ("no window came on our turn to show a held move", windows,
                           _screen_since(tmp_path, 0)[-3000:])
    child.sendcontrol("c")
    child.expect("quitting ends this game")
    child.sendcontrol("c")
    child.expect(pexpect.EOF)
    child.close()
    child.logfile_read.flush()
    assert_clean(_screen_since(tmp_path, 0))


def _screen_length(home: Path) -> int:
    return len((home / "screen.txt").read_bytes())


def _screen_since(home: Path, mark: int) -> str:
    return CSI.sub("", (home / "screen.txt").read_bytes()[mark:].decode(errors="replace"))
