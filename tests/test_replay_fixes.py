"""Replay and audit fixes from the newcomer's trial of issue 20: void hands replayed, draws
grouped, the game's end-of-hand line, late Page One calls, a JSON error, logs one entry short."""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from pathlib import Path

import pexpect
import pytest

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.audit.report import text_lines
from p2p_pageone.bots import make_bot
from p2p_pageone.cli.main import main
from p2p_pageone.cli.repl import Terminal
from p2p_pageone.cli.replay_screen import frames
from p2p_pageone.cli.screen import Screen
from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.engine.moves import Call, Play
from p2p_pageone.engine.settings import make_settings
from p2p_pageone.session.memory import MemoryTable, make_peer
from p2p_pageone.wire.codec import frame

from .test_table_screen import Term


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_audit_json_of_a_file_that_is_no_log_is_still_json(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bogus = tmp_path / "notalog.txt"
    bogus.write_text("hello, this is not a log\n")
    code, out, _ = run(capsys, "audit", "--json", str(bogus))
    assert code == 2
    doc = json.loads(out)
    assert doc["ok"] is False and doc["logs"] == []
    assert "not a pageone log" in doc["error"] and str(bogus) in doc["error"]
    code, out, _ = run(capsys, "audit", "--json", str(tmp_path / "missing.log"))
    assert code == 2
    assert "cannot read" in json.loads(out)["error"]
    code, out, err = run(capsys, "audit", str(bogus))  # text mode: the error on stderr, as before
    assert code == 2 and out == "" and "not a pageone log" in err


def _late_caller_table() -> tuple[MemoryTable, int]:
    """A 3-seat classic table whose host is a person who never attaches the call to the play
    and says "pageone" half a second into the catch window; the late calls it made."""
    settings = make_settings("classic", {"deals": 2})
    host = make_peer("late/0", "host", "normal", autoplay=False,
                     host_table=("t", settings, 3))
    cpus = [make_peer(f"late/{i}", f"cpu{i}", "random") for i in (1, 2)]
    table = MemoryTable(settings, 3, peers=[host, *cpus], catch_window=2.0)
    table.sequencer.cpu_keys = {p.identity.public for p in cpus}
    person, helper, rng = table.sequencer.host, make_bot("normal"), random.Random(4)
    seen_at: dict[tuple[int, int], float] = {}
    calls = 0
    while not table.finished() and table.now < 4 * 3600:
        table.advance(table.now + 0.1)
        game = person.game
        if game is None or game.chance is not None or not person.hand_known() or (
                person.outbox.requested is not None or person.in_flight):
            continue
        deal = game.deal
        if deal.open_miss == person.me:
            moment = (person.hand, deal.moves)
            if table.now - seen_at.setdefault(moment, table.now) >= 0.5:
                person.request(Call(person.me))
                calls += 1
        elif deal.turn == person.me:
            move = helper.choose(person.view(), rng)  # type: ignore[arg-type]
            if move is not None:
                person.request(replace(move, call=False) if isinstance(move, Play) else move)
    return table, calls


def test_a_late_call_inside_the_catch_window_is_no_missed_call() -> None:
    table, calls = _late_caller_table()
    person = table.sequencer.host
    assert person.game_over and calls >= 1
    data = b"".join(frame(raw) for raw in person.log)
    envs = [open_envelope(raw) for raw in person.log]
    late = [i for i, e in enumerate(envs) if e.kind == "move" and e.data["kind"] == "call"
            and e.sender == person.identity.public]
    assert len(late) == calls  # every late call is in the log, as its own move
    audit = audit_bytes(data)
    assert audit.ok, audit.fault
    missed = [m for line in audit.hands for m in line.missed]
    assert all(seat != person.me for seat, _, _ in missed), missed
    out = "\n".join(text_lines("x", audit))
    assert f"{person.names[person.me]} missed Page One" not in out


# --- a void hand is replayed; draws grouped; the game's end-of-hand line -------------------------


@cache
def void_second_hand() -> bytes:
    """A 3-seat classic game: hand 1 played out, then the host closes the table 25 moves into
    hand 2 (void). A joiner's log."""
    table = MemoryTable(make_settings("classic", {"deals": 3}), 3, seed=7)
    host = table.sessions[0]
    while not (host.hand == 2 and len(host.hand_moves) >= 25):
        if not table.step():
            table.advance(table.now + 0.5)
    host.notify("bye", {"reason": "the host closed the table"})  # as the REPL's `quit` does
    host.flush(table.now)
    table.run(limit=table.now + 900)
    return b"".join(frame(raw) for raw in table.sessions[1].log)


def _hand_moves(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()
            if re.match(r"\s+p\d (plays|draws|wins)", line)]


def test_a_void_hand_is_replayed_move_by_move_then_said_void(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "void.pageone-log"
    path.write_bytes(void_second_hand())
    audit = audit_bytes(void_second_hand())
    assert [line.status for line in audit.hands] == ["ok", "void"]
    moves = [e for e in map(open_envelope, audit.state.log)  # type: ignore[union-attr]
             if e.kind == "move"]
    in_void = [e for e in moves if e.data.get("kind") == "play"][-5:]
    for seat in ("", "1"):
        code, out, _ = run(capsys, "replay", "--plain", "--hand", "2", *(
            ["--seat", seat] if seat else []), str(path))
        assert code == 3  # the table ended early: INCOMPLETE, as the audit says
        lines = out.splitlines()
        assert any(line.startswith("— hand 2: p0 deals") for line in lines), out
        assert len([m for m in _hand_moves(out) if " plays " in m]) >= 8, out
        assert sum(int(n) for n in re.findall(r"draws (\d+) card", out)) >= 15, out
        void_at = next(i for i, line in enumerate(lines) if "hand 2: VOID" in line)
        assert "closed the table" in lines[void_at]
        last_play = max(i for i, line in enumerate(lines) if " plays " in line)
        assert last_play < void_at  # the moves, then the void and why
        assert "hand 1" not in out.replace("— hand 2", "")
    assert len(in_void) == 5
    _, out, _ = run(capsys, "replay", "--plain", "--seat", "1", "--hand", "2", str(path))
    assert "p1's hand: " in out and "the log does not reveal" in out  # no seed revealed
    shown, story = frames(audit, 1, False)
    assert {f.hand for f in shown} == {1, 2}
    assert sum(1 for f in shown if f.hand == 2) > 25
    told = ["".join(text for _, text in line) for line in story]
    assert "hand 2: VOID" in told[-1] and " plays " in told[-3] + told[-2] + told[-4]


def test_the_replay_screen_pages_down_and_jumps_to_a_void_hand(tmp_path: Path) -> None:
    path = tmp_path / "void.pageone-log"
    path.write_bytes(void_second_hand())
    term = Term(tmp_path, ["replay", str(path)], 24, 80, colour=False)

    def at(hand: int) -> Callable[[list[str]], bool]:
        return lambda lines: re.match(rf"hand {hand}\s+classic\s+move 0 of", lines[0]) is not None

    term.wait(at(1), "hand 1 dealt")
    term.child.send("\x1b[6~")  # PageDown: the next hand, the void one
    term.wait(at(2), "hand 2 dealt, after PageDown")
    term.wait(lambda lines: "— hand 2: p0 deals —" in "\n".join(lines), "hand 2's story")
    term.child.send("1\r")
    term.wait(at(1), "hand 1 again")
    term.child.send("2\r")
    term.wait(at(2), "hand 2, typed")
    term.child.send("7\r")
    term.wait(lambda lines: any("no hand 7 in this log" in line for line in lines), "a note")
    term.child.send("q")
    term.child.expect(pexpect.EOF, timeout=10)
    term.child.close()
    assert term.child.exitstatus == 3


@pytest.mark.parametrize("seat", [None, 2])
def test_replay_groups_draws_and_ends_a_hand_with_the_games_line(
        seat: int | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = MemoryTable(make_settings("classic", {"deals": 2}), 3, seed=90)
    table.run()
    path = tmp_path / "game.pageone-log"
    path.write_bytes(b"".join(frame(raw) for raw in table.sessions[0].log))
    code, out, _ = run(capsys, "replay", "--plain", *(["--seat", str(seat)] if seat else []),
                       str(path))
    assert code == 0
    told = [line.strip() for line in out.splitlines() if line.startswith("  ")]
    draws = [line for line in told if " draws " in line]
    assert any(re.search(r"draws [2-9] cards", line) for line in draws), draws
    for one, two in itertools.pairwise(told):  # never two draws by one player in a row
        assert not (" draws " in one and " draws " in two
                    and one.split()[0] == two.split()[0]), (one, two)
    lines = [line.strip() for line in out.splitlines()]
    for hand in (1, 2):
        over = next(i for i, line in enumerate(lines) if line.startswith(f"hand {hand} over: "))
        assert "went out. Penalties:" in lines[over]
        assert lines[over + 1].startswith("totals after")
        assert lines[over + 2].startswith(f"hand {hand}: OK")  # the audit's status beside it


# --- a qdan deal voided by a leave after a player went out: the places taken stand --------------


def test_qdan_quit_after_a_player_went_out_is_warned_the_game_ends_and_the_audit_says_why(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    table = MemoryTable(make_settings("qdan", {"start_cards": 5}), 3, seed=4)
    host, person = table.sessions[0], table.sessions[1]
    while not (person.game is not None and any(person.game.deal.places)):
        if not table.step():
            table.advance(table.now + 0.5)
        assert table.now < 3000
    deal = person.game.deal
    assert [p for p in deal.players if deal.places[p]] == [0]  # the host went out first
    person.autoplay = False
    terminal = Terminal(person, interactive=True, screen=Screen(colour=False))
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    capsys.readouterr()
    terminal.handle("quit")
    warning = capsys.readouterr().out
    assert "the game ends" in warning and "goes on" not in warning, warning
    terminal.quit()  # confirmed
    table.run(limit=table.now + 900)
    assert host.game_over and host.game is not None and host.game.places == [1, 3, 2]
    audit = audit_bytes(b"".join(frame(raw) for raw in host.log))
    assert [line.status for line in audit.hands] == ["void"]
    assert audit.verdict == "OK"
    text = "\n".join(text_lines("x", audit))
    assert ("p0 wins, decided by the places taken before hand 1 was void: 1st p0, 2nd p2, "
            "3rd p1 (left the table)") in text, text
