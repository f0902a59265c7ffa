"""A seat the host cut off from its stream and buried under a long log still answers a claim
about it (review helper-44, I2: three seats, the host dishonest and alone).

The host cuts seat V's stream (entries only; pings go on) while V owes nothing, then grows the
log by thousands of entries it may make alone: 60 chat lines (the most in a row), then an
``away`` for the other seat W, connected, whose ``back`` resets the run, again and again. Then
it times V out. W serves V the log at each of its signs of life, but no seat folds thousands of
entries before a witness must answer: V was still far behind the claim after 20 s, W answered
with nothing, and V was removed with nobody named.

Now W also hands V its newest receipt of the host's, alone; V's sign of life names the head that
receipt names (``read``), beyond what it folded; and that head, after the claim in the log,
disproves the claim as a sign of life from after it does (``fold/witness.disproof``).
"""

from __future__ import annotations

import pytest

from p2p_pageone.byzantine import memo
from p2p_pageone.byzantine.deeds import host_appends
from p2p_pageone.byzantine.world import SimTable
from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.engine import make_settings
from p2p_pageone.session.fold import state
from p2p_pageone.session.fold.obligations import Duty, owed
from tests.stream_cut import StreamCut

W, V = 1, 2
GROWN = 4000  # entries the host adds before its claim: far more than a seat folds in 20 s
LINES = 60  # chat lines between two aways (protocol 19's limit of chat in a row)


def _inflate(t: SimTable) -> None:
    host = t.sequencer.host
    start, n = len(host.log), 0
    while len(host.log) - start < GROWN:
        for _ in range(LINES):
            assert host_appends(t, "say", {"text": f"line {n}"}, t.now)
            n += 1
        assert host_appends(t, "away", {"seat": W, "why": "its connection closed",
                                        "window": 60}, t.now)
        stop = t.now + 2.0
        while W in host.away and t.now < stop:  # honest W says back at once
            t.advance(t.now + 0.05)
        assert W not in host.away, "W did not come back"


def test_a_seat_far_behind_disproves_a_claim_with_the_receipt_it_was_handed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # lifted: the receipt alone must hold (since protocol 20 an away or a back no longer ends
    # the run of idle entries, so this flood names the host at its 61st entry)
    monkeypatch.setattr(state, "IDLE_RUN", 10_000)
    cut = StreamCut(V)  # V's stream: no entries, pings go on

    with memo.installed():
        t = SimTable(make_settings("classic", {"deals": 2}), 3, 0, route=cut)
        t.corrupt = {0}
        t.connect_honest([W, V])
        host, w, v = t.sequencer.host, t.sessions[W], t.sessions[V]
        claim_at = -1
        while t.now < 400 and claim_at < 0:
            t.advance(t.now + 0.25)
            if (host.game is not None and len(host.log) > 40 and not host.claims
                    and [(o.seat, o.duty) for o in owed(host)] == [(W, Duty.MOVE)]
                    and not v.in_flight and not v.outbox.pipe
                    and len(w.log) == len(v.log) == len(host.log)):
                cut.on = True
                _inflate(t)
                claim_at = len(host.log)
                assert host_appends(t, "timeout", {"seat": V, "waited_for": "nothing"}, t.now)
        assert claim_at >= 0, "no moment where V owed nothing"
        answered = b""
        while t.now < 400 and not answered and not w.ended:
            t.advance(t.now + 0.25)
            answered = next((env.data["heard"] for env in map(open_envelope, w.log[claim_at:])
                             if env.kind == "witness" and env.data["at"] == claim_at), b"")
        assert answered, "W never answered the claim with what V showed it"
        assert len(v.log) < claim_at  # V had not folded the claim: it read it by the receipt
        assert V in w.refuted and V in w.active and not w.ended
