"""A seat is named for refusing its seed reveal only if it read where its reveal had to go
(found by review): a host that held a seat's chat line past the hand's end, ignored the reveal
the seat then sealed at that line's number, logged the old line (so the reveal could never be
logged) and cut the seat off before it read that, had it named, live and by the audit."""

from __future__ import annotations

from typing import Any

from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.wire.codec import frame, pack, unpack
from p2p_pageone.wire.kinds import EntryKind
from tests.cheats import audit_of

VICTIM, WITNESS = 2, 1


def _run_until(table: MemoryTable, done: Any, limit: float = 3600.0) -> None:
    while not done() and table.now < limit:
        if not table.step():
            table.advance(table.now + 0.5)


class HoldingHost:
    """The host holds the witness's last card a moment and the victim's chat line, then
    ignores the victim's reveal; from entry ``cut`` on it sends the victim nothing."""

    def __init__(self, table: MemoryTable) -> None:
        self.table, self.seq = table, table.sequencer
        self.vkey = table.clients[VICTIM - 1].session.identity.public
        self.wkey = table.clients[WITNESS - 1].session.identity.public
        self.ending: tuple[Any, ...] | None = None
        self.chat = b""
        self.cut = -1
        self.swallow = self.released = False
        self.submit, self.relayed, self.step = self.seq._submit, self.seq._relayed, table.step
        self.seq._submit = self._submit  # type: ignore[method-assign]
        self.seq._relayed = self._relayed  # type: ignore[method-assign]
        table.step = self._step  # type: ignore[method-assign]

    def _submit(self, conn: int, link: Any, raw: bytes, now: float) -> bool:
        env, game = open_envelope(raw), self.seq.host.game
        if (not self.released and env.sender == self.wkey and env.kind == EntryKind.MOVE
                and env.data["kind"] == "play" and game is not None
                and len(game.deal.hands[WITNESS]) == 1):
            self.ending = (conn, link, raw)
            return True
        if env.sender == self.vkey and env.kind == EntryKind.SAY and not self.chat:
            self.chat = raw
            return True
        if env.sender == self.vkey and self.swallow:
            return True
        return self.submit(conn, link, raw, now)

    def _relayed(self, raw: bytes, now: float) -> bool:
        if self.swallow and open_envelope(raw).sender == self.vkey:
            return False
        return self.relayed(raw, now)

    def _step(self) -> bool:
        if self.cut >= 0:
            kept = []
            for conn, data in self.seq.out:
                value = unpack(data[4:])
                if not (conn == VICTIM and isinstance(value, dict)
                        and value.get("control") == "entry" and value["index"] >= self.cut):
                    kept.append((conn, data))
            self.seq.out = kept
        return self.step()


def test_a_seat_that_never_read_its_old_line_go_in_is_not_named_for_its_reveal() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 3}), 3, seed=0, direct=True)
    seq, host = table.sequencer, table.sequencer.host
    victim, witness = (table.clients[VICTIM - 1].session, table.clients[WITNESS - 1].session)
    attack = HoldingHost(table)
    _run_until(table, lambda: attack.ending is not None, limit=900)
    assert attack.ending is not None and host.hand_end is None and not host.claims
    victim.say("gg")
    victim.flush(table.now)
    _run_until(table, lambda: bool(attack.chat), limit=table.now + 5)
    attack.released = attack.swallow = True
    attack.submit(*attack.ending, table.now)  # the hand ends; the victim's reveal is due
    _run_until(table, lambda: any(e.sender == attack.vkey and e.kind == EntryKind.SEED_REVEAL
                                  for _, e in witness.mesh.held.get(attack.vkey, [])),
               limit=table.now + 20)
    _run_until(table, lambda: set(host.seed_reveals) == set(host.active) - {VICTIM},
               limit=table.now + 10)
    assert host.chain is not None
    cut = len(host.log)
    say = seal(host.identity, host.table_id, host.hand, host.chain.next_seq(host.identity.public),
               host.chain.head, EntryKind.SAY, {"text": "well played"})
    seq._append(open_envelope(say), table.now)
    attack.cut = cut
    table.clients[VICTIM - 1].receive(  # the victim reads entry `cut` and nothing after it
        frame(pack({"control": "entry", "index": cut + 1, "raw": b"junk"})), table.now)
    seq._append(open_envelope(attack.chat), table.now)  # its old line takes the reveal's number
    seq._timeout(VICTIM, "its hand seed reveal", table.now)
    assert any(c.seat == VICTIM and c.reveal for c in host.claims)
    _run_until(table, lambda: bool(witness.ended) or (len(witness.log) > cut + 2
                                                      and not witness.claims),
               limit=table.now + 30)
    fault = audit_of(witness).fault
    assert fault is None or fault.seat != VICTIM, fault
    assert not witness.ended or "p2" not in witness.ended.split(" ")[0], witness.ended
