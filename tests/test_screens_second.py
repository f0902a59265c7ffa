"""Issue 30, the screens' second pass: every line a player reads is true, on time, whole and
copyable. The parts that are not about the screen's layout, checked without a terminal (the
terminal ones are in test_screens_second_pty.py). Each test names its item."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from p2p_pageone.cli import hints, tableview, watch_cmd
from p2p_pageone.cli.commands import CommandError, help_text, parse_command
from p2p_pageone.cli.main import build_parser, main
from p2p_pageone.cli.narrator import Narrator
from p2p_pageone.cli.render import plain
from p2p_pageone.cli.repl import Terminal
from p2p_pageone.cli.screen import Screen
from p2p_pageone.cli.typed import TypedMoves
from p2p_pageone.cli.watch_cmd import Referee
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.engine import ClassicSettings, Draw, Game, Play, QdanSettings
from p2p_pageone.engine.moves import Catch
from p2p_pageone.engine.settings import make_settings
from p2p_pageone.engine.view import SeatView
from p2p_pageone.net.discovery import TableAdvert
from p2p_pageone.net.logwriter import LogWriter
from p2p_pageone.session.common import Event
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession

from .helpers import play, rig


def _session(game: Game, names: list[str], me: int) -> PeerSession:
    session = PeerSession(Identity(os.urandom(32)), names[me], os.urandom)
    session.names, session.me, session.game = names, me, game
    return session


def _screen_narrator(session: PeerSession) -> tuple[Narrator, list[str]]:
    """The narrator as the table screen runs it: no prompts (the screen shows the turn)."""
    printed: list[str] = []
    narrator = Narrator(session, lambda lines: printed.extend(map(plain, lines)),
                        symbols=False, prompts=False)
    narrator.show([])  # my cards, as dealt
    printed.clear()
    return narrator, printed


# --- 1: your own draw is told, with its card, at once -----------------------------------------


def test_1_my_draw_whose_card_opened_in_the_same_batch_is_told_with_it() -> None:
    """The card of a draw to follow opened before the draw was told (offline the keys come at
    once): the batch's look at new cards kept it, so "you draw" never came, or came later with
    no card, after the next play or inside the next hand."""
    game = rig(ClassicSettings(), ["8d 9d 2s 3s", "5h 6c 4h 7h"], stock="2c")
    play(game, 0, "8d")
    narrator, printed = _screen_narrator(_session(game, ["ann", "root"], 1))
    since = len(game.deal.events)
    game.apply(Draw(1))  # 2c: still no diamond, still my turn
    narrator.show([Event("engine", "", {"event": e}) for e in game.deal.events[since:]])
    narrator.idle()  # what the screen does while it is my turn
    assert [line.strip() for line in printed] == ["you draw 1 card: 2c"], printed
    play_at = len(game.deal.events)
    game.apply(Draw(1))
    narrator.show([Event("engine", "", {"event": e}) for e in game.deal.events[play_at:]])
    narrator.idle()
    assert len(printed) == 2 and printed[1].strip().startswith("you draw 1 card: "), printed


# --- 2: the Page One hint for a cc is a command the game takes ---------------------------------


def test_2_the_page_one_example_for_a_cc_names_a_colour_and_is_taken() -> None:
    game = rig(QdanSettings(), ["1r cc 5y", "1g 2g 3g"], stock="1b 4b 6g")
    play(game, 0, "1r")
    play(game, 1, "1g")  # my turn again with cc and 5y: the cc needs Page One
    session = _session(game, ["me", "bob"], 0)
    narrated = Narrator(session, lambda lines: said.extend(map(plain, lines)), symbols=False)
    said: list[str] = []
    narrated.show([])  # the line narration's YOUR TURN
    screen = [plain(line) for line in tableview.hand_area(session, 80)]  # the table screen's
    for shown in (said, screen):
        hint = next(line.strip() for line in shown if "needs Page One" in line)
        assert hint.startswith("a play that leaves you 1 card needs Page One"), hint
        example = hint.split("e.g. ", 1)[1]
        assert example.startswith("play cc ") and example.endswith(" !"), hint
        move = parse_command(example, SeatView(game, 0), session.names)
        game.deal.verify(move)  # type: ignore[arg-type]  # taken as typed


# --- 3 and 14: a watcher stops when the log says the table closed --------------------------


def test_3_a_watcher_is_done_as_soon_as_the_log_says_the_host_closed_the_table(
        tmp_path: Path) -> None:
    t = MemoryTable(make_settings("classic", {"deals": 3}), 3, seed=4)
    watcher = t.watch(b"w" * 32)
    host = t.sessions[0]
    while host.game is None or not host.game.deal.moves:
        if not t.step():
            t.advance(t.now + 0.5)
    referee = Referee(False, LogWriter(tmp_path / "w.pageone-log"))
    referee.sink = lambda lines: None
    referee.entries(watcher.take_entries())
    assert not referee.finished()
    host.notify("bye", {"reason": "the host closed the table"})
    for _ in range(50):
        t.step()
        referee.entries(watcher.take_entries())
        if referee.finished():
            break
    assert referee.finished() and "closed the table" in referee.closed(), referee.closed()


# --- 5: logs of several tables are grouped by table; FAIL only for a fault ------------------


def _logs(folder: Path, seeds: list[int]) -> list[Path]:
    out = []
    for seed in seeds:
        path = folder / f"table-{seed}.pageone-log"
        done = subprocess.run([sys.executable, "-m", "p2p_pageone.cli.main", "play",
                               "--autoplay", "--bots", "1", "--deals", "1", "--seed", str(seed),
                               "--log", str(path)], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "HOME": str(folder),
                                   "XDG_DATA_HOME": str(folder / "data")}, check=False)
        assert done.returncode == 0, done.stderr
        out.append(path)
    return out


def test_5_auditing_a_folder_of_three_tables_groups_them_and_finds_no_fault(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = _logs(tmp_path, [1, 2, 3])
    copy = tmp_path / "table-1-copy.pageone-log"
    copy.write_bytes(logs[0].read_bytes())
    paths = [str(p) for p in [*logs, copy]]
    assert main(["audit", *paths]) == 0
    out = capsys.readouterr().out
    assert "FAIL" not in out and "not of one table" not in out, out
    assert "comparison of table 'offline' (table-1.pageone-log, table-1-copy.pageone-log): OK" \
        in out, out
    assert "4 logs of 3 tables: each log is compared with the logs of its own table" in out
    assert main(["audit", "--json", *paths]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] and doc["comparison"] is None
    assert [c["logs"] for c in doc["comparisons"]] == [[paths[0], paths[3]]]
    cut = tmp_path / "table-2-forked.pageone-log"  # a fork within one table is still a FAIL
    frames = logs[1].read_bytes()
    cut.write_bytes(frames[:-1] + bytes([frames[-1] ^ 1]))
    assert main(["audit", str(logs[1]), str(cut), str(logs[2])]) == 1


# --- 7: offline, my chat line says "you" -----------------------------------------------------


def test_7_my_chat_line_says_you_as_every_other_line_does() -> None:
    game = rig(ClassicSettings(), ["8d 9d 2s 3s", "5h 6c 4h 7h"])
    narrator, printed = _screen_narrator(_session(game, ["root", "ann-cpu"], 0))
    narrator.show([Event("say", "root: good luck"), Event("say", "ann-cpu: thanks")])
    assert [line.strip() for line in printed] == ["you: good luck", "ann-cpu: thanks"]


# --- 8: examples of the table's own family ----------------------------------------------------


def test_8_help_and_a_bare_play_give_examples_of_the_tables_family() -> None:
    classic, qdan = help_text("", "classic"), help_text("", "qdan")
    for text in (classic, help_text("play", "classic")):
        assert "play 7h" in text.replace("\xa0", " ")
        assert not any(x in text.replace("\xa0", " ") for x in ("5r 5b", "cc red")), text
    assert "play cc red" in qdan.replace("\xa0", " ") and "7h" not in qdan
    game = rig(QdanSettings(), ["5r 9r 2y", "1g 2g 3g"], stock="1b")
    with pytest.raises(CommandError) as bare:
        parse_command("play", SeatView(game, 0), ["me", "bob"])
    assert "e.g. play 5r" in str(bare.value) and "7h" not in str(bare.value)


# --- 9: qdan hints that read right ----------------------------------------------------------


def test_9_two_copies_are_both_playable_and_a_cc_on_top_names_its_colour() -> None:
    game = rig(QdanSettings(), ["d3r d3r 5y", "1g 2g 3g"], stock="4r 9b")
    session = _session(game, ["me", "bob"], 0)
    legal = [m for m in game.legal_moves(0) if isinstance(m, Play)]
    playable = hints.playable_cards(game.deal, legal)
    hint = hints.what_to_do(session, playable, legal)
    assert "only with" not in hint and len(playable) == 2, hint
    game = rig(QdanSettings(), ["cc 5r 9y", "1g 2g 3y"], stock="1b 3b")
    play(game, 0, "cc", colour=1)
    session = _session(game, ["me", "bob"], 1)
    legal = [m for m in game.legal_moves(1) if isinstance(m, Play)]
    hint = hints.what_to_do(session, hints.playable_cards(game.deal, legal), legal)
    assert hint.startswith("play a yellow card, the colour the cc on top chose"), hint
    assert "match cc" not in hint


# --- 11: a seated joiner is not told it waits to be seated ------------------------------------


def test_11_a_joiner_seated_reads_that_it_waits_for_the_game_not_for_a_seat() -> None:
    """It was told "waiting to be seated…" once the host first answered, which came after
    "you sit at seat 2", or in the middle of the seats taken before it. It is told that it
    waits for the game, once, when it is seated."""
    session = PeerSession(Identity(os.urandom(32)), "bob", os.urandom)
    session.names, session.me = ["ann", "cy", "bob"], -1
    session.seat_count, session.keys = 4, [b"a" * 32, b"c" * 32, b"b" * 32]  # one seat free
    session.attachment.log_read = True
    out = io.StringIO()
    terminal = Terminal(session, interactive=True, screen=Screen(colour=False))
    terminal.seated_note = "  waiting for the game to start… (type help; quit to leave)"
    terminal.say = lambda text, style="": out.write(text + "\n")  # type: ignore[method-assign]
    terminal.narrator.sink = lambda lines: out.write("\n".join(map(plain, lines)) + "\n")
    terminal.show(session, [Event("table", "table 'friday'"), Event("seat", "ann sits at seat 0")])
    assert "waiting" not in out.getvalue(), out.getvalue()  # not seated yet: nothing said
    session.me = 2
    terminal.show(session, [Event("seat", "bob sits at seat 2")])
    terminal.show(session, [Event("seat", "cy sits at seat 1")])
    said = out.getvalue()
    assert said.count("waiting for the game to start") == 1, said
    assert said.index("you sit at seat 2") < said.index("waiting for the game"), said


# --- 12: pageone tables fits 80 columns; a watcher's first line has no "(0 watch)" ---------


def _advert(name: str, port: int, watch: str = "0/4", settings: str = "") -> TableAdvert:
    return TableAdvert(name, "qdan", 1, 3, "EFGH" * 4, "1", "10.77.120.14", port, "y",
                       nick="bobby", state="lobby", watch=watch, settings=settings)


def test_12_the_tables_listing_fits_80_columns_and_says_who_watches() -> None:
    from p2p_pageone.cli.tables_list import table_lines

    tables = [_advert("bob's friday table", 38123), _advert("x" * 20, 38124, "1/2",
                                                            "hand_limit=20 deals=3")]
    lines = table_lines(tables, 80)
    assert all(len(line) <= 80 for line in lines), lines
    assert "0 of 4" in lines[1] and "10.77.120.14:38123" in lines[1], lines
    assert any("hand_limit=20 deals=3" in line for line in lines), lines
    long = [_advert("y" * 48, 38125, settings="a=1 " * 20)]
    assert all(len(line) <= 80 for line in table_lines(long, 80))


def test_12_a_watchers_first_line_says_what_it_found_not_a_count(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    async def browse(seconds: float, interface: str | None) -> list[TableAdvert]:
        return [_advert("bob's table", 38123)]

    monkeypatch.setattr(watch_cmd, "browse", browse)
    args = argparse.Namespace(wait=1.0, interface="", table="")
    assert asyncio.run(watch_cmd._find(args)) == ("10.77.120.14", 38123)
    out = capsys.readouterr().out
    assert "watch)" not in out and out.startswith('found "bob\'s table", hosted by bobby'), out


# --- 13: a late catch says who caught first, or how long one may rely on -------------------


def _ann_misses_her_call() -> Game:
    game = rig(ClassicSettings(), ["8d 9d 2s 3s", "5d 6d 4h 7h", "4d 7d 2h 3h"])
    for seat, card in ((0, "8d"), (1, "5d"), (2, "4d"), (0, "9d")):
        play(game, seat, card)
    assert game.deal.open_miss == 0  # ann holds two cards and did not say Page One
    return game


def test_13_a_late_catch_says_who_caught_first_and_how_long_the_window_is() -> None:
    game = _ann_misses_her_call()
    game.apply(Catch(1, 0))  # bob caught ann first
    session = _session(game, ["ann", "bob", "me"], 2)
    said: list[str] = []
    typed = TypedMoves(session, 2.0, said.append, lambda: 0.0)
    typed.typed("catch ann", Catch(2, 0))
    assert said == ["  catch ann: not allowed: too late: bob caught ann first"], said
    game = _ann_misses_her_call()
    play(game, 1, "6d")  # the window closed with the next play: nobody caught
    session = _session(game, ["ann", "bob", "me"], 2)
    said.clear()
    typed = TypedMoves(session, 2.0, said.append, lambda: 0.0)
    typed.typed("catch ann", Catch(2, 0))
    assert len(said) == 1 and "too late: ann's window to be caught had closed (you may rely " \
        "on 2 s after the play)" in said[0], said


# --- 15: an unknown option names the close one ----------------------------------------------


@pytest.mark.parametrize(("argv", "meant"), [(["play", "--family", "qdan"], "--rules"),
                                             (["host", "--famly", "qdan"], "--rules"),
                                             (["audit", "--jsn", "x"], "--json")])
def test_15_an_unknown_option_is_answered_with_the_one_meant(
        argv: list[str], meant: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"did you mean {meant}?" in err and f"pageone {argv[0]} --help" in err, err
    assert "unrecognized arguments" not in err
    from p2p_pageone.cli.main import unknown_options

    assert "unexpected 'x'" in unknown_options(build_parser(), "play", ["x"])


# --- 4/6: the story's end, printed when the screen closes, is not wrapped twice -------------


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_4_the_story_left_on_the_terminal_keeps_its_lines_whole(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The trial's "ann-cpu 42, you / 50": the story wrapped at 80, then again at 79 when
    printed, broke a line in two. It is wrapped once, to the width it is printed at."""
    from p2p_pageone.cli.tablescreen import Story

    monkeypatch.setenv("COLUMNS", "80")
    out = _Tty()
    monkeypatch.setattr(sys, "stdout", out)
    story = Story()
    story.add([[("", "  hand 1 over: bob-cpu went out. Penalties: bob-cpu 0, cy-cpu 4, "
                     "ann-cpu 42, you 50")]])
    Screen(colour=False).lines(story.wrapped(Screen.width())[-5:])
    assert out.getvalue().splitlines() == [
        "  hand 1 over: bob-cpu went out. Penalties: bob-cpu 0, cy-cpu 4, ann-cpu 42,",
        "    you 50"], out.getvalue()


def test_1_a_draw_typed_twice_waits_for_the_first_card_and_is_refused_by_name() -> None:
    """The LAN trial: two draws typed in a catch window; the second went out before the first
    draw's card opened, was taken, then dropped as "that move is no longer possible" (no
    command named, no reason). It waits for the card; then it is refused with the reason."""
    game = rig(ClassicSettings(), ["8d 9d 2s 3s", "5h 6c 4h 7h"], stock="2d")
    play(game, 0, "8d")
    session = _session(game, ["ann", "root"], 1)
    said: list[str] = []
    typed = TypedMoves(session, 2.0, said.append, lambda: 0.0)
    game.apply(Draw(1))  # the first draw is in; its card (2d) still to open
    drawn = game.deal.hands[1][-1]
    card, game.deal.known[drawn] = game.deal.known[drawn], -1
    typed.queue.append("draw")
    typed.tick()
    assert typed.queue == ["draw"] and session.outbox.requested is None and not said
    game.deal.known[drawn] = card  # open: 2d follows diamonds, so no second draw
    typed.tick()
    assert not typed.queue and session.outbox.requested is None
    assert len(said) == 1 and said[0].startswith("  draw: not allowed: "), said
