"""A host sending old entries again cannot push a witness's receipt of its claim out of memory
(review helper-42, I2: three seats, the host dishonest and alone).

A joiner keeps at most ``receipts.KEPT`` (512) of the host's receipts, to serve a seat behind
and to show a fork. It evicted the oldest put in, and the host's stream re-inserts the receipt
of an entry it sends again (same bytes, dropped without a fault). So a host that had logged 600
chat lines of its own, cut one seat's stream (V, owing nothing) and timed it out, then sent the
witness W 512 old entries again with their true receipts, pushed W's receipt of the claim out:
W served V the claim with no receipt, V could never fold it, its sign of life stayed before it,
W's witness disproved nothing, and V was removed with nobody named. Now the lowest counts go,
and none lower than those kept comes in (``receipts.keep_highest``).
"""

from __future__ import annotations

import pytest

from p2p_pageone.byzantine import memo
from p2p_pageone.byzantine.deeds import host_appends
from p2p_pageone.byzantine.invariants import Outcome, removed_honest, watch
from p2p_pageone.byzantine.world import SimTable
from p2p_pageone.engine import make_settings
from p2p_pageone.session.fold import state
from p2p_pageone.session.fold.obligations import Duty, owed
from p2p_pageone.session.logsync import entry_frame
from p2p_pageone.session.receipts import KEPT, SPARSE, keep_highest, sign_receipt
from p2p_pageone.wire.codec import frame
from tests.stream_cut import StreamCut

W, V = 1, 2
CHAT = 600  # chat lines the host logs first, so that its log is longer than KEPT receipts


def _flush(t: SimTable, keep_below: int) -> bytes:
    """Old entries sent to W again, each with the host's (true) receipt, chosen so that W's
    receipts of counts >= ``keep_below`` are all pushed out (a model of keep_newest)."""
    host, w = t.sequencer.host, t.sessions[W]
    assert host.chain is not None
    model = list(w.mesh.receipts)
    out = []
    while any(c >= keep_below for c in model):
        present = set(model)
        c = next(c for c in range(1, keep_below) if c not in present)
        model.append(c)
        while len(model) > KEPT:
            model.pop(0)
        receipt = sign_receipt(host.identity, host.table_id, c, host.chain.head_at(c))
        out.append(frame(entry_frame(c - 1, host.log[c - 1], receipt)))
    return b"".join(out)


@pytest.mark.parametrize("mode", ["control", "attack"])
@pytest.mark.parametrize("seed", [0])
def test_a_host_evicts_the_witness_receipt_of_its_claim(
        seed: int, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # the host's 600 lines in a row name it since protocol 19 (tests/
    # test_chat_flood_outruns_the_witness.py); lifted here, the receipts must hold alone
    monkeypatch.setattr(state, "IDLE_RUN", 10_000)
    attack = StreamCut(V)  # V's stream: no entries, pings go on

    with memo.installed():
        t = SimTable(make_settings("classic", {"deals": 2}), 3, seed, route=attack)
        t.corrupt = {0}
        t.connect_honest([W, V])
        notes = {p: watch(t.sessions[p]) for p in (W, V)}
        host, w, v = t.sequencer.host, t.sessions[W], t.sessions[V]
        start = claim_at = -1
        inflated = False
        while t.now < 400 and not (w.game_over or w.ended):
            t.advance(t.now + 0.25)
            if host.game is None:
                continue
            start = len(host.log) if start < 0 else start
            if not inflated:
                for i in range(CHAT):  # the host's own chat lines: no clock counts them
                    assert host_appends(t, "say", {"text": f"line {i}"}, t.now)
                inflated = True
                continue
            if not attack.on:
                if (len(host.log) - start >= CHAT + 20 and not host.claims
                        and not host.game_over and V in host.active
                        and [(o.seat, o.duty) for o in owed(host)] == [(W, Duty.MOVE)]
                        and not v.in_flight and not v.outbox.pipe
                        and len(w.log) == len(v.log) == len(host.log)):
                    attack.on = True
                    claim_at = len(host.log)
                    assert host_appends(t, "timeout", {"seat": V, "waited_for": "nothing"},
                                        t.now)
                continue
            # while the claim is open, W never keeps a receipt for it (or anything later)
            if mode == "attack" and host.claims and len(w.log) > claim_at:
                data = _flush(t, claim_at + 1)
                if data:
                    t.send("down", 0, W, data)
        assert attack.on, "no moment where V owed nothing"
        assert len(host.log) > KEPT + 1
        outcome = Outcome(t.sessions, [W, V], notes, {0}, set(), False, 0.0)
        removed = removed_honest(outcome)
        assert V in w.active and not removed, (
            f"honest V (seat 2) removed, nobody named, host not replaced: "
            f"{[r.text for r in removed]}; V's log {len(v.log)} vs W's {len(w.log)}")


def test_old_receipts_never_push_out_newer_ones() -> None:
    kept: dict[int, bytes] = {}
    for count in range(1, 2 * KEPT + 1):
        keep_highest(kept, count, b"r%d" % count)
    dense = sorted(c for c in kept if c % SPARSE)
    assert len(dense) == KEPT and dense[-1] == 2 * KEPT - 1  # the highest, and every SPARSE-th
    assert {c for c in kept if not c % SPARSE} == set(range(SPARSE, 2 * KEPT + 1, SPARSE))
    for count in range(1, KEPT):  # sent again: none of these comes back in
        keep_highest(kept, count, b"old")
    assert sorted(c for c in kept if c % SPARSE) == dense
    keep_highest(kept, 2 * KEPT + 1, b"new")
    assert min(c for c in kept if c % SPARSE) > dense[0] and 2 * KEPT + 1 in kept
