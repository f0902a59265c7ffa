"""A dishonest host cannot hide its own claim from the seat it is about (review helper-38, I2).

Since an entry of the host's own receipts only what comes before its ``prev`` (never itself,
``logsync.receipted``), a seat served over the mesh folds a host entry only with a receipt for
its place or a LATER host entry; the host decides both. 3 seats: p0 the host, DISHONEST; p1 = W
and p2 = V honest.
1. At a moment the table waits for W's move (V owes nothing), p0 stops sending log entries on
   its stream to W and V (its connections stay up: pings are answered).
2. p0 appends ``timeout`` of V (at c) and a ``say`` of its own (c+1), and hands W its log over
   the mesh WITHOUT receipts. W folds the claim (the say after it is a later host entry), but
   holds no receipt for it.
3. W served V the claim alone, with no receipt and no later host entry: V could not fold it,
   its signs of life stayed at the claim's position (no disproof), W witnessed nothing, and V
   was removed, nobody named, the host not replaced.
Now a seat serves the entries it holds ahead of its log too (``logsync._held_ahead``): V gets
the say after the claim, folds the claim as W did, and its sign of life disproves it.

``control``: p0 hands W the claim WITH receipts: V folds it and the claim falls.
"""

from __future__ import annotations

import pytest

from p2p_pageone.byzantine import memo
from p2p_pageone.byzantine.deeds import host_appends
from p2p_pageone.byzantine.frames import without
from p2p_pageone.byzantine.invariants import Outcome, removed_honest, watch
from p2p_pageone.byzantine.world import Frame, SimTable
from p2p_pageone.engine import make_settings
from p2p_pageone.session.fold.obligations import Duty, owed
from p2p_pageone.session.logsync import entry_frame
from p2p_pageone.session.receipts import sign_receipt

W, V = 1, 2


@pytest.mark.parametrize("mode", ["control", "attack"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_host_cannot_hide_its_claim_from_the_seat_it_is_about(seed: int, mode: str) -> None:
    state = {"attack": False}

    def route(fr: Frame, now: float) -> list[tuple[float, bytes]]:
        if state["attack"] and fr.src == 0 and fr.channel == "down" and fr.dst in (W, V):
            data = without(fr.data, "down", "entry:")  # the stream's entries, nothing else
            return [(0.0, data)] if data else []
        return [(0.0, fr.data)]

    with memo.installed():
        t = SimTable(make_settings("classic", {"deals": 2}), 3, seed, route=route)
        t.corrupt = {0}
        t.connect_honest([W, V])
        notes = {p: watch(t.sessions[p]) for p in (W, V)}
        host, w, v = t.sequencer.host, t.sessions[W], t.sessions[V]
        start = claim_at = closed_at = -1
        while t.now < 400 and not (w.game_over or w.ended):
            t.advance(t.now + 0.25)
            if host.game is None:
                continue
            start = len(host.log) if start < 0 else start
            if not state["attack"]:
                if (len(host.log) - start >= 20 and not host.claims and not host.game_over
                        and V in host.active
                        and [(o.seat, o.duty) for o in owed(host)] == [(W, Duty.MOVE)]
                        and not v.in_flight and not v.outbox.pipe
                        and len(w.log) == len(v.log) == len(host.log)):
                    state["attack"] = True
                    claim_at = len(host.log)
                    assert host_appends(t, "timeout", {"seat": V, "waited_for": "nothing"},
                                        t.now)
                    assert host_appends(t, "say", {"text": "during the round"}, t.now)
                continue
            if closed_at < 0 and not host.claims:
                closed_at = len(host.log)
            assert host.chain is not None
            for i in range(len(w.log), len(host.log)):  # p0 -> W over the mesh
                signed = mode == "control" or closed_at >= 0 or i < claim_at
                receipt = sign_receipt(host.identity, host.table_id, i + 1,
                                       host.chain.head_at(i + 1)) if signed else b""
                t.send("mesh", 0, W, entry_frame(i, host.log[i], receipt))
        assert state["attack"], "no moment where V owed nothing"
        outcome = Outcome(t.sessions, [W, V], notes, {0}, set(), False, 0.0)
        removed = removed_honest(outcome)
        assert V in w.active and not removed, (
            f"honest V (seat 2) removed, nobody named, host not replaced: "
            f"{[r.text for r in removed]}; V's log {len(v.log)} vs W's {len(w.log)}")
