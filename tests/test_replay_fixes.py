"""Replay and audit fixes from the newcomer's trial of issue 20: void hands replayed, draws
grouped, the game's end-of-hand line, late Page One calls, a JSON error, logs one entry short."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.audit.report import text_lines
from p2p_pageone.bots import make_bot
from p2p_pageone.cli.main import main
from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.engine.moves import Call, Play
from p2p_pageone.engine.settings import make_settings
from p2p_pageone.session.memory import MemoryTable, make_peer
from p2p_pageone.wire.codec import frame


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
