"""A dishonest old host cannot get the honest new host named by ordering, before its takeover,
an entry that takes a lost signer out of the listening seats (review helper-39, I1: the
majority of a takeover out of place was judged first, but on the PRESENT state, active seats,
endpoints and last prevs; only the statements' positions were judged at the takeover's prev).
Now the listening seats are those at its prev (``fold/lost.listening_at``) and a signer's
entries after it do not make its statement stale: a majority there is no naming.

5 seats: p0 the host and p3, DISHONEST (2 of 5); p1 (successor), p2, p4 honest.
1. p0 stops talking to p1, p2, p3; it keeps serving p4.
2. p1, p2, p3 lose it (3 of 5 listening seats, a majority); p1 takes over with their three
   ``lost`` statements: its ``takeover`` sealed at the head h_k.
3. p3 is kept away in p0's log (p0 timed the cut seats out; p4 served that on the mesh). p0
   appends p3's ``back`` with endpoint "" (p3 signs it against h_k) at k, for p4 alone, then
   p1's takeover at k+1 with p0's receipt. p4 folds the back (p3 no longer listens), then the
   takeover: p3's lost statement "comes from a seat ... that listens" failed, so the takeover
   "lacked a majority" and p4 named the honest p1 (I1), live; now p4 ends naming nobody.
``control``: a ``say`` of p0's at k instead: p4 ends naming nobody.
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


@pytest.mark.parametrize("mode", ["control", "back"])
@pytest.mark.parametrize("seed", [0, 1])
def test_an_old_host_cannot_get_the_new_host_named_by_a_signer_leaving_first(
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
            if mode == "back":  # p3 kept away, and back with no endpoint: it listens no more
                assert FRIEND in host.away or host_appends(
                    t, "away", {"seat": FRIEND, "why": "its connection closed", "window": 60},
                    t.now)
                back = open_envelope(seal(friend.identity, host.table_id, host.hand,
                                          host.chain.next_seq(friend.identity.public),
                                          host.chain.head, "back", {"endpoint": ""}))
                t.guarded(HOST, lambda env=back: t.sequencer._append(env, t.now))
            else:
                host_appends(t, "say", {"text": "just the two of us"}, t.now)
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
