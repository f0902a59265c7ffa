"""The local game and the typed card commands."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2p_pageone.cli.commands import CommandError, Info, parse_command
from p2p_pageone.cli.main import main
from p2p_pageone.engine import Call, Catch, ClassicSettings, Draw, Play, QdanSettings, SeatView

from .helpers import rig
from .test_cli_table import pageone


@pytest.mark.parametrize("rules", ["classic", "qdan"])
def test_autoplay_local_game_runs_to_the_end(
    rules: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "offline.log"
    short = ["--deals", "1"] if rules == "classic" else []
    assert main(["play", "--rules", rules, "--bots", "3", "--autoplay", "--seed", "4", *short,
                 "--log", str(log)]) == 0
    out = capsys.readouterr().out
    assert "game over:" in out and "final standings:" in out
    assert f"check it with: pageone audit {log}" in out and log.stat().st_size > 0


def test_classic_commands_map_to_moves() -> None:
    game = rig(ClassicSettings(), ["5h 10s jk 3c", "kh 2d 3d 4d"])
    view = SeatView(game, 0)
    names = ["me", "bob"]
    move = parse_command("play 10s", view, names)
    assert isinstance(move, Play) and move.cards == (8 + 0 * 13,) and not move.call
    assert isinstance(parse_command("play joker !", view, names), Play)
    assert parse_command("play jk!", view, names).call  # type: ignore[union-attr]
    assert parse_command("draw", view, names) == Draw(0)
    assert parse_command("pageone", view, names) == Call(0)
    assert parse_command("catch bo", view, names) == Catch(0, 1)
    assert parse_command("hand", view, names) == Info("hand")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "type a command"),
        ("fly", "unknown command 'fly'"),
        ("play", "play which card"),
        ("play 9h", "you do not hold 9h"),
        ("play xx", "'xx' is not a card"),
        ("catch", "catch whom"),
        ("catch zed", "no single player is called 'zed'"),
    ],
)
def test_bad_commands_say_what_to_type(text: str, message: str) -> None:
    game = rig(ClassicSettings(), ["5h 10s jk 3c", "kh 2d 3d 4d"])
    with pytest.raises(CommandError, match=message):
        parse_command(text, SeatView(game, 0), ["me", "bob"])


def test_qdan_commands_group_and_colour() -> None:
    game = rig(QdanSettings(), ["5r 5b cc 1g", "1y 2y 3y 4y"], stock="3r")
    view = SeatView(game, 0)
    move = parse_command("play 5r 5b", view, ["me", "bob"])
    assert isinstance(move, Play) and len(move.slots) == 2
    move = parse_command("play cc green", view, ["me", "bob"])
    assert isinstance(move, Play) and move.colour == 2
    assert parse_command("pass", view, ["me", "bob"]) == Draw(0)


def test_offline_play_reads_commands_and_reports_refusals(tmp_path: Path) -> None:
    result = pageone(tmp_path, "play", "--bots", "1", "--seed", "2",
                     stdin="help\nhelp catch\nplay zz\nhand\nquit\n")
    out = result.stdout
    assert "commands (help COMMAND for more)" in out and "catch a missed Page One" in out
    assert "'zz' is not a card" in out and "type: " in out
    assert "you quit the game" in out and result.returncode == 4, out + result.stderr
    assert "check it with: pageone audit" in out and "Traceback" not in result.stderr
