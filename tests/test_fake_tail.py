"""Seats other than the host cannot show a seat an order the host did not sign (SPEC §7, "The
log from the others"; §8).

Up to protocol 14 a seat took entries from the mesh as far as more than half of the other
listening seats but the host said, in their signs of life, they held them. With the host
honest, those others can all be dishonest (at four seats they are two, half the table): they
sealed a chat line never given to the host against the seat's head and vouched for it; the
seat folded it, and when the honest host logged its real next entry there, the seat ended
naming the host for a fork, and `pageone audit` named it too (an attacker's review, helper-26).
Now an entry is taken from the mesh only as far as a receipt the host signed says.
"""

from __future__ import annotations

import pytest

from p2p_pageone.crypto.envelope import extend, genesis, seal
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.crypto.statements import seal_statement
from p2p_pageone.engine import make_settings
from p2p_pageone.session.fold.entrylog import EntryLog
from p2p_pageone.session.fold.obligations import BOUNDS, Duty, owed
from p2p_pageone.session.logsync import NotServing, entry_frame
from p2p_pageone.session.memory import MemoryTable, make_peer
from p2p_pageone.session.receipts import HostReceipts, receipt_refusal, sign_receipt
from p2p_pageone.wire.codec import frame


def _table_waiting_on_seat_one(players: int) -> MemoryTable:
    settings = make_settings("classic", {"deals": 2})
    peers = [make_peer("fake-tail/0", "p0", host_table=("memory", settings, players))]
    peers += [make_peer(f"fake-tail/{i}", f"p{i}") for i in range(1, players)]
    peers[1].autoplay = False  # seat 1 thinks over its move: the host logs nothing meanwhile
    table = MemoryTable(settings, players, peers=peers, direct=True)
    host = table.sessions[0]
    for _ in range(40000):
        if host.game is not None and any(o.seat == 1 and o.duty is Duty.MOVE
                                         for o in owed(host)):
            break
        table.advance(table.now + 0.25)
    else:
        raise AssertionError("the table never waited for seat 1's move")
    table.advance(table.now + BOUNDS.relay_after + 1.0)
    return table


@pytest.mark.parametrize("players", [3, 4, 6])
def test_the_others_word_for_an_entry_the_host_never_signed_is_not_taken(players: int) -> None:
    table = _table_waiting_on_seat_one(players)
    host, victim = table.sessions[0], table.sessions[players - 1]
    coalition = range(1, players // 2 + 1)  # with the host honest: half the table
    assert victim.chain is not None and len(victim.log) == len(host.log)
    length = len(victim.log)
    author = table.sessions[max(coalition)]
    fake = seal(author.identity, victim.table_id, victim.hand,
                victim.chain.next_seq(author.identity.public), victim.chain.head, "say",
                {"text": "never given to the host"})
    for seat in coalition:  # each vouches, signed, for a log one entry longer
        victim.direct(seal_statement(table.sessions[seat].identity, "alive", {
            "table": victim.table_id, "index": length + 1,
            "head": extend(victim.chain.head, fake)}), table.now)
    victim.direct(entry_frame(length, fake), table.now)
    assert len(victim.log) == length  # not taken: no receipt of the host's says so
    table.sessions[1].autoplay = True  # seat 1 moves; the host logs it in that place
    table.sessions[1].wake()
    for _ in range(200):
        table.advance(table.now + 0.25)
    assert len(host.log) > length and victim.log[length] == host.log[length] != fake
    assert not victim.ended and not host.ended


def test_a_receipt_names_its_signer_table_length_and_head() -> None:
    host, other = Identity(b"h" * 32), Identity(b"o" * 32)
    table = b"t" * 16
    log = [b"first entry", b"second entry"]
    heads = [genesis(table)]
    for raw in log:
        heads.append(extend(heads[-1], raw))
    receipts = HostReceipts(host, table)
    good = receipts.of(EntryLog(log), 1)
    assert receipts.of(EntryLog(log[:1]), 1, log[1]) == good  # entry 1 not in the log yet
    assert receipt_refusal(good, host.public, table, 2, heads[2]) is None
    assert "without" in str(receipt_refusal(b"", host.public, table, 2, heads[2]))
    assert "not the host's" in str(receipt_refusal(good, other.public, table, 2, heads[2]))
    assert "another log" in str(receipt_refusal(good, host.public, table, 2, heads[1]))
    assert "that entry" in str(receipt_refusal(good, host.public, table, 1, heads[2]))
    forged = sign_receipt(other, table, 2, heads[2])
    assert "not the host's" in str(receipt_refusal(forged, host.public, table, 2, heads[2]))
    assert receipts.of(EntryLog(log), 0) == sign_receipt(host, table, 1, heads[1])


def test_a_host_entry_without_its_receipt_is_the_host_not_serving() -> None:
    table = _table_waiting_on_seat_one(3)
    seat = table.sessions[2]
    assert seat.chain is not None
    raw = seal(table.sessions[0].identity, seat.table_id, seat.hand,
               seat.chain.next_seq(table.sessions[0].identity.public), seat.chain.head, "say",
               {"text": "no receipt"})
    with pytest.raises(NotServing, match="without the host's receipt"):
        seat.from_host(len(seat.log), raw, table.now)


def test_a_host_entry_beyond_a_gap_waits_for_its_receipt() -> None:
    table = _table_waiting_on_seat_one(3)
    host, seat = table.sessions[0], table.sessions[2]
    length = len(seat.log)
    host.say("one")
    host.flush(table.now)
    table.sequencer._pump(table.now)
    first = host.log[length]
    other = table.sessions[1]  # an entry of another seat's (the host's own receipt itself)
    assert other.chain is not None
    second = seal(other.identity, seat.table_id, seat.hand,
                  other.chain.next_seq(other.identity.public), extend(seat.chain.head, first),
                  "say", {"text": "two"})
    seat.from_host(length + 1, second, table.now)  # ahead of a gap, and no receipt with it
    seat.from_host(length, first, table.now, table.sequencer.receipt(length),
                   host.identity.public)
    assert len(seat.log) == length + 1  # the one beyond the gap waits for the host's receipt
    receipt = sign_receipt(host.identity, seat.table_id, length + 2,
                           extend(seat.chain.head, second))
    seat.direct(entry_frame(length + 1, second, receipt), table.now)
    assert len(seat.log) == length + 2 and seat.log[length + 1] == second


def test_a_receipt_not_the_hosts_is_dropped_as_it_comes() -> None:
    table = _table_waiting_on_seat_one(4)
    seat, liar = table.sessions[3], table.sessions[1]
    assert seat.chain is not None
    length = len(seat.log)
    fake = seal(liar.identity, seat.table_id, seat.hand,
                seat.chain.next_seq(liar.identity.public), seat.chain.head, "say", {"text": "x"})
    receipt = sign_receipt(liar.identity, seat.table_id, length + 1,
                           extend(seat.chain.head, fake))
    seat.direct(entry_frame(length, fake, receipt), table.now)
    assert length + 1 not in seat.mesh.pending and len(seat.log) == length


def test_a_host_that_will_not_sign_its_entries_is_left_for_the_next_seat() -> None:
    table = _table_waiting_on_seat_one(3)
    host, client = table.sessions[0], table.clients[1]
    seat = client.session
    assert seat.chain is not None
    raw = seal(host.identity, seat.table_id, seat.hand, seat.chain.next_seq(host.identity.public),
               seat.chain.head, "say", {"text": "unsigned place"})
    client.receive(frame(entry_frame(len(seat.log), raw)), table.now)
    left = seat.attachment.dropped or seat.ended  # (it follows the table to the next seat
    assert "did not sign the place of what it sent us" in left  # where a takeover can be)
