"""The host's receipts against a host that lies with them (found by review): two receipts of
the host's for one place that name two logs are its fork, and an entry of the host's stream
beyond a gap that is no envelope never shadows the entry the others serve there."""

from __future__ import annotations

import os
from typing import Any

from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.session.logsync import entry_frame
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.receipts import sign_receipt
from p2p_pageone.wire.codec import frame, pack, unpack
from p2p_pageone.wire.kinds import EntryKind

VICTIM, WITNESS = 2, 1


def _run_until(table: MemoryTable, done: Any, limit: float = 3600.0) -> None:
    while not done() and table.now < limit:
        if not table.step():
            table.advance(table.now + 0.5)


def _quiet_mid_hand(table: MemoryTable) -> bool:
    host = table.sequencer.host
    game = host.game
    return (game is not None and game.chance is None and not host.game_over
            and host.hand_end is None and game.deal.moves >= 2 and not host.claims
            and all(o.seat != VICTIM for o in host.owed()))


def test_a_host_that_receipts_a_log_it_never_had_is_named_for_its_fork() -> None:
    # The host skips entry b for the victim and sends it the later ones with receipts of a
    # made-up head, then times it out; the witness serves the victim the real entries with
    # the host's real receipts. The first receipt for a place used to stand, so the victim
    # never read the claim and was removed, nobody named
    table = MemoryTable(make_settings("classic", {"deals": 3}), 3, seed=5, direct=True)
    seq, host = table.sequencer, table.sequencer.host
    victim = table.clients[VICTIM - 1].session
    cut: list[int] = []
    step = table.step

    def lying_step() -> bool:
        if cut:
            out = []
            for conn, data in seq.out:
                value = unpack(data[4:])
                if conn == VICTIM and isinstance(value, dict) and value.get("control") == "entry":
                    if value["index"] == cut[0] or value["index"] > cut[0] + 95:
                        continue
                    if value["index"] > cut[0]:
                        bogus = sign_receipt(host.identity, host.table_id, value["index"] + 1,
                                             os.urandom(32))
                        data = frame(entry_frame(value["index"], value["raw"], bogus))
                out.append((conn, data))
            seq.out = out
        return step()

    table.step = lying_step  # type: ignore[method-assign]
    _run_until(table, lambda: _quiet_mid_hand(table))
    cut.append(len(host.log))
    assert host.chain is not None
    before = host.chain.head
    for kind, data in ((EntryKind.SAY, {"text": "hello"}),
                       (EntryKind.TIMEOUT, {"seat": VICTIM, "waited_for": "sent nothing"})):
        raw = seal(host.identity, host.table_id, host.hand,
                   host.chain.next_seq(host.identity.public), before, kind, data)
        seq._append(open_envelope(raw), table.now)
    _run_until(table, lambda: bool(victim.ended), limit=table.now + 40)
    assert "signed two receipts" in victim.ended and victim.ended.startswith("p0"), victim.ended


def test_an_empty_entry_from_the_host_beyond_a_gap_is_malformed_data() -> None:
    # an entry frame with no entry in it used to wait there, and the run from the mesh then
    # looked it up as an offered one: KeyError, the seat's session down
    table = MemoryTable(make_settings("classic", {"deals": 2}), 3, seed=5, direct=True)
    host = table.sequencer.host
    _run_until(table, lambda: host.game is not None and host.game.deal.moves >= 2)
    client = table.clients[VICTIM - 1]
    length = len(client.session.log)
    client.receive(frame(pack({"control": "entry", "index": length + 1, "raw": b""})),
                   table.now)
    assert not client.session.mesh.host_ahead
    for _ in range(200):
        if not table.step():
            table.advance(table.now + 0.5)
    assert len(client.session.log) > length or client.session.ended
