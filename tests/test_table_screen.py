"""The table screen on a pseudo-terminal, read through a terminal emulator (pyte) as a person
sees it: six players in both families at 80x24 and 120x40, resized while playing, with and
without NO_COLOR. Offline games only (no network)."""

from __future__ import annotations

import itertools
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pexpect
import pyte
import pytest

from p2p_pageone.engine.cards import JOKER, QDAN_COLOURED, classic_name, qdan_name

SGR = re.compile(rb"\x1b\[[0-9;:]*m")  # Select Graphic Rendition: colours and attributes
RULE = "─"
CLASSIC_SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
WHOLE_CARDS = ({qdan_name(card) for card in range(QDAN_COLOURED + 8)}
               | {classic_name(card) for card in range(JOKER + 1)})


class Term:
    """A `pageone` command on a pty, its output fed to an emulated screen of the same size."""

    def __init__(self, home: Path, args: list[str], rows: int, cols: int,
                 colour: bool = True, cpr: bool = False) -> None:
        env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / "cfg"),
               "XDG_DATA_HOME": str(home / "data"), "PATH": "/usr/bin:/bin", "TERM": "xterm",
               "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1", "PROMPT_TOOLKIT_NO_CPR": "1"}
        if not colour:
            env["NO_COLOR"] = "1"
        if cpr:  # the emulator answers where the cursor is (prompt-toolkit's toolbar needs it)
            del env["PROMPT_TOOLKIT_NO_CPR"]
        self.child = pexpect.spawn(sys.executable, ["-m", "p2p_pageone.cli.main", *args],
                                   env=env, dimensions=(rows, cols), timeout=30)
        self.screen = pyte.Screen(cols, rows)
        if cpr:
            self.screen.write_process_input = self.child.send  # type: ignore[method-assign]
        self.stream = pyte.ByteStream(self.screen)
        self.raw = b""

    def pump(self, seconds: float = 0.05) -> None:
        end = time.monotonic() + seconds
        while True:
            try:
                data = self.child.read_nonblocking(65536, timeout=max(0.01, end - time.monotonic()))
            except pexpect.TIMEOUT:
                data = b""
            except pexpect.EOF:
                return
            self.raw += data
            self.stream.feed(data)
            if time.monotonic() >= end:
                return

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display]

    def wait(self, check: Callable[[list[str]], bool], what: str, seconds: float = 30) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.pump(0.1)
            if check(self.lines()):
                return
        raise AssertionError(f"timed out waiting for {what}:\n" + "\n".join(self.lines()))

    def type(self, text: str) -> None:
        self.child.send(text + "\r")

    def resize(self, rows: int, cols: int) -> None:
        self.child.setwinsize(rows, cols)
        self.screen.resize(rows, cols)
        self.pump(0.5)


def areas(lines: list[str]) -> tuple[list[str], list[str], list[str]]:
    """The table, the story and the hand (with the input line) between the two rules."""
    rules = [i for i, line in enumerate(lines) if line and set(line) == {RULE}]
    assert len(rules) == 2, "\n".join(lines)
    return lines[: rules[0]], lines[rules[0] + 1 : rules[1]], lines[rules[1] + 1 :]


def my_turn(lines: list[str]) -> bool:
    return any(line.startswith("YOUR TURN") for line in lines) and any(
        line.startswith("pageone>") for line in lines)


def check_screen(lines: list[str], cols: int, names: list[str]) -> None:
    table, _story, hand = areas(lines)
    assert table[0].startswith("hand "), table
    shown = " ".join(table).replace("\xa0", " ")
    for name in names:  # every player, with cards in hand (or out, or gone)
        assert re.search(rf"{re.escape(name)} (\d+ cards?|\w+ place|out|left)", shown), (
            name, table)
    assert re.search(r"^(trick|top):", "\n".join(table), re.M), table
    assert hand[-1].startswith("pageone>"), hand
    assert any(line.startswith("you hold ") for line in hand), hand
    for above, below in itertools.pairwise(lines):
        # a line that fills the width exactly may be followed by the next player's entry
        starts_entry = below.split(" ", 1)[0].lstrip(">") in names
        # and a hand that fills it exactly by the next card (both ends whole cards)
        between_cards = bool(above.split() and below.split()) and {
            above.split()[-1].strip("[]"), below.split()[0].strip("[]")} <= WHOLE_CARDS
        cut = (len(above) == cols and above[-1:].isalnum() and below[:1].isalnum()
               and not starts_entry and not between_cards)
        assert not cut, f"a word cut at the line end:\n{above}\n{below}"


def settled_screen(term: Term, cols: int, seconds: float = 15) -> list[str]:
    """The screen once ``check_screen`` holds: a snapshot taken mid-redraw (a loaded machine
    draws a frame in pieces) is read again, and only a screen that never comes right fails."""
    end = time.monotonic() + seconds
    while True:
        lines = term.lines()
        try:
            check_screen(lines, cols, NAMES)
            return lines
        except AssertionError:
            if time.monotonic() >= end:
                raise
        term.pump(0.2)


def hinted_command(hand: list[str]) -> str:
    hint = " ".join(hand)
    commands = re.findall(r"play (?:10|[2-9jqka])[shdc]\b|play jk\b|play (?:d[23]|[0-9rsw])[rgby]\b"
                          r"|play cc\b|draw", hint)
    assert commands, hand
    return commands[0]


def check_marked(hand: list[str], family: str) -> None:
    """The card the hint suggests is marked playable, and only bracketed cards are marked."""
    command = hinted_command(hand)
    if command == "draw":
        return
    name = command.split()[1]
    if family == "classic":
        label = "Joker" if name == "jk" else name[:-1].upper() + CLASSIC_SUITS[name[-1]]
    else:
        label = name
    cards = " ".join(line for line in hand if line.startswith("you hold")
                     or not line.startswith(("YOUR", "a play", "pageone", "held")))
    assert f"[{label}]" in cards, (label, hand)


NAMES = ["you", "ann-cpu", "bob-cpu", "cy-cpu", "dee-cpu", "eve-cpu"]


@pytest.mark.parametrize("family", ["classic", "qdan"])
@pytest.mark.parametrize("colour", [True, False], ids=["colour", "no_color"])
def test_six_players_fit_and_survive_resizing(tmp_path: Path, family: str, colour: bool) -> None:
    deals = ["--deals", "2"] if family == "classic" else []
    term = Term(tmp_path, ["play", "--rules", family, "--bots", "5", "--seed", "5",
                           "--think", "0.05", "--catch-window", "0.3", *deals],
                24, 80, colour=colour)
    sizes = [(24, 80), (40, 120), (24, 80)]
    turns = 0
    for rows, cols in sizes:
        if (rows, cols) != (term.screen.lines, term.screen.columns):
            term.resize(rows, cols)
        term.wait(my_turn, f"your turn at {cols}x{rows}")
        lines = settled_screen(term, cols)
        hand = areas(lines)[2]
        check_marked(hand, family)
        term.type(hinted_command(hand))
        turns += 1
        term.pump(0.5)
        settled_screen(term, cols)
    term.child.sendcontrol("c")
    term.wait(lambda lines: any(line.startswith("quit? (y/n)") for line in lines), "quit?")
    term.type("y")
    term.child.expect(pexpect.EOF, timeout=15)
    term.raw += term.child.before or b""
    term.child.close()
    assert term.child.exitstatus == 4 and turns == 3
    assert b"Traceback" not in term.raw
    if colour:
        assert SGR.search(term.raw), "no colour at all on a terminal"
    else:
        found = SGR.findall(term.raw)
        assert not found, f"NO_COLOR: {len(found)} colour/attribute sequences, e.g. {found[:3]}"


def test_replay_draws_the_table_screen_and_steps_jumps_and_quits(tmp_path: Path) -> None:
    log = tmp_path / "game.pageone-log"
    made = pexpect.run(f"{sys.executable} -m p2p_pageone.cli.main play --autoplay --bots 3 "
                       f"--deals 2 --seed 1 --log {log}", withexitstatus=True, timeout=120,
                       env={"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"),
                            "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    assert made[1] == 0, made[0]
    missing = pexpect.run(f"{sys.executable} -m p2p_pageone.cli.main replay {log} --hand 99",
                          withexitstatus=True, timeout=60)
    assert missing[1] == 2 and b"there is no hand 99" in missing[0], missing
    term = Term(tmp_path, ["replay", str(log), "--seat", "1"], 24, 80, colour=False)
    term.wait(lambda lines: lines[0].startswith("hand 1") and "move 0 of" in lines[0],
              "the first hand dealt")
    for _ in range(3):
        term.child.send("\x1b[C")  # Right: the next move
    term.wait(lambda lines: "move 3 of" in lines[0], "three moves on")
    lines = term.lines()
    table, story, hand = areas(lines)
    assert any(symbol in "\n".join(table + story) for symbol in "♠♥♦♣"), lines
    assert hand[0].startswith("ann-cpu: ") and "q quit" in hand[-1], hand
    term.child.send("\x1b[D")  # Left: one back
    term.wait(lambda lines: "move 2 of" in lines[0], "one move back")
    term.child.send("2\r")
    term.wait(lambda lines: lines[0].startswith("hand 2") and "move 0 of" in lines[0], "hand 2")
    term.child.send("q")
    term.child.expect(pexpect.EOF, timeout=10)
    term.raw += term.child.before or b""
    term.child.close()
    assert term.child.exitstatus == 0 and not SGR.findall(term.raw)


def test_plain_narration_under_no_color_sends_no_attributes(tmp_path: Path) -> None:
    """--plain keeps the line narration (and its status toolbar, wrapped): under NO_COLOR not
    even the toolbar's reverse video is sent."""
    term = Term(tmp_path, ["play", "--plain", "--rules", "qdan", "--bots", "5", "--seed", "5",
                           "--think", "0.05", "--catch-window", "0.3"], 24, 80, colour=False,
                cpr=True)
    term.wait(lambda lines: any("YOUR TURN" in line for line in lines), "your turn")
    term.wait(lambda lines: any(line.startswith(" hand 1 | turn: you") for line in lines),
              "the status toolbar")
    toolbar = [line for line in term.lines() if line.startswith(" hand 1 |")]
    assert all(len(line) < 80 for line in term.lines()), term.lines()
    term.child.sendcontrol("c")
    term.child.sendcontrol("c")
    term.child.expect(pexpect.EOF, timeout=15)
    term.raw += term.child.before or b""
    term.child.close()
    assert toolbar and term.child.exitstatus == 4
    assert not SGR.findall(term.raw), SGR.findall(term.raw)[:5]


def test_no_underline_on_the_table_rows_in_colour(tmp_path: Path) -> None:
    """prompt-toolkit's default style underlines a non-breaking space (its "nbsp" class) in
    yellow; the table joins each player's words with one, so the theme must draw it plain."""
    term = Term(tmp_path, ["play", "--rules", "classic", "--bots", "3", "--seed", "5",
                           "--think", "0.05", "--catch-window", "0.3"], 24, 80)
    term.wait(my_turn, "your turn")
    lines = term.lines()
    table_rows = len(areas(lines)[0])
    underlined = [(row, col) for row in range(table_rows)
                  for col, char in term.screen.buffer[row].items() if char.underscore]
    assert any("\xa0" in line or "cards" in line for line in lines[:table_rows])
    assert not underlined, f"underlined at {underlined[:5]}:\n" + "\n".join(lines[:table_rows])
    term.child.terminate(force=True)


def test_a_refused_connection_never_says_waiting_to_be_seated(tmp_path: Path) -> None:
    """Nothing listens on loopback port 1: the error, once, and no "waiting to be seated"."""
    term = Term(tmp_path, ["join", "--connect", "127.0.0.1:1"], 24, 80)
    term.child.expect(pexpect.EOF, timeout=20)
    term.raw += term.child.before or b""
    term.child.close()
    text = term.raw.decode(errors="replace")
    assert term.child.exitstatus == 3
    assert "waiting to be seated" not in text
    after = text.rpartition("\x1b[?1049l")[2]  # what stays once the full screen closes
    assert after.count("could not connect to 127.0.0.1:1") == 1, after
