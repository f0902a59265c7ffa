"""A dishonest old host that orders the new host's ``takeover`` one place after its prev gets
nobody honest named (review helper-37, I1: an honest seat named the honest new host for a fork
through ``logsync._receipt_of_ours``, whose premise is that every entry a seat folded its host
receipted: before a takeover, the old host did). A takeover sits right after its prev now, or
the log parts from the new host's naming nobody (``fold/presence.check_takeover``).

5 seats: p0 the host, DISHONEST (1 of 5); p1 (successor), p2, p3, p4 honest.
1. p0 stops talking to p1, p2, p3 (and drops what p4 relays for them); it keeps serving p4.
2. p1, p2, p3 lose it (3 of 5 listening seats); p1 takes over: its ``takeover`` at index k.
3. p0 (with the takeover's bytes, from any follower of p1) appends a ``say`` of its own at k
   for p4 alone, then serves p4 p1's ``takeover`` at k+1 with its own receipt of k+2 entries.
4. p4 served its log on the mesh to p3 (behind, its host still p0), which folded the say and the
   takeover and then, reading a receipt of p1's for a length it held, named p1 "for a fork".
"""

from __future__ import annotations

import pytest

from p2p_pageone.byzantine import memo
from p2p_pageone.byzantine.deeds import host_appends
from p2p_pageone.byzantine.frames import without
from p2p_pageone.byzantine.invariants import watch
from p2p_pageone.byzantine.world import Frame, SimTable
from p2p_pageone.crypto.envelope import extend, open_envelope
from p2p_pageone.engine import make_settings
from p2p_pageone.session.logsync import entry_frame
from p2p_pageone.session.receipts import sign_receipt
from p2p_pageone.wire.codec import frame as wire_frame

PLAYERS, SUCCESSOR, KEPT = 5, 1, 4  # p0 keeps serving p4 only
CUT = (1, 2, 3)


@pytest.mark.parametrize("seed", [0, 1])
def test_an_old_host_cannot_get_the_new_host_named_with_its_takeover_out_of_place(
        seed: int) -> None:
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
        t.corrupt = {0}
        honest = [1, 2, 3, 4]
        t.connect_honest(honest)
        notes = {p: watch(t.sessions[p]) for p in honest}
        host = t.sequencer.host
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
            host_appends(t, "say", {"text": "just the two of us"}, t.now)  # at the takeover's k
            at = len(host.log)  # k + 1
            assert host.chain is not None
            receipt = sign_receipt(host.identity, host.table_id, at + 1,
                                   extend(host.chain.head, takeover))
            t._enqueue("down", 0, KEPT, wire_frame(entry_frame(at, takeover, receipt)), 0.0,
                       t.links.conn_of(KEPT))
            t.step()
            state["mute"] = served = True  # p0 is done
        assert served, "p1 never took over"
        named = {p: notes[p].named for p in honest if notes[p].named}
        assert not any(seat == SUCCESSOR for entries in named.values() for seat, _ in entries), (
            f"an honest seat named the honest new host p1: {named}")
