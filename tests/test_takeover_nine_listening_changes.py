"""Helper-39's attack with nine listening changes between the prev and the takeover (review
helper-40, I1 until the fold asked whether it still keeps who listened at the takeover's prev,
``fold/lost.known_at``; it ends naming nobody when not). ``note_listening`` keeps who listened
before only the last eight changes, so ``listening_at`` for an older prev answered with the
oldest one kept, the table as it was AFTER the first change: p3's ``back`` with endpoint ""
(then away and back "" eight times more) was held against p3's ``lost`` statement again, the
takeover "lacked a majority" and p4 named the honest new host p1.

5 seats: p0 the host and p3, DISHONEST (2 of 5); p1 (successor), p2, p4 honest. As in
tests/test_takeover_majority_judged_after_a_leave.py, but nine (away, back "") pairs of p3's
at k.. for p4 alone, then p1's takeover with p0's receipt.
"""

from __future__ import annotations

import pytest

from p2p_pageone.byzantine import memo
from p2p_pageone.byzantine.deeds import host_appends
from p2p_pageone.byzantine.frames import without
from p2p_pageone.byzantine.invariants import watch
from p2p_pageone.byzantine.world import HOST, Frame, SimTable
from p2p_pageone.crypto.envelope import extend, open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.session.logsync import entry_frame
from p2p_pageone.session.receipts import sign_receipt
from p2p_pageone.wire.codec import frame as wire_frame

PLAYERS, SUCCESSOR, FRIEND, KEPT = 5, 1, 3, 4  # p0 keeps serving p4 only
CUT = (1, 2, 3)


@pytest.mark.parametrize("mode", ["many"])
@pytest.mark.parametrize("seed", [0, 1])
def test_nine_listening_changes_before_an_out_of_place_takeover(
        seed: int, mode: str) -> None:
    state = {"cut": False, "mute": False}

    def route(fr: Frame, now: float) -> list[tuple[float, bytes]]:
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
        host, friend = t.sequencer.host, t.sessions[FRIEND]
        start, served = -1, False
        while t.now < 600:
            t.advance(t.now + 0.5)
            if start < 0 and host.game is not None:
                start = len(host.log)
            if start >= 0 and not state["cut"] and len(host.log) - start >= 12:
                state["cut"] = True
            if not state["cut"] or served or SUCCESSOR not in t.hosts:
                continue
            new_log = t.sessions[SUCCESSOR].log
            kinds = [open_envelope(raw).kind for raw in new_log]
            if "takeover" not in kinds:
                continue
            takeover = new_log[kinds.index("takeover")]
            lost = open_envelope(takeover).data["lost"]
            assert host.chain is not None
            assert open_envelope(takeover).prev == host.chain.head, "p0 moved on after the cut"
            for _ in range(9):  # p3 back with no endpoint, then eight times more: the
                # table as it was at h_k is no longer among the changes kept
                assert FRIEND in host.away or host_appends(
                    t, "away", {"seat": FRIEND, "why": "its connection closed", "window": 60},
                    t.now)
                back = open_envelope(seal(friend.identity, host.table_id, host.hand,
                                          host.chain.next_seq(friend.identity.public),
                                          host.chain.head, "back", {"endpoint": ""}))
                t.guarded(HOST, lambda env=back: t.sequencer._append(env, t.now))
            assert len(host.listening_before) == 8 and host.listening_before[0][0] > (
                host.chain.position(open_envelope(takeover).prev))
            at = len(host.log)  # k + 1
            receipt = sign_receipt(host.identity, host.table_id, at + 1,
                                   extend(host.chain.head, takeover))
            t._enqueue("down", 0, KEPT, wire_frame(entry_frame(at, takeover, receipt)), 0.0,
                       t.links.conn_of(KEPT))
            t.step()
            state["mute"] = served = True  # p0 is done
            for _ in range(20):
                t.advance(t.now + 0.25)
            break
        assert served, "p1 never took over"
        assert len(lost) == 3  # p1, p2, p3: a majority of the 5 listening seats at h_k
        named = {p: notes[p].named for p in honest if notes[p].named}
        assert not any(seat == SUCCESSOR for entries in named.values() for seat, _ in entries), (
            f"an honest seat named the honest new host p1: {named}")
