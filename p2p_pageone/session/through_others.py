"""A seat cut off from its host plays through the others (protocol/SPEC.md §7, "The way back
through the others").

A joiner whose connection to the host dropped, and whose tries at the host go unanswered, still
hears the other listening seats: they serve it the log (``logsync``). It seals what it owes the
table as any seat does, against the newest head it holds, and hands it to them; they hand it to
the host (``witnessing.hand_over``) and hold it as evidence. Kept away, it owes no step: its
``back`` goes so, and once the host logs it the seat plays on through them. A host that will
not log what the others hand it is seen not to serve the table (``witnessing.censored``); a
claim that the seat is gone is disproved by what the others hold (``fold/witness.disproof``).
"""

from __future__ import annotations

from ..crypto.envelope import seal
from ..wire.kinds import KIND_RULES
from .fold.obligations import BOUNDS
from .intents import next_intent
from .player import PlayerState, Sent
from .witnessing import blocks_what_we_owe, peers_to_tell, tell_all

TELL_AGAIN = BOUNDS.relay_after  # what we sealed so goes to the others again this often


def cut_off(s: PlayerState) -> bool:
    """We hold a seat in the running game and try to get back to a host that has not taken us
    back on a connection (none is open, or it has not answered ours)."""
    at = s.attachment
    return (not s.is_host and not s.ended and s.chain is not None and s.game is not None
            and not s.game_over and s.me in s.active and at.may_resume and at.taking_over < 0
            and (bool(at.dropped) or (at.resuming and not at.log_read)))


def play_through_others(s: PlayerState, now: float) -> None:
    """Cut off: our envelope out goes to the others (again every ``TELL_AGAIN`` s); with none
    out that the log may still take, our next one is sealed for them."""
    chain = s.chain
    if chain is None or not cut_off(s) or not peers_to_tell(s):
        return
    mesh, pipe = s.mesh, s.outbox.pipe
    seq = chain.next_seq(s.identity.public)
    if blocks_what_we_owe(s):  # a claim about us waits for another step
        pipe.clear()
    if not pipe:
        intent = next_intent(s, now)
        if intent is None or not KIND_RULES[intent[0]].relayed:
            return
        kind, data = intent
        raw = seal(s.identity, s.table_id, s.hand, seq, chain.head, kind, data)
        pipe.append(Sent(raw, kind, data, seq))
    raw = pipe[0].raw
    if raw != mesh.shared or now - mesh.told_at >= TELL_AGAIN:
        mesh.shared, mesh.told_at = raw, now
        tell_all(s, raw)

