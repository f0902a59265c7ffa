"""Faults of the log's order or bytes, from a host that relays what it must refuse: the audit
names the host (the relay), never the author whose own signed ``seq`` and ``prev`` show it;
a message the author signed wrongly names the author. Two peers' logs that fork name the host."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.audit.compare import compare
from p2p_pageone.audit.logfile import read_frames
from p2p_pageone.cli.main import main
from p2p_pageone.crypto.envelope import Envelope, open_envelope, seal
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.engine import make_settings
from p2p_pageone.engine.moves import Draw
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.moves import move_data
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.wire.codec import pack, unpack

from .cheats import audit_of, log_bytes
from .helpers import forked_frame, host_frame


def until(table: MemoryTable, done: object) -> None:
    while not done():  # type: ignore[operator]
        if not table.step():
            table.now += 0.5
            table.sequencer.tick(table.now)
            for client in table.clients:
                client.tick(table.now)


def playing(table: MemoryTable) -> bool:
    s = table.sessions[1]
    return bool(s.game and s.hand_known() and s.game.chance is None and s.game.deal.turn >= 0
                and s.game.deal.moves > 2)


def relay(table: MemoryTable, raw: bytes) -> None:
    """The host appends ``raw`` without any check (as a cheating sequencer would)."""
    table.sequencer._append(open_envelope(raw) if _opens(raw) else _unchecked(raw), table.now)


def _opens(raw: bytes) -> bool:
    try:
        open_envelope(raw)
    except Exception:
        return False
    return True


def _unchecked(raw: bytes) -> Envelope:
    body = unpack(unpack(raw)[1])
    return Envelope(raw, body["from"], body["table"], body["hand"], body["seq"], body["prev"],
                    body["type"], body["data"])


def test_an_out_of_turn_move_relayed_by_the_host_names_its_author() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=70)
    until(table, lambda: playing(table))
    host = table.sessions[0]
    turn = host.game.deal.turn
    liar_seat = next(s for s in (1, 2) if s != turn)
    liar = table.sessions[liar_seat]
    raw = seal(liar.identity, liar.table_id, liar.hand, host.chain.next_seq(liar.identity.public),
               host.chain.head, "move", move_data(Draw(liar_seat), []))
    position = len(host.log)
    relay(table, raw)
    table.run(limit=table.now + 60)
    honest = table.sessions[3 - liar_seat]
    assert honest.ended.startswith(f"p{liar_seat} (seat {liar_seat}"), honest.ended
    audit = audit_of(honest)
    assert audit.fault is not None and audit.fault.seat == liar_seat
    assert audit.fault.entry == position and audit.fault.step == "move"
    assert "not your turn" in audit.fault.reason


def test_a_replayed_message_names_the_host_not_its_author() -> None:
    table = MemoryTable(make_settings("qdan"), 3, seed=71)
    until(table, lambda: playing(table))
    host = table.sessions[0]
    old = next(raw for raw in host.log if open_envelope(raw).sender == table.sessions[2]
               .identity.public and open_envelope(raw).kind == "ready")
    position = len(host.log)
    relay(table, old)
    table.run(limit=table.now + 60)
    for session in table.sessions[1:]:
        assert session.ended.startswith("p0 (seat 0"), session.ended
        audit = audit_of(session)
        assert audit.fault is not None and audit.fault.seat == 0 and audit.fault.entry == position
        assert audit.fault.step == "chain" and "its author is not to blame" in audit.fault.reason


def test_a_forged_signature_names_the_host_not_the_claimed_author() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=72)
    until(table, lambda: playing(table))
    host, victim = table.sessions[0], table.sessions[2]
    mallory = Identity(random.Random(1).randbytes(32))
    raw = seal(mallory, host.table_id, host.hand, host.chain.next_seq(victim.identity.public),
               host.chain.head, "say", {"text": "I resign"})
    _, body, signature = unpack(raw)
    header = unpack(body)
    header["from"] = victim.identity.public
    forged = pack([victim.identity.public, pack(header), signature])
    position = len(host.log)
    host.log.append(forged)  # the cheating host writes it into the log it relays
    table.sequencer.out += [(conn, host_frame(table.sequencer, position, forged))
                            for conn in table.sequencer.links]
    table.run(limit=table.now + 30)
    for session in table.sessions[1:]:
        assert session.ended.startswith("p0 (seat 0"), session.ended
        audit = audit_of(session)
        assert audit.fault is not None and audit.fault.seat == 0 and audit.fault.entry == position
        assert audit.fault.step == "signature"
        assert "p2" not in audit.fault.reason and audit.fault.seat != 2


def test_a_host_that_forks_the_table_is_named_with_both_entries(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = MemoryTable(make_settings("qdan"), 3, seed=73)
    until(table, lambda: playing(table))
    host: PeerSession = table.sessions[0]
    position = len(host.log)
    seq, prev = host.chain.next_seq(host.identity.public), host.chain.head
    other = seal(host.identity, host.table_id, host.hand, seq, prev, "say", {"text": "for p2"})
    host.say("for p1")
    host.flush(table.now)
    table.sequencer._pump(table.now)
    said = host.log[position]
    shown = host_frame(table.sequencer, position, said)
    instead = forked_frame(host, host.log[:position], other)
    table.sequencer.out = [(conn, instead if conn == 2 and data == shown else data)
                           for conn, data in table.sequencer.out]
    table.run(limit=table.now + 60)
    one, two = log_bytes(table.sessions[1]), log_bytes(table.sessions[2])
    assert table.sessions[2].ended.startswith("p0 (seat 0")  # its next message was refused
    audits = [audit_bytes(one), audit_bytes(two)]
    result = compare(["one", "two"], [read_frames(one).entries, read_frames(two).entries], audits)
    assert result.relation == "fork" and result.fork_entry == position and not result.ok
    assert result.host_seat == 0 and "p0 (seat 0" in result.text
    texts = {entry["log"]: entry for entry in result.entries}
    assert texts["one"]["type"] == texts["two"]["type"] == "say"
    assert texts["one"]["seq"] == texts["two"]["seq"] == seq
    (tmp_path / "one").write_bytes(one)
    (tmp_path / "two").write_bytes(two)
    assert main(["audit", str(tmp_path / "one"), str(tmp_path / "two")]) == 1
    out = capsys.readouterr().out
    assert f"comparison: FAIL — fork at entry {position}" in out and "host p0 (seat 0" in out
