"""The audit tells conduct from cheating (issue 20): a quit, a close, a timeout or a crash is an
early end (``INCOMPLETE``, the hand void, who left, nobody at fault), never a ``FAIL`` naming a
player; a cheat is a ``FAIL`` naming the cheater. The text and ``--json`` always give the same
verdict and the same exit code (``both_ways`` checks every log these tests make)."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from p2p_pageone.audit.check import VERDICTS, audit_bytes
from p2p_pageone.audit.compare import RELATIONS
from p2p_pageone.cli.audit_cmd import EXIT_FAULT, EXIT_INCOMPLETE, EXIT_OK, EXIT_USAGE
from p2p_pageone.cli.main import main
from p2p_pageone.engine import make_settings
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.wire.codec import frame

from .cheats import SilentAtReveal, WrongKey, audit_of, log_bytes, table_with, verdict
from .test_cli_table import pageone

README = Path(__file__).resolve().parent.parent / "README.md"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def both_ways(tmp_path: Path, capsys: pytest.CaptureFixture[str],
              data: bytes) -> tuple[dict[str, Any], str]:
    """Audit ``data`` as text and as JSON: the same verdict word, the same verdict sentence and
    the same exit code, the verdict's; returns the log's JSON document and the text output."""
    path = tmp_path / f"log{len(list(tmp_path.iterdir()))}.pageone-log"
    path.write_bytes(data)
    code, out, _ = run(capsys, "audit", str(path))
    json_code, doc_out, _ = run(capsys, "audit", "--json", str(path))
    doc = json.loads(doc_out)["logs"][0]
    said = re.search(r"^  verdict: (\S+)", out, re.M)
    assert said is not None, out
    assert said.group(1) == doc["verdict"] and code == json_code, (out, doc["verdict"])
    assert f"verdict: {doc['text']}" in out
    assert run(capsys, "audit", "--quiet", str(path))[:2] == (code, f"verdict: {doc['text']}\n")
    assert verdict(audit_bytes(data)) == verdict(audit_bytes(data, every_proof=True))
    assert code == {"OK": EXIT_OK, "FAIL": EXIT_FAULT, "INCOMPLETE": EXIT_INCOMPLETE}[
        doc["verdict"]]
    return doc, out


def assert_early_end(doc: dict[str, Any], out: str, seat: int, words: str) -> None:
    """INCOMPLETE, nobody at fault, no hand failed; ``seat`` (-1: nobody) is who left."""
    assert doc["verdict"] == "INCOMPLETE" and not doc["ok"] and doc["fault"] is None, doc
    assert all(hand["status"] != "fault" for hand in doc["hands"]), doc["hands"]
    assert "FAIL" not in out, out
    early = doc["early_end"]
    assert early["seat"] == seat and words in early["text"], early
    assert "nobody at fault" in doc["text"]
    if seat >= 0:
        assert early["name"] == doc["players"][seat]["name"]
        assert early["fingerprint"] == doc["players"][seat]["fingerprint"] in doc["text"]


def to_first_move(table: MemoryTable) -> None:
    """Pump until a move of hand 1 is in the host's log: the hand is under way."""
    while not table.sessions[0].hand_moves:
        if not table.step():
            table.advance(table.now + 0.5)


def quit_now(table: MemoryTable, session: PeerSession, reason: str) -> None:
    session.notify("bye", {"reason": reason})  # as the REPL's `quit` does
    session.flush(table.now)
    table.run(limit=table.now + 900)


@cache
def quit_table(quitter: int, players: int) -> tuple[bytes, ...]:
    table = MemoryTable(make_settings("classic", {"deals": 2}), players, seed=7)
    to_first_move(table)
    reason = "the host closed the table" if quitter == 0 else "the player quit"
    quit_now(table, table.sessions[quitter], reason)
    return tuple(log_bytes(s) for s in table.sessions)


def test_the_host_quitting_closes_the_table_an_early_end_in_every_log(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for data in quit_table(0, 3):
        doc, out = both_ways(tmp_path, capsys, data)
        assert_early_end(doc, out, 0, "closed the table")
        assert doc["early_end"]["table_closed"] and doc["closed"].startswith("p0 (seat 0, ")
        assert doc["closed"].endswith(") closed the table"), doc["closed"]
        assert doc["hands"][0]["status"] == "void" and "p0 (seat 0" in doc["hands"][0]["text"]
        assert "hand 1: VOID" in out and "the table ended early" in out
    paths = [tmp_path / f"all{i}.pageone-log" for i in range(3)]
    for path, data in zip(paths, quit_table(0, 3), strict=True):
        path.write_bytes(data)
    code, out, _ = run(capsys, "audit", *map(str, paths))
    assert code == 3 and "comparison: OK — the 3 logs are identical" in out


def test_a_table_ended_early_is_not_rated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = tmp_path / "closed.pageone-log"
    path.write_bytes(quit_table(0, 3)[1])
    code, out, _ = run(capsys, "audit", "--rate", str(path))
    assert code == 3 and "not rated: only a table whose every log is OK" in out
    assert not (tmp_path / "data" / "pageone" / "ratings.json").exists()


def test_an_offline_game_quit_is_an_early_end_not_a_fault(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`pageone play`, then `quit` (the tester's "offline games I quit say the same")."""
    log = tmp_path / "offline.pageone-log"
    played = pageone(tmp_path, "play", "--name", "ann", "--think", "0.1", "--catch-window", "0",
                     "--log", str(log), stdin="quit\n")
    assert played.returncode == 4, played.stdout + played.stderr  # you left
    doc, out = both_ways(tmp_path, capsys, log.read_bytes())
    assert_early_end(doc, out, 0, "closed the table")
    assert doc["early_end"]["name"] == "ann"


def test_a_joiner_quitting_voids_the_hand_the_others_play_on_its_own_log_ends_early(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = quit_table(1, 3)
    doc, out = both_ways(tmp_path, capsys, logs[1])  # the quitter's own log
    assert_early_end(doc, out, 1, "as a leaver's own log does")
    assert "left the table: the player quit" in doc["early_end"]["text"]
    assert not doc["early_end"]["table_closed"] and doc["closed"] is None
    for data in (logs[0], logs[2]):  # the table played on without it
        doc, out = both_ways(tmp_path, capsys, data)
        assert doc["verdict"] == "OK" and doc["fault"] is None
        assert doc["hands"][0]["status"] == "void" and "p1 (seat 1" in doc["hands"][0]["text"]


def test_a_quit_at_a_two_seat_table_ends_it_early_naming_the_leaver_not_blaming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for data in quit_table(1, 2):
        doc, out = both_ways(tmp_path, capsys, data)
        assert_early_end(doc, out, 1, "left the table: the player quit")
        assert doc["early_end"]["table_closed"]


def test_a_silent_seat_timed_out_ends_a_two_seat_table_early_and_its_log_just_stops(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = MemoryTable(make_settings("classic", {"deals": 2}), 2, seed=8, silent_after=5.0)
    to_first_move(table)
    table.kill(1)  # its process stops without a word
    table.run(limit=table.now + 900)
    doc, out = both_ways(tmp_path, capsys, log_bytes(table.sessions[0]))
    assert_early_end(doc, out, 1, "went silent while the table waited for")
    doc, out = both_ways(tmp_path, capsys, log_bytes(table.sessions[1]))
    assert_early_end(doc, out, -1, "crashed or was killed")
    assert doc["hands"][-1]["status"] == "unfinished" and "NOT CHECKED" in out


def test_the_host_timing_itself_out_ends_the_table_early_blaming_nobody(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=5)
    to_first_move(table)
    host = table.sessions[0]
    host.notify("timeout", {"seat": 0, "waited_for": "its own keys"})
    host.flush(table.now)
    table.run(limit=table.now + 300)
    for session in table.sessions:
        doc, out = both_ways(tmp_path, capsys, log_bytes(session))
        assert_early_end(doc, out, 0, "timed itself out")


def test_a_crashed_peers_log_that_just_stops_is_an_early_end_at_any_entry(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=9)
    table.run()
    entries = table.sessions[1].log
    for count in (1, 5, len(entries) // 2, len(entries) - 1):  # lobby, coin toss, mid-game
        doc, out = both_ways(tmp_path, capsys, b"".join(map(frame, entries[:count])))
        assert_early_end(doc, out, -1, f"it stops after {count} entr")
        assert doc["early_end"]["entry"] == count
        assert "1 entry," in out if count == 1 else f"{count} entries," in out


def test_a_cheat_still_fails_naming_the_cheater_in_text_and_json(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Silent instead of revealing its seed after the play: a cheat, not a leave."""
    table = table_with(make_settings("classic", {"deals": 1}), 3, seed=62,
                       doubles={2: SilentAtReveal}, direct=True)  # seat 1 witnesses it
    table.run(limit=600)
    doc, out = both_ways(tmp_path, capsys, log_bytes(table.sessions[0]))
    assert doc["verdict"] == "FAIL" and doc["early_end"] is None
    assert doc["fault"]["seat"] == 2 and doc["fault"]["name"] == "p2"
    assert "refused to reveal its hand seed" in doc["fault"]["reason"]
    assert "verdict: FAIL at entry" in out and "p2 (seat 2" in out


def test_a_cheater_expelled_from_a_two_seat_table_fails_naming_it_not_an_early_end(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """At three seats the table plays on without an expelled cheater (the hand void, OK); at
    two it cannot: the table ends, and the expel's signed evidence names the cheater."""
    table = table_with(make_settings("classic", {"deals": 1}), 2, seed=41, doubles={1: WrongKey})
    table.run(limit=900)
    audit = audit_of(table.sessions[0])  # deferred proofs or not, the same finding
    assert audit.fault is not None and audit.early is None
    doc, out = both_ways(tmp_path, capsys, log_bytes(table.sessions[0]))
    assert doc["verdict"] == "FAIL" and doc["fault"]["seat"] == 1
    assert doc["fault"]["step"] == "deck round" and "wrong key" in doc["fault"]["reason"]
    assert doc["hands"][0]["status"] == "void" and "nobody at fault" not in out


def test_one_hand_checked_is_singular(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 2, seed=11)
    table.run()
    doc, out = both_ways(tmp_path, capsys, log_bytes(table.sessions[0]))
    assert doc["verdict"] == "OK" and "1 hand checked:" in out and "1 hands" not in out


@pytest.mark.parametrize("content, why", [
    (b"", "the file is empty"),
    (b"just some notes\n", "frame length"),
    (b"\x00\x00\x00\x03abc", "its first entry is not a pageone message"),
    (b"\x00\x00", "ends inside a frame header"),
])
def test_a_file_that_is_not_a_log_is_told_so_and_exits_2(
        content: bytes, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    for command in (["audit"], ["audit", "--json"], ["replay"], ["log", "show"]):
        code, out, err = run(capsys, *command, str(path))
        if "--json" in command:  # still one JSON document, with the error
            assert code == 2 and json.loads(out)["error"] in err, (out, err)
        else:
            assert code == 2 and out == "", (command, out)
        assert f"{path} is not a pageone log (" in err and why in err, err
        assert "table ''" not in out + err and "(?)" not in out + err
    assert audit_bytes(content).verdict == "FAIL"  # as a library call: never OK


def test_replay_and_log_show_name_the_players_who_missed_page_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = MemoryTable(make_settings("classic", {"deals": 2}), 3, seed=2,
                        levels=["random", "normal", "random"])
    table.run()
    path = tmp_path / "missed.pageone-log"
    path.write_bytes(log_bytes(table.sessions[0]))
    for command in (["replay", "--open"], ["log", "show"], ["audit"]):
        code, out, _ = run(capsys, *command, str(path))
        missed = [line for line in out.splitlines() if "missed Page One" in line]
        assert code == 0 and missed, out
        assert not any(re.search(r"\bseat \d", line) for line in missed), missed
        assert any(re.search(r"p\d missed Page One at entry \d+ \(caught by p\d\)", line)
                   for line in missed), missed


def test_replay_refuses_a_hand_or_seat_the_log_lacks_and_log_alone_says_what_to_do(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "two.pageone-log"
    path.write_bytes(quit_table(1, 3)[0])
    code, out, err = run(capsys, "replay", str(path), "--hand", "99")
    assert code == 2 and out == "", out
    assert "there is no hand 99 in this log (it has hands 1-3)" in err
    code, out, err = run(capsys, "replay", str(path), "--seat", "3")
    assert code == 2 and "there is no seat 3 at this table (seats 0-2)" in err
    code, out, err = run(capsys, "replay", str(path), "--hand", "1")
    assert code == 0 and "hand 1: VOID" in out and "hand 2:" not in out
    code, out, err = run(capsys, "log")
    assert code == 2 and "pageone log show LOG" in err and "log_command" not in err


@pytest.mark.parametrize("command, words", [
    (["replay"], "a table's log file"), (["log", "show"], "a table's log file"),
    (["ratings"], "print one JSON document"), (["replay"], "-seat N")])
def test_replay_log_show_and_ratings_explain_their_arguments(
        command: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    assert done.value.code == 0 and words in capsys.readouterr().out


def test_the_readme_lists_every_verdict_relation_and_exit_code_of_the_audit() -> None:
    text = README.read_text()
    section = text[text.index("- `pageone audit LOG"):text.index("- `pageone replay LOG")]
    rows = {line.split("|")[1].strip(): line.split("|")[3].strip()
            for line in section.splitlines() if line.strip().startswith("| `")}
    assert rows == {f"`{verdict}`": str(code) for verdict, code in (
        ("OK", EXIT_OK), ("INCOMPLETE", EXIT_INCOMPLETE), ("FAIL", EXIT_FAULT))}, rows
    assert set(VERDICTS) == {"OK", "INCOMPLETE", "FAIL"}
    for relation in RELATIONS:
        assert f"*{relation}*" in section, relation
    assert f"{EXIT_USAGE} usage (no such file, a file that is not a pageone log" in section
    for status in ("`OK`", "`VOID`", "`FAIL`", "`NOT CHECKED`"):
        assert status in section, status
