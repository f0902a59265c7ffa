"""Signed order (protocol/SPEC.md §7 "Signed order", §9): every peer signs the log head at each
hand's end and the next hand starts only when all agree; a host that shows two peers two orders
is named at that agreement, and the audit of their logs shows the fork with the host's own
signed receipts of both histories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.audit.compare import compare
from p2p_pageone.audit.logfile import read_frames
from p2p_pageone.cli.main import main
from p2p_pageone.crypto.envelope import Envelope, extend, genesis, open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.wire.codec import frame

from .cheats import log_bytes
from .helpers import forked_frame, host_frame


def _kinds(log: list[bytes]) -> list[Envelope]:
    return [open_envelope(raw) for raw in log]


def test_every_peer_signs_the_head_each_hand_ended_on_before_the_next_starts() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 2}), 3, seed=5)
    table.run(limit=3000)
    log = table.sessions[1].log
    assert all(s.game_over and not s.ended for s in table.sessions)
    assert all(s.log == log for s in table.sessions)
    envs = _kinds(log)
    heads = [(at, env) for at, env in enumerate(envs) if env.kind == "head"]
    assert len(heads) == 6  # each hand's end, the last one's too, by each seat
    assert all(env.kind == "head" for env in envs[-3:])  # the game ends on the agreement
    for hand, round_ in ((1, heads[:3]), (2, heads[3:])):
        first = round_[0][0]
        head = genesis(envs[0].table)
        for raw in log[:first]:
            head = extend(head, raw)
        assert envs[first - 1].kind == "seed_reveal"
        assert {env.sender for _, env in round_} == {s.identity.public for s in table.sessions}
        assert all(env.data == {"index": first, "head": head} and env.hand == hand
                   for _, env in round_)
    next_hand = next(at for at, env in enumerate(envs) if env.hand == 2)
    assert next_hand > heads[2][0]  # hand 2's first message only once every head is in
    assert audit_bytes(log_bytes(table.sessions[1])).ok


def _step_until(table: MemoryTable, done: Callable[[], bool]) -> None:
    """Deliver and tick in the smallest steps, stopping as soon as ``done()``."""
    for _ in range(100_000):
        if done():
            return
        if not table.step():
            table.now += 0.5
            table.sequencer.tick(table.now)
            for client in table.clients:
                client.tick(table.now)
    raise AssertionError("the table never got there")


def _until_both_reveals(table: MemoryTable) -> list[Envelope]:
    """Run the table until the sequencer has appended the hand-1 seed reveals of seats 1 and 2,
    and stop before it relays them."""
    sequencer, host = table.sequencer, table.sessions[0]
    reveals: list[Envelope] = []
    append = sequencer._append

    def spy(env: Envelope, now: float) -> None:
        if env.kind == "seed_reveal" and env.hand == 1 and env.sender != host.identity.public:
            reveals.append(env)
        append(env, now)

    sequencer._append = spy  # type: ignore[method-assign]
    while len(reveals) < 2:
        if not table.step() and len(reveals) < 2:
            table.now += 0.5
            sequencer.tick(table.now)
            for client in table.clients:
                client.tick(table.now)
    sequencer._append = append  # type: ignore[method-assign]
    return reveals


def test_a_host_showing_two_orders_is_named_at_the_hands_end_with_its_receipts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = MemoryTable(make_settings("classic", {"deals": 3}), 3, seed=5)
    host = table.sessions[0]
    r1, r2 = _until_both_reveals(table)
    assert r1.prev == r2.prev  # written at the same time: either order is a valid log
    at = host.log.index(r1.raw)
    assert host.log[at + 1] == r2.raw
    own = open_envelope(host.log[-1])
    assert own.kind == "head" and own.sender == host.identity.public  # the host's receipt
    # The forking host shows seat 2 the other order, and signs that history too, under the
    # same sequence number, so seat 2's chain holds and it plays on.
    head = genesis(host.table_id)
    for raw in host.log[:at]:
        head = extend(head, raw)
    other = extend(extend(head, r2.raw), r1.raw)
    forged = seal(host.identity, host.table_id, own.hand, own.seq, other, "head",
                  {"index": at + 2, "head": other})
    last = len(host.log) - 1

    def entry(index: int, raw: bytes) -> bytes:
        return host_frame(table.sequencer, index, raw)

    before = host.log[:at]
    swap = {entry(at, r1.raw): forked_frame(host, before, r2.raw),
            entry(at + 1, r2.raw): forked_frame(host, [*before, r2.raw], r1.raw),
            entry(last, own.raw): forked_frame(
                host, [*before, r2.raw, r1.raw, *host.log[at + 2:last]], forged)}
    table.sequencer.out = [(conn, swap.get(data, data) if conn == 2 else data)
                           for conn, data in table.sequencer.out]
    table.run(limit=table.now + 3000)

    one, two = table.sessions[1], table.sessions[2]
    assert two.log[at:at + 3] == [r2.raw, r1.raw, forged]  # its own order, receipted
    assert two.ended.startswith("p0 (seat 0") and two.hand == 1  # no hand 2 for it
    # The host's next receipt names the real order, not the one it showed: seat 2 leaves
    # naming it (the refusal of its own signed head, which follows, no longer overwrites why)
    assert "names another log than the one it sent" in two.ended
    assert not one.ended and one.game_over  # seat 2 left; the game went on without it

    data = [log_bytes(one), log_bytes(two)]
    audits = [audit_bytes(d) for d in data]
    result = compare(["one", "two"], [read_frames(d).entries for d in data], audits)
    assert result.relation == "fork" and result.fork_entry == at and result.host_seat == 0
    assert result.signed and "it signed both" in result.text
    receipts = {r["log"]: r for r in result.receipts}
    assert receipts["one"]["type"] == receipts["two"]["type"] == "head"
    assert receipts["one"]["seq"] == receipts["two"]["seq"] == own.seq
    assert receipts["one"]["covers"] == receipts["two"]["covers"] == at + 2
    for name, blob in (("one", data[0]), ("two", data[1])):
        (tmp_path / name).write_bytes(blob)
    assert main(["audit", str(tmp_path / "one"), str(tmp_path / "two")]) == 1
    out = capsys.readouterr().out
    assert f"comparison: FAIL — fork at entry {at}" in out and "host p0 (seat 0" in out
    assert "it signed both" in out


def _resigned_head(table: MemoryTable, seat: int, prev_of: str) -> tuple[list[bytes], int]:
    """An honest log with ``seat``'s first signed head replaced by a wrong one, sealed against
    the head it saw then (``prev_of="same"``) or against its own reveal's (``"reveal"``)."""
    log = list(table.sessions[1].log)
    envs = _kinds(log)
    who = table.sessions[seat].identity
    at = next(i for i, env in enumerate(envs) if env.kind == "head" and env.sender == who.public)
    env = envs[at]
    reveal = next(e for e in reversed(envs[:at]) if e.kind == "seed_reveal"
                  and e.sender == who.public)
    prev = env.prev if prev_of == "same" else reveal.prev
    log[at] = seal(who, env.table, env.hand, env.seq, prev, "head",
                   {"index": env.data["index"], "head": bytes(32)})
    return log[: at + 1], at


@pytest.mark.parametrize(("prev_of", "named"), [("same", 1), ("reveal", 0)])
def test_a_wrong_head_names_its_signer_or_the_host_by_what_its_prev_shows(
        prev_of: str, named: int) -> None:
    """A wrong head sealed over the hand's end is its signer's lie (it held this very log); one
    sealed before it differs where only the sequencer ordered the log."""
    table = MemoryTable(make_settings("classic", {"deals": 2}), 3, seed=5)
    table.run(limit=3000)
    log, at = _resigned_head(table, 1, prev_of)
    audit = audit_bytes(b"".join(frame(raw) for raw in log))
    assert audit.fault is not None
    assert (audit.fault.entry, audit.fault.step, audit.fault.seat) == (at, "log head", named)


def test_a_seat_silent_at_the_head_round_leaves_and_the_hand_played_stands() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 3}), 4, seed=8)
    host = table.sessions[0]
    _step_until(table, lambda: host.hand_end is not None)
    table.kill(3)  # gone before its head reached the host
    table.run(limit=table.now + 3000)
    one = table.sessions[1]
    assert one.game_over and not one.ended and one.active == [0, 1, 2]
    left = [e for e in one.events if e.kind == "left"]
    assert len(left) == 1 and left[0].data["seat"] == 3 and "void" not in left[0].text
    assert 3 in one.game.results[0].scores  # hand 1 was scored with every seat
    envs = _kinds(one.log)
    timeout = next(i for i, env in enumerate(envs) if env.kind == "timeout")
    # kept for its return first (a silent connection may come back), then timed out
    assert envs[timeout].hand == 1 and [e.kind for e in envs[timeout - 2:timeout]] == [
        "head", "away"]
    audit = audit_bytes(log_bytes(one))
    assert audit.ok and [line.status for line in audit.hands] == ["ok", "ok", "ok"]
    assert "then p3 (seat 3" in audit.hands[0].text


def test_the_sequencer_refuses_a_head_not_due_or_not_its_own() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 2}), 3, seed=5)
    host, one = table.sessions[0], table.sessions[1]
    assert host.chain is not None

    def head_of(index: int, head: bytes) -> Envelope:
        assert host.chain is not None
        raw = seal(one.identity, host.table_id, host.hand, host.chain.next_seq(
            one.identity.public), host.chain.head, "head", {"index": index, "head": head})
        return open_envelope(raw)

    _step_until(table, lambda: host.hand >= 1)
    assert host.admissible(head_of(3, bytes(32))) == (
        "a log head is signed once, at the end of a hand")
    _step_until(table, lambda: host.hand_end is not None)
    index, head = host.hand_end
    assert host.admissible(head_of(index, bytes(32))) == (
        "that is not the head this log reached at the end of the hand")
    assert host.admissible(head_of(index, head)) is None
