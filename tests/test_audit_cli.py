"""`pageone audit`, `replay`, `log show` and `ratings` as a user runs them."""

from __future__ import annotations

import io
import json
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p_pageone.audit import ratings
from p2p_pageone.audit.check import Audit, audit_bytes
from p2p_pageone.audit.report import audit_document
from p2p_pageone.cli.main import main
from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.engine import make_settings
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.wire.codec import frame, pack


@lru_cache(maxsize=1)
def table_logs() -> tuple[bytes, ...]:
    table = MemoryTable(make_settings("classic", {"deals": 2}), 3, seed=90)
    table.run()
    return tuple(b"".join(frame(raw) for raw in s.log) for s in table.sessions)


@pytest.fixture()
def logs(tmp_path: Path) -> list[str]:
    paths = []
    for i, data in enumerate(table_logs()):
        path = tmp_path / f"p{i}.pageone-log"
        path.write_bytes(data)
        paths.append(str(path))
    return paths


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_clean_logs_audit_ok_one_line_per_hand_and_compare_identical(
        logs: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "audit", *logs)
    assert code == 0
    lines = out.splitlines()
    assert sum("hand 1: OK" in line for line in lines) == 3
    assert sum("hand 2: OK" in line for line in lines) == 3
    assert sum(line.strip().startswith("verdict: OK") for line in lines) == 3
    assert "comparison: OK — the 3 logs are identical" in out
    code, out, _ = run(capsys, "audit", "--quiet", logs[0])
    assert code == 0 and out.splitlines() == [out.splitlines()[0]]
    assert out.startswith("verdict: OK")


def test_json_document_follows_the_schema(logs: list[str],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "audit", "--json", *logs[:2])
    doc = json.loads(out)
    assert code == 0 and doc["schema"] == "pageone-audit/1" and doc["ok"] is True
    assert doc["comparison"]["relation"] == "identical"
    log = doc["logs"][0]
    assert log["verdict"] == "OK" and log["fault"] is None and log["table"]["rules"] == "classic"
    assert [h["status"] for h in log["hands"]] == ["ok", "ok"]
    assert len(log["players"]) == 3 and 1 in log["result"]["places"]
    assert all(1 <= place <= 3 for place in log["result"]["places"])
    assert {"seat", "name", "fingerprint"} == set(log["players"][0])


def test_a_shorter_log_is_a_prefix_and_fails_alone(logs: list[str], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    data = Path(logs[1]).read_bytes()
    short = tmp_path / "short.pageone-log"
    cut = len(data) - 40  # inside the last frame
    entries = audit_bytes(data).entries
    short.write_bytes(data[:cut])
    code, out, _ = run(capsys, "audit", "--json", logs[0], str(short))
    doc = json.loads(out)
    assert code == 1 and doc["comparison"]["relation"] == "prefix"
    assert doc["logs"][1]["fault"]["step"] == "framing"
    assert doc["logs"][1]["fault"]["entry"] == entries - 1


LEAVES = st.none() | st.integers(-2**63, 2**63) | st.binary(max_size=40) | st.text(max_size=10)
VALUES = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=3))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=300), st.builds(lambda v: frame(pack(v)), VALUES)))
def test_any_file_content_gives_a_verdict_never_a_traceback(data: bytes) -> None:
    for content in (data, table_logs()[0][:3000] + data):
        audit = audit_bytes(content)
        assert not audit.ok and audit.fault is not None and audit.fault.entry >= 0
        assert audit.fault.step != "internal", audit.fault


def test_garbage_and_missing_files_exit_nonzero_with_a_message(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk"
    junk.write_bytes(b"\x00\x00\x00\x05hello, not a log")
    code, out, err = run(capsys, "audit", str(junk))  # was exit 1, "table '' (?)" (issue 20)
    assert code == 2 and out == "" and "Traceback" not in out + err
    assert f"{junk} is not a pageone log (its first entry is not a pageone message" in err
    code, _, err = run(capsys, "audit", str(tmp_path / "nope"))
    assert code == 2 and "cannot read" in err
    code, _, err = run(capsys, "audit")
    assert code == 2 and "--last" in err


def test_replay_is_deterministic_and_shows_only_the_seats_cards(
        logs: list[str], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    first = run(capsys, "replay", logs[0], "--seat", "1")
    second = run(capsys, "replay", logs[0], "--seat", "1")
    assert first == second and first[0] == 0
    out = first[1]
    assert "p1's hand:" in out and "p0's hand:" not in out and "p2's hand:" not in out
    assert "as p1 (seat 1) saw it" in out and "verdict: OK" in out
    code, opened, _ = run(capsys, "replay", logs[0], "--open", "--hand", "2")
    assert code == 0 and "p0's hand:" in opened and "p2's hand:" in opened
    assert "hand 2:" in opened and "hand 1: p" not in opened
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\n\n"))  # three steps, then EOF
    code, stepped, _ = run(capsys, "replay", logs[0], "--seat", "1", "--step")
    assert code == 0 and stepped == out


def test_log_show_and_replay_summary_list_hands_players_results(
        logs: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "log", "show", logs[2])
    assert code == 0
    assert "seat 0: p0" in out and "hand 1: OK" in out and "hand 2: OK" in out
    assert out.count("dealt ") == 6 and "result: p0 place" in out
    assert run(capsys, "replay", logs[2], "--summary")[1] == out


def test_ratings_count_each_table_once_from_clean_logs_only(
        logs: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    code, out, _ = run(capsys, "audit", "--rate", *logs)
    assert code == 0 and "rated table" in out
    code, out, _ = run(capsys, "audit", "--rate", logs[1])
    assert "rated already" in out
    junk = tmp_path / "junk"
    junk.write_bytes(Path(logs[0]).read_bytes()[:-3])
    code, out, _ = run(capsys, "audit", "--rate", str(junk))
    assert code == 1 and "not rated" in out
    code, out, _ = run(capsys, "ratings", "--json")
    doc = json.loads(out)
    assert doc["tables"] == 1 and len(doc["players"]) == 3
    assert all(p["games"] == 1 for p in doc["players"])
    assert abs(sum(p["rating"] for p in doc["players"]) - 3 * ratings.START) < 0.5


def test_elo_compares_places_pairwise_and_a_tie_counts_half() -> None:
    data = ratings.empty()
    audit = Audit(table_id="t1", finished=True, places=[1, 1, 3],
                  players=[(0, "a", "A"), (1, "b", "B"), (2, "c", "C")])
    assert ratings.rate(data, audit).added
    players = data["players"]
    assert players["A"]["rating"] == players["B"]["rating"] > ratings.START
    assert players["C"]["rating"] < ratings.START
    assert abs(players["A"]["rating"] - ratings.START - 8.0) < 0.01  # half of K/2 per opponent
    assert not ratings.rate(data, audit).added  # once per table


def test_audit_last_finds_this_users_latest_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    code, _, err = run(capsys, "audit", "--last")
    assert code == 2 and "no logs" in err
    folder = tmp_path / "data" / "pageone" / "logs"
    folder.mkdir(parents=True)
    (folder / "abc-XXXX.pageone-log").write_bytes(table_logs()[0])
    code, out, _ = run(capsys, "audit", "--last")
    assert code == 0 and "abc-XXXX.pageone-log" in out and "verdict: OK" in out


def test_missed_calls_are_listed_caught_or_not_and_match_the_log() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 2}), 3, seed=2,
                        levels=["random", "normal", "random"])
    table.run()
    log = table.sessions[0].log
    audit = audit_bytes(b"".join(frame(raw) for raw in log))
    assert audit.ok
    missed = [m for line in audit.hands for m in line.missed]
    assert any(by >= 0 for _, _, by in missed) and any(by < 0 for _, _, by in missed)
    envs = [open_envelope(raw) for raw in log]
    keys = table.sessions[0].keys
    for seat, at, by in missed:
        play = envs[at]
        assert play.kind == "move" and play.data["kind"] == "play" and not play.data["call"]
        assert keys.index(play.sender) == seat
        catches = [e for e in envs[at + 1 :] if e.kind == "move" and e.data["kind"] == "catch"
                   and e.data["target"] == seat]
        if by >= 0:
            assert keys.index(catches[0].sender) == by
    doc = audit_document("x", audit)
    assert doc["hands"][0]["missed_calls"] == [
        {"seat": s, "entry": a, "caught_by": b} for s, a, b in audit.hands[0].missed]


def test_the_audit_names_a_rule_broken_without_the_rulings_ids(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from .cheats import RenegeBot, classic_table_where_cheat_struck

    table = classic_table_where_cheat_struck(RenegeBot)
    path = tmp_path / "renege.pageone-log"
    path.write_bytes(b"".join(frame(raw) for raw in table.sessions[0].log))
    code, out, _ = run(capsys, "audit", str(path))
    assert code != 0 and "follow suit instead of drawing" in out, out
    assert "(C5)" not in out and "C5" not in out, out
