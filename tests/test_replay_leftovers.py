"""Issue 20's leftovers: protocol/SPEC.md §9 says what the audit does, step by step, verdict by
verdict, field by field (and §7 what a joiner is told and what the advert carries); `pageone
replay --step` on lines asks on the terminal and quits on q; replay's hand lines are the audit's,
by name; an offline game's logs never say "you"."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pexpect
import pytest

from p2p_pageone.audit.check import STEPS, audit_bytes
from p2p_pageone.audit.logfile import read_frames
from p2p_pageone.cli.audit_cmd import EXIT_FAULT, EXIT_INCOMPLETE, EXIT_OK, EXIT_USAGE
from p2p_pageone.cli.replay_screen import frames
from p2p_pageone.cli.step_keys import STEP_PROMPT
from p2p_pageone.cli.table_cmds import advert_fields
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.engine import make_settings
from p2p_pageone.net.discovery import Advertiser
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.session.sequencer import Client
from p2p_pageone.wire.codec import frame

from .cheats import log_bytes
from .test_audit_verdicts import both_ways, quit_table, run
from .test_polish import _table_after_a_quit

SPEC = Path(__file__).resolve().parent.parent / "protocol" / "SPEC.md"


def section(number: int) -> str:
    text = SPEC.read_text()
    start = text.index(f"\n## {number}. ")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def words(text: str) -> str:
    return " ".join(text.split())


def table_rows(text: str, header: str) -> list[list[str]]:
    """The rows of the Markdown table whose header row starts with ``| header |``."""
    lines = text[text.index(f"| {header} |"):].splitlines()
    rows = []
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


# --- 1. SPEC §9 is the audit, one to one ---------------------------------------------------------


def test_the_spec_lists_every_step_of_the_audit_in_its_order() -> None:
    steps = [row[0].strip("`") for row in table_rows(section(9), "step")]
    assert steps == list(STEPS)
    assert "end of log" not in steps  # a log that stops is an early end, not a fault


def test_the_spec_gives_each_verdict_its_exit_code_and_usage_its_own() -> None:
    rows = {row[0].strip("`"): row[2] for row in table_rows(section(9), "verdict")}
    assert rows == {"OK": str(EXIT_OK), "INCOMPLETE": str(EXIT_INCOMPLETE),
                    "FAIL": str(EXIT_FAULT)}
    text = words(section(9))
    assert (f"{EXIT_USAGE} a usage error (no such file, a file that is not a pageone log, "
            "nothing to audit") in text
    assert f"{EXIT_INCOMPLETE} no `FAIL`, but a log is `INCOMPLETE`" in text
    assert "exits 2 (a usage error" in text  # a file that is not a log gets no verdict


def _last_entry(data: bytes) -> bytes:
    return read_frames(data).entries[-1]


def test_an_entry_after_the_table_ended_fails_naming_the_host_and_no_early_end(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = quit_table(0, 3)[0]
    closed, _ = both_ways(tmp_path, capsys, data)
    assert closed["verdict"] == "INCOMPLETE" and closed["early_end"]["table_closed"]
    doc, out = both_ways(tmp_path, capsys, data + frame(_last_entry(data)))
    assert doc["verdict"] == "FAIL" and doc["early_end"] is None and doc["closed"] is None
    fault = doc["fault"]
    assert (fault["entry"], fault["step"], fault["seat"]) == (closed["entries"], "table", 0)
    assert "an entry after the table ended" in fault["reason"]
    assert "nobody at fault" not in out


def _keys(value: Any, path: str = "") -> set[tuple[str, str]]:
    """Every (object, key) of a JSON document; settings and scores are data, not fields."""
    found: set[tuple[str, str]] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            found.add((path, key))
            if key not in ("options", "scores"):
                found |= _keys(item, key)
    elif isinstance(value, list):
        for item in value:
            found |= _keys(item, path)
    return found


def _schema_object(schema: str, field: str) -> list[str]:
    """The keys the SPEC's schema gives the object ``"field": null | {…}``."""
    body = re.search(rf'"{field}": null \| \{{(.*?)\}}', schema, re.S)
    assert body is not None, field
    return re.findall(r'"(\w+)":', body.group(1))


def test_the_spec_json_schema_is_the_documents_the_audit_prints(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    block = re.search(r'```\n(\{"schema".*?)```', section(9), re.S)
    assert block is not None
    schema = block.group(1)
    closed = quit_table(0, 3)
    paths = [tmp_path / f"log{i}.pageone-log" for i in range(2)]
    paths[0].write_bytes(closed[1])  # INCOMPLETE: the host closed the table
    data = closed[0]
    paths[1].write_bytes(data + frame(_last_entry(data)))  # FAIL
    code, out, _ = run(capsys, "audit", "--json", *map(str, paths))
    document = json.loads(out)
    assert code == EXIT_FAULT and [log["verdict"] for log in document["logs"]] == [
        "INCOMPLETE", "FAIL"]
    incomplete, failed = document["logs"]
    for _, key in _keys(document):
        assert f'"{key}"' in schema, key
    assert sorted(_schema_object(schema, "early_end")) == sorted(incomplete["early_end"])
    assert sorted(_schema_object(schema, "fault")) == sorted(failed["fault"])
    for value in ("OK", "INCOMPLETE", "FAIL"):
        assert f'"{value}"' in schema.split('"verdict":', 1)[1].split('"entries"', 1)[0]


def test_the_spec_says_what_a_joiner_is_told_in_a_game_under_way() -> None:
    table = _table_after_a_quit()
    told = []
    for identity in (table.sessions[2].identity, Identity(bytes(range(32)))):  # leaver, stranger
        joiner = PeerSession(identity, "again", random.Random(1).randbytes)
        table.clients.append(Client(joiner, table.now))
        table.sequencer.connect(len(table.clients), table.now)
        for _ in range(5):
            table.step()
        assert joiner.ended.startswith("the host refused to seat us: "), joiner.ended
        told.append(joiner.ended.removeprefix("the host refused to seat us: "))
    assert told == ["the game is under way and you left it: your seat was given up",
                    "the game is under way: it takes no new players"]
    text = words(section(7))
    for reason in told:
        assert f'"{reason}"' in text, reason


def test_the_spec_names_every_txt_field_of_the_advert() -> None:
    table = _table_after_a_quit()
    fields = {**advert_fields(table.sessions[0], "alice"), "name": "alice's table"}
    info = Advertiser("127.0.0.1", 7000, table.sessions[0].identity.fingerprint)._service_info(
        fields)
    sent = {key.decode() for key in info.properties}
    transport = words(section(7)).split("**Transport.**", 1)[1].split("it updates", 1)[0]
    named = set(re.findall(r"`(\w+)`", transport.split("TXT fields", 1)[1]))
    states = {"lobby", "playing", "over"}
    assert named - states == sent, (named, sent)
    assert fields["state"] == "playing" and fields["left"] and states <= named
    assert "the first 9 characters of each leaver's fingerprint, comma-separated" in transport


# --- 2. replay --step on lines: a prompt on the terminal, q quits --------------------------------


@cache
def played_log(tmp: Path) -> Path:
    """A 3-seat classic game played to its end (audit OK)."""
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=11)
    table.run()
    path = tmp / "played.pageone-log"
    path.write_bytes(log_bytes(table.sessions[0]))
    return path


def _env(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "XDG_CONFIG_HOME": str(home / "cfg"),
            "XDG_DATA_HOME": str(home / "data"), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
            "TERM": "xterm", "PYTHONUNBUFFERED": "1"}


def _replay(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "p2p_pageone.cli.main", "replay", *args],
                          input=stdin, capture_output=True, text=True, timeout=120,
                          env=_env(home), check=False)


def test_step_on_the_plain_replay_asks_on_the_terminal_and_q_quits(tmp_path: Path) -> None:
    log = played_log(tmp_path)
    child = pexpect.spawn(sys.executable, ["-m", "p2p_pageone.cli.main", "replay", str(log),
                                           "--plain", "--step", "--open"],
                          env=_env(tmp_path), encoding="utf-8", timeout=30, dimensions=(24, 80))
    child.expect_exact(STEP_PROMPT)
    assert "hand 1: p" in child.before and "'s hand: " in child.before  # the deal, then it asks
    child.send("\r")  # Enter: the next move, and the prompt again
    child.expect_exact(STEP_PROMPT)
    assert re.search(r"p\d plays ", child.before), child.before
    child.send(" ")  # any key but q goes on
    child.expect_exact(STEP_PROMPT)
    child.send("q")  # q quits at once, without Enter
    child.expect(pexpect.EOF, timeout=10)
    assert "verdict:" not in (child.before or "") and "Traceback" not in (child.before or "")
    child.close()
    assert child.exitstatus == EXIT_OK  # the audit's exit code: the log is a whole game


def test_step_with_the_output_piped_asks_on_the_terminal_not_in_the_output(
        tmp_path: Path) -> None:
    log, out = played_log(tmp_path), tmp_path / "out.txt"
    command = (f"'{sys.executable}' -m p2p_pageone.cli.main replay '{log}' --step "
               f"> '{out}'")  # output to a file, input and the prompt on the terminal
    child = pexpect.spawn("/bin/sh", ["-c", command], env=_env(tmp_path), encoding="utf-8",
                          timeout=30, dimensions=(24, 80))
    for _ in range(3):
        child.expect_exact(STEP_PROMPT)
        child.send("\r")
    child.expect_exact(STEP_PROMPT)
    child.send("q")
    child.expect(pexpect.EOF, timeout=10)
    child.close()
    written = out.read_text()
    assert child.exitstatus == EXIT_OK and STEP_PROMPT not in written
    assert written.startswith("table ") and "hand 1: p" in written
    assert len(re.findall(r"^  p\d (plays|draws|wins)", written, re.M)) >= 3, written
    assert "verdict:" not in written  # it quit before the end


def test_step_reading_lines_quits_on_q_and_shows_the_rest_at_the_end_of_input(
        tmp_path: Path) -> None:
    log = played_log(tmp_path)
    whole = _replay(tmp_path, str(log))
    assert whole.returncode == EXIT_OK and whole.stdout.rstrip().splitlines()[-1].startswith(
        "verdict: OK")
    quit_early = _replay(tmp_path, str(log), "--step", stdin="\n\nq\n")
    assert quit_early.returncode == EXIT_OK and STEP_PROMPT not in quit_early.stdout
    assert whole.stdout.startswith(quit_early.stdout) and "verdict:" not in quit_early.stdout
    assert 0 < len(quit_early.stdout) < len(whole.stdout)
    to_the_end = _replay(tmp_path, str(log), "--step", stdin="\n")  # then the input ends
    assert to_the_end.stdout == whole.stdout and to_the_end.returncode == EXIT_OK


# --- 3. replay's hand lines are the audit's, by name ---------------------------------------------


def _unnamed(line: str) -> str:
    """``line`` without its ``NAME (seat N`` mentions: what is left must not say 'seat N'."""
    return re.sub(r"[\w-]+ \(seat \d+", "", line)


def _hand_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()
            if re.match(r"\s*hand \d+: (OK|VOID|FAIL|NOT CHECKED)", line)]


@pytest.mark.parametrize("which", ["void", "missed"])
def test_replay_hand_lines_are_the_audits_by_name(which: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    if which == "void":  # a joiner quit in hand 1: void, the table played on
        data = quit_table(1, 3)[0]
    else:  # careless CPU players: missed calls, caught and not
        table = MemoryTable(make_settings("classic", {"deals": 2}), 3, seed=2,
                            levels=["random", "normal", "random"])
        table.run()
        data = log_bytes(table.sessions[0])
    path = tmp_path / "game.pageone-log"
    path.write_bytes(data)
    _, audited, _ = run(capsys, "audit", str(path))
    expected = _hand_lines(audited)
    assert expected and all(not re.search(r"\bseat \d", _unnamed(line)) for line in expected)
    assert ("VOID" in audited) == (which == "void") and (
        "missed Page One" in audited) == (which == "missed")
    audit = audit_bytes(data)
    story = frames(audit, None, True)[1]
    screen = "\n".join("".join(text for _, text in line) for line in story)
    for command in (["replay", "--plain"], ["replay", "--plain", "--open"],
                    ["replay", "--plain", "--seat", "2"], ["replay", "--summary"],
                    ["log", "show"]):
        _, out, _ = run(capsys, *command, str(path))
        assert _hand_lines(out) == expected, (command, out)
    assert _hand_lines(screen) == expected


# --- 4. an offline game's player has the user's name: never "you wins" ---------------------------


def test_an_offline_games_logs_name_the_user_never_you(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    env = {**_env(tmp_path), "LOGNAME": "zoe", "USER": "zoe"}
    logs = [tmp_path / "played.pageone-log", tmp_path / "quit.pageone-log"]
    for log, extra, stdin in ((logs[0], ["--autoplay"], ""), (logs[1], [], "quit\n")):
        done = subprocess.run([sys.executable, "-m", "p2p_pageone.cli.main", "play", *extra,
                               "--bots", "2", "--deals", "2", "--seed", "3", "--think", "0",
                               "--catch-window", "0", "--log", str(log)],
                              input=stdin, capture_output=True, text=True, timeout=180,
                              env=env, check=False)
        assert done.returncode in (0, 4), done.stdout + done.stderr
    said = []
    for log in logs:
        for command in (["audit"], ["audit", "--json"], ["replay", "--plain"],
                        ["replay", "--plain", "--open"], ["replay", "--plain", "--seat", "0"],
                        ["replay", "--summary"], ["log", "show"]):
            said.append(run(capsys, *command, str(log))[1])
    for out in said:
        assert not re.search(r"\byou\b", out, re.I), out
    assert json.loads(said[1])["logs"][0]["players"][0]["name"] == "zoe"
    assert re.search(r"\bzoe (plays|draws|wins|deals)", said[2]), said[2]
    assert "zoe (seat 0, " in said[7] and "closed the table" in said[7]  # the quit, by name
