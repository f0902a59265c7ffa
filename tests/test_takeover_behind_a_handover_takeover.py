"""A dishonest old host and one friend cannot get the honest new host named (review helper-40,
I1 until a takeover out of place was first asked whether the fold can still tell the table at
its prev, ``fold/lost.known_at``: another host or a handover since, and it ends naming nobody).
The attack: the old host hands
the table over (its handover ``bye``) to the friend, whose ``takeover`` needs no majority, and
then orders the honest successor's takeover (a majority's) after it. ``check_takeover`` judges
``takeover_refusal`` against the PRESENT state (the host is the friend now, so "a takeover
names the seat of the table's host" fails) and raises a ``ProtocolError`` that names the
takeover's author, before the majority (judged at its prev) and the place are looked at.

5 seats: p0 the host and p3, DISHONEST (2 of 5); p1 (successor), p2, p4 honest.
1. At the end of hand 1 (between hands, so a takeover starts no new hand while heads are
   missing), p0 stops talking to p1, p2, p3; it keeps serving p4.
2. p1, p2, p3 lose it (3 of 5 listening seats); p1 takes over: ``takeover`` T1, prev h_k.
3. For p4 alone (over the mesh, from p3, with receipts p0 and then p3 sign): p0's ``bye``
   handing the table over at L, p3's ``takeover`` (lost: []) at L+1, then p1's T1 at L+2.
4. p4 folded the bye and p3's takeover (host: p3), then T1, and named p1. The fold now ends
   naming nobody there; and before it, p4 names p0, whose receipt came with p3's takeover (a
   host never appends another seat's takeover, ``logsync.anothers_takeover``).
"""

from __future__ import annotations

import pytest

from p2p_pageone.byzantine import memo
from p2p_pageone.byzantine.frames import without
from p2p_pageone.byzantine.invariants import watch
from p2p_pageone.byzantine.world import Frame, SimTable
from p2p_pageone.crypto.envelope import extend, open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.session.fold.lost import HANDOVER
from p2p_pageone.session.logsync import ANOTHERS_TAKEOVER, entry_frame
from p2p_pageone.session.receipts import sign_receipt

PLAYERS, SUCCESSOR, FRIEND, KEPT = 5, 1, 3, 4  # p0 keeps serving p4 only
CUT = (1, 2, 3)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_handover_takeover_before_the_honest_one_does_not_name_the_new_host(
        seed: int) -> None:
    state: dict[str, object] = {"cut": False, "mute": False, "host": None}

    def route(fr: Frame, now: float) -> list[tuple[float, bytes]]:
        host = state["host"]
        if (not state["cut"] and host is not None and host.hand_end is not None  # type: ignore
                and host.hand == 1):  # type: ignore[attr-defined]
            state["cut"] = True  # p0 cuts at the end of hand 1, before the heads
        if state["mute"] and fr.src == 0:
            return []
        if state["cut"] and ((fr.src == 0 and fr.dst in CUT) or (fr.dst == 0 and fr.src in CUT)):
            return []
        if state["cut"] and fr.dst == 0 and fr.channel == "up":  # what p4 relays for them
            data = without(fr.data, "up", "relay:")
            return [(0.0, data)] if data else []
        return [(0.0, fr.data)]

    with memo.installed():
        t = SimTable(make_settings("classic", {"deals": 2}), PLAYERS, seed, route=route)
        t.corrupt = {0, FRIEND}
        honest = [1, 2, 4]
        t.connect_honest([1, 2, 3, 4])  # p3 follows the table as an honest seat would
        notes = {p: watch(t.sessions[p]) for p in honest}
        host, friend, kept = t.sequencer.host, t.sessions[FRIEND], t.sessions[KEPT]
        state["host"] = host
        served = False
        while t.now < 900:
            t.advance(t.now + 0.25)
            if not state["cut"] or served or SUCCESSOR not in t.hosts:
                continue
            new_log = t.sessions[SUCCESSOR].log
            kinds = [open_envelope(raw).kind for raw in new_log]
            if "takeover" not in kinds:
                continue
            takeover = new_log[kinds.index("takeover")]
            state["mute"] = served = True  # p0 is done
            chain = kept.chain
            assert chain is not None and not kept.ended
            assert chain.position(open_envelope(takeover).prev) is not None
            assert kept.hand_end is not None, "p4 is not between hands"
            table, hand, at = kept.table_id, kept.hand, len(kept.log)
            bye = seal(host.identity, table, hand, chain.next_seq(host.identity.public),
                       chain.head, "bye", {"reason": HANDOVER})
            head1 = extend(chain.head, bye)
            handed = seal(friend.identity, table, hand, chain.next_seq(friend.identity.public),
                          head1, "takeover", {"seat": 0, "window": 60, "lost": []})
            head2 = extend(head1, handed)
            receipt = sign_receipt(host.identity, table, at + 2, head2)
            t._enqueue("mesh", FRIEND, KEPT, entry_frame(at, bye), 0.0)
            t._enqueue("mesh", FRIEND, KEPT, entry_frame(at + 1, handed, receipt), 0.0)
            t.advance(t.now + 0.1)
            if kept.ended:  # the host receipted p3's takeover: p4 names it as it comes
                assert ANOTHERS_TAKEOVER in kept.ended and kept.ended.startswith("p0 (seat 0")
                served = True
                break
            assert len(kept.log) == at + 2 and kept.host_key == friend.identity.public, (
                f"p4 did not fold the handover: {kept.ended}")
            receipt = sign_receipt(friend.identity, table, at + 3, extend(head2, takeover))
            t._enqueue("mesh", FRIEND, KEPT, entry_frame(at + 2, takeover, receipt), 0.0)
            t.advance(t.now + 0.1)
            for _ in range(20):
                t.advance(t.now + 0.25)
            break
        assert served, "p1 never took over"
        named = {p: notes[p].named for p in honest if notes[p].named}
        assert not any(seat == SUCCESSOR for entries in named.values() for seat, _ in entries), (
            f"an honest seat named the honest new host p1: {named}")
