"""What a witness keeps of another seat on the mesh (found by review, helper-33 B): it kept the
last eight envelopes of each seat, whatever they were, so a host's friend that sent an honest
witness sixteen old, logged envelopes of a victim's pushed out the victim's step the host had
swallowed (or its Page One call), and the host's claim about it stood. Another seat can replay a
seat's old envelopes but never sign its next: the lowest number goes first now."""

from __future__ import annotations

from p2p_pageone.byzantine.deeds import sealed_by
from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.session import witnessing
from tests.test_host_cannot_frame import _mid_hand, _run_until, _table

VICTIM, WITNESS = 2, 1


def test_old_envelopes_replayed_push_out_no_unlogged_step() -> None:
    table = _table(seed=1)
    _run_until(table, lambda: _mid_hand(table))
    victim, witness = table.sessions[VICTIM], table.sessions[WITNESS]
    key = victim.identity.public
    step = sealed_by(victim, "say", {"text": "the step the host swallowed"})
    assert step is not None
    witness.direct(step.raw, table.now)
    old = [raw for raw in witness.log if open_envelope(raw).sender == key]
    assert len(old) > witnessing.KEPT, "too few of the victim's entries: pick another seed"
    for _ in range(3):  # replayed again and again
        for raw in old:
            witness.direct(raw, table.now)
    kept = [env.raw for _, env in witness.mesh.held[key]]
    assert step.raw in kept
    assert len(kept) == witnessing.KEPT
    assert len(set(kept)) == len(kept)  # a copy received twice is kept once
