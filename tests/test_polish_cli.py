"""Issue 20's smaller problems at the command line: offline identity, auto off, names,
addresses, errors, sim progress, help, --log (the rest is in test_polish.py)."""

from __future__ import annotations

import argparse
import io
import json
import os
import pwd
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from p2p_pageone.cli.commands import help_text
from p2p_pageone.cli.main import build_parser
from p2p_pageone.cli.repl import Terminal
from p2p_pageone.cli.screen import Screen
from p2p_pageone.cli.sim_cmd import ProgressBar
from p2p_pageone.engine import make_settings
from p2p_pageone.net.discovery import host_addresses
from p2p_pageone.session.memory import MemoryTable

# --- item 6: offline play keeps who you are, and exits when input ends ---------------------------


def _run(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / "cfg"),
           "XDG_DATA_HOME": str(home / "data"), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "p2p_pageone.cli.main", *args], input=stdin,
                          capture_output=True, text=True, timeout=60, env=env, check=False)


def test_offline_games_use_one_stored_identity_named_after_the_user(tmp_path: Path) -> None:
    logs = [tmp_path / f"game{i}.log" for i in range(2)]
    for seed, log in enumerate(logs):
        result = _run(tmp_path, "play", "--autoplay", "--bots", "1", "--seed", str(seed),
                      "--deals", "1", "--log", str(log))
        assert result.returncode == 0, result.stdout + result.stderr
        assert _run(tmp_path, "audit", "--rate", str(log)).returncode == 0
    fingerprint = _run(tmp_path, "whoami").stdout.split()[0]
    players = json.loads(_run(tmp_path, "ratings", "--json").stdout)["players"]
    user = pwd.getpwuid(os.getuid()).pw_name
    mine = [p for p in players if not p["name"].endswith("-cpu")]
    assert mine == [{"fingerprint": fingerprint, "name": user, "rating": mine[0]["rating"],
                     "games": 2}]


def test_offline_play_with_no_input_leaves_and_exits(tmp_path: Path) -> None:
    result = _run(tmp_path, "play", "--bots", "1", "--seed", "1", stdin="")
    assert result.returncode == 4, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith("you quit the game")


# --- item 8: auto off, the quit warning at two seats, help wording -------------------------


def _person_at_two_seats() -> tuple[MemoryTable, Terminal]:
    t = MemoryTable(make_settings("qdan", {}), 2, seed=3)
    person = t.sessions[1]
    person.autoplay = False
    terminal = Terminal(person, interactive=True, screen=Screen(colour=False))
    while not (person.game is not None and person.game.deal.turn == 1 and person.hand_known()):
        if not t.step():
            t.advance(t.now + 0.5)
        terminal.show(person, person.take_events())
        assert t.now < 300
    return t, terminal


def test_auto_can_be_undone_and_says_how(capsys: pytest.CaptureFixture[str]) -> None:
    _, terminal = _person_at_two_seats()
    person = terminal.session
    capsys.readouterr()
    terminal.handle("auto")
    assert person.autoplay and "auto off" in capsys.readouterr().out
    terminal.handle("auto off")
    assert not person.autoplay
    out = capsys.readouterr().out
    assert "you play your seat again" in out
    assert "It plays your seat until you type auto off." in help_text("auto")


def test_at_two_players_the_quit_warning_says_the_game_ends(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _, terminal = _person_at_two_seats()
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    capsys.readouterr()
    terminal.handle("quit")
    out = capsys.readouterr().out
    assert "the game ends: one player would be left" in out and "goes on" not in out


# --- item 8: names, ranges, addresses, one plain error --------------------------------------------


@pytest.mark.parametrize("name", ["", "   ", "a\tb", "x" * 33])
def test_bad_player_names_are_refused(name: str) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["play", "--name", name])


def test_seats_out_of_range_give_one_message_either_side(
        capsys: pytest.CaptureFixture[str]) -> None:
    messages = []
    for seats in ("9", "1"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["host", "--seats", seats])
        messages.append(capsys.readouterr().err.splitlines()[-1].replace(f"'{seats}'", "N"))
    assert messages[0] == messages[1] and "2-6" in messages[0]


def test_the_host_prints_its_real_address_not_a_placeholder(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "p2p_pageone.cli.main", "host", "--no-mdns", "--interface",
         "127.0.0.1", "--autoplay", "--table", "alice's table"],
        env={"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
             "XDG_DATA_HOME": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(2)]
    finally:
        proc.terminate()
        proc.wait(30)
    assert "--connect 127.0.0.1:" in lines[1] and "THIS-MACHINE" not in "".join(lines), lines
    assert host_addresses("10.1.2.3") == ["10.1.2.3"]
    assert host_addresses() and not any(a.startswith("127.") for a in host_addresses()[1:])


def test_a_refused_connection_is_told_once_in_plain_words(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-m", "p2p_pageone.cli.main", "join", "--bot", "--connect",
         f"127.0.0.1:{port}"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, timeout=60, check=False)
    assert result.returncode == 3
    said = [line for line in result.stdout.splitlines() if "could not connect" in line]
    assert said == [f"could not sit down: could not connect to 127.0.0.1:{port} "
                    "(Connection refused)"], result.stdout


# --- item 8: sim progress, help everywhere, --log never makes directories ------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_sim_draws_a_progress_bar_on_a_terminal_and_wipes_it() -> None:
    stream, ticks = _Terminal(), iter(float(i) for i in range(100))
    bar = ProgressBar(stream, lambda: next(ticks))
    for done in range(1, 4):
        bar.show(done, 3)
    bar.clear()
    text = stream.getvalue()
    assert "\r[" + "#" * 10 + "." * 20 + "] 1/3 games" in text and "] 3/3 games" in text
    assert text.endswith("\r" + " " * len("[" + "#" * 30 + "] 3/3 games") + "\r")


def test_sim_prints_nothing_on_stderr_when_it_is_not_a_terminal(tmp_path: Path) -> None:
    result = _run(tmp_path, "sim", "--games", "2", "--no-timing")
    assert result.returncode == 0 and result.stderr == "" and "games played" in result.stdout


def _parsers(parser: argparse.ArgumentParser,
             path: str) -> list[tuple[str, argparse.ArgumentParser, str]]:
    """Every (sub)command below ``parser``: its name, parser and help line."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                found.append((f"{path} {name}", sub, helps.get(name) or ""))
                found += _parsers(sub, f"{path} {name}")
    return found


def test_every_command_and_option_has_help() -> None:
    commands = _parsers(build_parser(), "pageone")
    assert len(commands) > 8
    for name, parser, line in commands:
        assert line, f"{name} has no help line"
        for action in parser._actions:
            if not isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                assert action.help, f"{name} {action.option_strings or action.dest}: no help"


def test_log_alone_says_what_to_type(tmp_path: Path) -> None:
    result = _run(tmp_path, "log")
    assert result.returncode == 2 and "pageone log show LOG" in result.stderr
    assert "log_command" not in result.stderr


def test_a_log_in_a_missing_directory_is_refused_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent" / "dir"
    result = _run(tmp_path, "play", "--autoplay", "--bots", "1", "--log", str(missing / "x.log"))
    assert result.returncode == 2 and f"there is no directory {missing}" in result.stderr
    assert not missing.parent.exists()


def test_a_table_name_longer_than_the_wire_carries_is_refused_at_once(tmp_path: Path) -> None:
    """The wire carries a table name of 48 characters at most: 49 is a usage error, not a
    traceback when the table is described."""
    result = subprocess.run([sys.executable, "-m", "p2p_pageone.cli.main", "host", "--no-mdns",
                             "--table", "t" * 49], capture_output=True, text=True, timeout=30,
                            env={**os.environ, "HOME": str(tmp_path)})
    assert result.returncode == 2 and "up to 48 printable characters" in result.stderr
    assert "Traceback" not in result.stderr
