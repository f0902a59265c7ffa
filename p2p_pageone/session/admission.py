"""The sequencer's check before it appends an envelope to the log (protocol/SPEC.md §7).

It asks the fold's own checks (``fold.apply``), so what a sequencer appends is what every
peer's fold takes; what is added here is the sequencer's role: the table it opens, a takeover
only as its own, a seat being expelled, and the deck's checks of what a deck message carries.
Nothing here changes any state.
"""

from __future__ import annotations

from typing import Any

from ..crypto.envelope import Envelope
from ..wire.kinds import KIND_RULES, EntryKind, Signer
from .fold.apply import kind_refusal, order_refusal
from .fold.lost import majority_refusal
from .fold.presence import takeover_refusal
from .player import PlayerState


def admissible(s: PlayerState, env: Envelope) -> str | None:
    """None if the envelope may be the log's next entry, else the reason to refuse it."""
    if s.ended:
        return "the table has ended"
    if s.chain is None:
        return None if env.sender == s.identity.public and env.kind == EntryKind.TABLE else (
            "the table is not open yet")
    refusal, signer = order_refusal(s, env), KIND_RULES[env.kind].signer
    if refusal is not None or signer is Signer.NEWCOMER:
        return refusal
    if signer is Signer.SUCCESSOR:  # a live sequencer never gives its table away
        if env.sender != s.identity.public:
            return "only a new host appends takeover, as its own first entry"
        return (takeover_refusal(s, env.sender, env.data["seat"])
                or majority_refusal(s, env.data["lost"], env.sender))
    if s.expelling(s.seat_of(env.sender)):
        return "this seat is being expelled for a deck message every peer refuses"
    return deck_refusal(s, env) or kind_refusal(s, env)


def deck_refusal(s: PlayerState, env: Envelope) -> str | None:
    """What the deck's checks say of a deck message's content (points, proofs, keys, cards)."""
    seat = s.seat_of(env.sender)
    if not KIND_RULES[env.kind].deck_evidence or s.crypto is None or seat not in s.active:
        return None
    return s.crypto.refusal(env.kind, seat, env.data)


def expel_notice(s: PlayerState, env: Envelope, refusal: str) -> dict[str, Any] | None:
    """The ``expel`` a sequencer shows the table when ``refusal`` is the deck's refusal of
    another seat's deck message (that envelope is the evidence), else None."""
    if (env.sender == s.identity.public or order_refusal(s, env) is not None
            or s.expelling(s.seat_of(env.sender)) or deck_refusal(s, env) != refusal):
        return None
    return {"seat": s.seat_of(env.sender), "reason": refusal[:200], "evidence": env.raw}
