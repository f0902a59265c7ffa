"""An ``expel``'s evidence must be sealed against a head of this log (found by review): a host
that showed one seat another pass of its own, had the seat shuffle on it and expelled it with
that shuffle had every other peer, and the audit, name the seat for a message every peer
refuses, where the evidence itself showed the host's fork."""

from __future__ import annotations

import os
from typing import Any

from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.wire.kinds import EntryKind
from tests.cheats import audit_of

VICTIM = 1


def _on_another_input(data: dict[str, Any]) -> dict[str, Any]:
    proof = data["proof"]
    assert isinstance(proof, bytes)
    return {**data, "proof": proof[:-1] + bytes([proof[-1] ^ 1])}


def test_an_expel_whose_evidence_extends_another_log_names_the_host() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 2}), 4, seed=0, direct=True)
    seq, host = table.sequencer, table.sequencer.host
    victim = table.clients[VICTIM - 1].session
    submit = seq._submit
    expelled: list[bytes] = []

    def expelling(conn: int, link: Any, raw: bytes, now: float) -> bool:
        env = open_envelope(raw)
        if expelled or env.sender != victim.identity.public or env.kind != EntryKind.SHUFFLE:
            return submit(conn, link, raw, now)
        # the seat's pass on the host's other table: sealed on a head this log never had, and
        # built on another input, so every peer's deck refuses it here
        forked = seal(victim.identity, env.table, env.hand, env.seq, os.urandom(32), env.kind,
                      _on_another_input(env.data))
        assert host.chain is not None
        expel = seal(host.identity, host.table_id, host.hand,
                     host.chain.next_seq(host.identity.public), host.chain.head, EntryKind.EXPEL,
                     {"seat": VICTIM, "reason": "a shuffle that does not check out",
                      "evidence": forked})
        expelled.append(expel)
        seq._append(open_envelope(expel), now)
        return True

    seq._submit = expelling  # type: ignore[method-assign]
    while not expelled and table.now < 600:
        if not table.step():
            table.advance(table.now + 0.5)
    for _ in range(50):
        table.step()
    other = table.clients[2].session
    assert other.ended.startswith("p0"), other.ended
    fault = audit_of(other).fault
    assert fault is not None and fault.seat == 0 and "another table" in fault.reason, fault
