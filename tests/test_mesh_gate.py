"""What a listener hands its session of a proven peer's mesh frame (session/mesh_gate.py): the
real listener and the in-memory tables share one rule, so a simulated seat can show another
only what it could on the network (a connection speaks for the key it proved), and an entry
for a place our log has comes through when the host's receipt is with it (it may show the
host's fork)."""

from __future__ import annotations

from p2p_pageone.crypto.envelope import seal
from p2p_pageone.crypto.statements import seal_statement
from p2p_pageone.engine import make_settings
from p2p_pageone.session.logsync import entry_frame
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.mesh_gate import Admit, admit
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.session.receipts import sign_receipt
from p2p_pageone.wire.codec import pack

from .test_reconnect import mid_hand


def _mid_game() -> tuple[MemoryTable, PeerSession, PeerSession, PeerSession]:
    t = MemoryTable(make_settings("classic", {"deals": 2}), 3, seed=23)
    mid_hand(t, 2)
    return t, t.sessions[0], t.sessions[1], t.sessions[2]


def _chat(author: PeerSession) -> bytes:
    assert author.chain is not None
    return seal(author.identity, author.table_id, author.hand,
                author.chain.next_seq(author.identity.public), author.chain.head, "say",
                {"text": "hello"})


def test_a_connection_speaks_for_the_key_it_proved() -> None:
    _, _, sender, reader = _mid_game()
    key = sender.identity.public
    assert admit(reader, _chat(sender), key) is Admit.TAKE
    assert admit(reader, _chat(reader), key) is Admit.DROP  # another seat's envelope
    alive = seal_statement(sender.identity, "alive", {"table": sender.table_id, "index": 3,
                                                     "head": b"\0" * 32})
    assert admit(reader, alive, key) is Admit.TAKE
    assert admit(reader, alive, reader.identity.public) is Admit.DROP  # another's sign of life
    assert admit(reader, b"\xc1garbage", key) is Admit.DROP
    assert admit(reader, pack({"control": "ping"}), key) is Admit.DROP


def test_entries_within_reach_are_taken_and_one_we_hold_only_with_the_hosts_receipt() -> None:
    t, host, _, reader = _mid_game()
    key = t.sessions[1].identity.public
    at = len(reader.log)
    behind = at - 1
    receipt = t.sequencer.receipts.of(host.log, behind)
    assert admit(reader, entry_frame(behind, host.log[behind]), key) is Admit.KNOWN
    assert admit(reader, entry_frame(behind, host.log[behind - 1]), key) is Admit.DROP
    # a copy of what we hold, with a receipt naming our head: an honest server's stale batch,
    # neither handed on nor counted; a receipt of another head for that place may be a fork
    assert admit(reader, entry_frame(behind, host.log[behind], receipt), key) is Admit.KNOWN
    other = sign_receipt(host.identity, host.table_id, behind + 1, b"\1" * 32)
    assert admit(reader, entry_frame(behind, host.log[behind], other), key) is Admit.HOLD
    far = entry_frame(at + 500, host.log[behind])
    assert admit(reader, far, key) is Admit.DROP  # out of reach
    first, second = entry_frame(at, _chat(t.sessions[1])), entry_frame(at, _chat(host))
    assert admit(reader, first, key) is Admit.TAKE
    reader.direct(first, t.now)  # held there, waiting for the host's receipt
    assert admit(reader, second, key) is Admit.HOLD  # another for that place: counted
