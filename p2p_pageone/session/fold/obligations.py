"""The table's duties, in one place (protocol/SPEC.md §7, "Who owes what").

Every role asks this module, and only it, what the table waits for:

- **who owes which step** (``owed``): a seat and a ``Duty``, an entry kind, never text;
- **what discharges it**: that seat's envelope of the duty's kind (``discharges``);
- **what disproves a claim about it**: for a step (anything but a move), only that step, sealed
  at the seat's next place (``fold/witness.disproof``); for a move, a sign of life from after
  the claim; for a seat kept away that owes no step (``Duty.RETURN``), only its ``back``;
- **what counts as progress** on every clock (``moves_on``): an entry that is neither a chat in
  the game, nor a witness or claim while a round stays open, nor a claim the witnesses
  disproved, nor a new claim about a seat they disproved, nor the ``away`` or ``back`` of a
  seat that owes a step and came back once already while the table owed what it owes now
  (``came_back_owing``: such a seat is timed as one that is there);
- **the witness round** is the explicit state ``PublicState.claims`` (``fold/witness``);
- **the bounds**, in ``BOUNDS``, whose order is checked where they are made: a sign of life
  every second; an envelope unlogged for ``relay_after`` goes over the mesh; a witness waits
  ``witness_grace`` for what disproves a claim; the host times a step out after ``step``; a
  joiner gives up on a host that has not after ``give_up``; a seat that dropped is kept
  ``return_window``;
- **a claim's owed step lapses** when the table no longer waits for it: a witness owed for a
  round that closed without it (``lapse_witness_duties``).

The sequencer times a seat out from ``owed``, the joiner's clock judges the host from it, a
claim's owed step (``Claim.owed``) and a peer's giving up what no longer fits come from it, and
the terminal's "waiting for" line is ``Owed.text``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...wire.kinds import KIND_RULES, EntryKind
from .claims import Claim, awaited
from .duties import BOUNDS, Bounds, Duty, Owed
from .queries import hand_over, slots_owed_by
from .state import PublicState

__all__ = ["BOUNDS", "Bounds", "Duty", "Owed", "came_back_owing", "claimed_of", "discharges",
           "forget_returns_discharged", "joiner_timed", "lapse_hand_duties", "moves_on",
           "note_presence", "open_claims", "owed", "progressed", "stalemate", "step_owed",
           "timeable", "timeout_duty", "waiting_for"]


def owed(s: PublicState) -> list[Owed]:
    """Seats the table waits on for a step, and which: the witnesses of an open round first
    (nothing else moves meanwhile), then the hand's steps in the order the protocol takes them."""
    if s.game is None:
        return _lobby(s)
    crypto, game = s.crypto, s.game
    if crypto is None or s.game_over:
        return []
    if s.claims:
        return [Owed(w, Duty.WITNESS) for w in sorted({
            w for c in s.claims for w in awaited(s.claims, c, s.seat_count)})]
    seats = s.active
    if s.hand_end is not None:
        return [Owed(p, Duty.HEAD) for p in seats if p not in s.heads]
    if hand_over(s):
        return [Owed(p, Duty.SEED_REVEAL) for p in seats if p not in s.seed_reveals]
    if len(crypto.logged_commits) < len(seats):
        return [Owed(p, Duty.SEED_COMMIT) for p in seats if p not in crypto.logged_commits]
    if crypto.pending_round:
        step, peer = crypto.pass_turn()
        return [Owed(peer, Duty.SHUFFLE if step == EntryKind.SHUFFLE else Duty.LOCK)]
    keys = [Owed(peer, Duty.KEYS) for peer in s.active if slots_owed_by(s, peer)]
    if keys:
        return keys
    deal = game.deal
    if game.chance is None and deal.turn >= 0:
        return [Owed(deal.turn, Duty.MOVE)]
    return []


def step_owed(s: PublicState, seat: int) -> Duty | None:
    """The step (not a move) the table waits on ``seat`` for, if any."""
    return next((o.duty for o in owed(s) if o.seat == seat and o.duty.timed_by_step_clock),
                None)


def came_back_owing(s: PublicState, seat: int) -> bool:
    """``seat`` owes a step and came back once already while the table owed what it owes now:
    its comings and goings no longer move the clocks on, and a clock times it as a seat that is
    there, away or not (else a seat that drops and returns again and again holds the table for
    good; one return per step keeps a dropped seat's time for its step)."""
    return step_owed(s, seat) is not None and s.returned.get(seat) == _owing_now(s)


def note_presence(s: PublicState, seat: int, back: bool) -> None:
    """An ``away`` or a ``back`` of ``seat`` is folded: does it move the clocks on?"""
    spent = came_back_owing(s, seat)
    s.presence_moves_on = not spent
    if back and not spent and step_owed(s, seat) is not None:
        s.returned[seat] = _owing_now(s)


def forget_returns_discharged(s: PublicState) -> None:
    """A seat that owes nothing more has spent no return: the next step it owes, even one that
    looks the same (keys again in the same hand), gets its one return afresh. Not while a
    witness round is open: the table owes only witnesses then, and the step a seat owed before
    the round is owed again after it."""
    if s.claims:
        return
    for seat in [seat for seat in s.returned if step_owed(s, seat) is None]:
        del s.returned[seat]


def _owing_now(s: PublicState) -> tuple[object, ...]:
    return (s.hand, *((o.seat, o.duty) for o in owed(s)))


def claimed_of(s: PublicState, seat: int) -> list[Duty]:
    """The steps open claims about ``seat`` say it did not take, and the log does not show yet."""
    return [claim.owed for claim in s.claims
            if claim.seat == seat and claim.owed and claim.discharged < 0]


def timeout_duty(s: PublicState, seat: int, reveal: bool) -> Duty | None:
    """What a ``timeout`` of ``seat`` says it owes: its seed reveal if due, the step the table
    waits on it for, or, kept away and owing none, its return (``None``: a move, or nothing)."""
    if reveal:
        return Duty.SEED_REVEAL
    return step_owed(s, seat) or (Duty.RETURN if seat in s.away else None)


def lapse_witness_duties(claims: list[Claim]) -> None:
    """A ``timeout`` for a seat's witness, once no open claim waits for that witness (its round
    closed without it: the seat stood aside, being claimed itself), says the seat owes a step
    the table no longer waits for: what is left to judge is whether the seat is there, as for
    a seat that owes nothing (its sign of life from after the claim disproves it)."""
    for claim in claims:
        if claim.owed is not Duty.WITNESS:
            continue
        if not any(claim.seat in other.due and claim.seat not in other.heard
                   for other in claims if other is not claim):
            claim.owed = None


def lapse_hand_duties(claims: list[Claim]) -> None:
    """A new hand starts while claims wait (a leave voided the hand in a round): the steps they
    say a seat owed were sealed in the void hand, a witness or a return too, and no envelope of
    that hand counts any more; what is left to judge is whether the seat is there (else a host
    and one friend whose ``bye`` voided the hand right behind a claim removed a seat whose step,
    or witness, a witness held). A seat still away is claimed for its return again later."""
    for claim in claims:
        claim.owed, claim.reveal = None, False


def joiner_timed(s: PublicState) -> list[Owed]:
    """What a joiner's clock times: every step but a move, and any step of a seat kept away,
    its move included. A person may think over a move; a seat kept for its return has its
    window, after which the host times it out: a host whose claim about it the witnesses
    disproved, while the seat stays away, cannot move the table on, and is given up on."""
    return [o for o in owed(s) if o.duty.timed_by_step_clock or o.seat in s.away]


def discharges(o: Owed, kind: EntryKind | None, data: Mapping[str, Any] | None = None) -> bool:
    """Would an envelope of ``kind`` (with ``data``) discharge ``o``? A move discharges a turn
    only if it plays or draws (a call or a catch leaves the turn owed)."""
    if o.duty is Duty.MOVE:
        return kind == EntryKind.MOVE and (data or {}).get("kind") in ("play", "draw")
    return o.duty.kind == kind


def waiting_for(s: PublicState) -> list[tuple[int, str]]:
    """``owed`` as the terminal says it: (seat, what)."""
    return [(o.seat, o.text) for o in owed(s)]


def moves_on(s: PublicState, claims_before: tuple[int, ...]) -> bool:
    """Does the entry folded last move the table on, on every clock (the host's step clock and
    each joiner's)? Not a chat in the game, nor any entry while a witness round stays open as
    it was (``claims_before``: the positions of the round's claims before it): so a seat that
    chats keeps no step of its own from being timed out, nor does a witness that withholds its
    witness. A round that closed one claim as it opened another moved on: the new claim's
    witnesses are owed from now."""
    chat = s.folded_kind is not None and KIND_RULES[s.folded_kind].chat
    unchanged = bool(claims_before) and open_claims(s) == claims_before
    presence = s.folded_kind in (EntryKind.AWAY, EntryKind.BACK) and not s.presence_moves_on
    return not ((chat and s.game is not None) or unchanged or presence)


def timeable(s: PublicState, waits: list[Owed]) -> list[Owed]:
    """Of ``waits``, those the host may time out: not a witness that an open claim of a
    timeout is about already (it is claimed gone; a second claim would prove nothing more)."""
    accused = {c.seat for c in s.claims if c.kind != "catch"}
    return [o for o in waits if not (o.duty is Duty.WITNESS and o.seat in accused)]


def stalemate(s: PublicState) -> tuple[int, ...]:
    """The witnesses an open round waits for when each is a seat another open timeout claims
    gone: half the table or more is claimed silent at once, and the seats left cannot outvote
    a coalition of half (``claims.awaited``). Nobody can be timed out and no claim can stand,
    so the host closes the table, naming nobody (SPEC §7, "Half the table silent at once")."""
    witnesses = [o for o in owed(s) if o.duty is Duty.WITNESS]
    if not witnesses or timeable(s, witnesses):
        return ()
    return tuple(o.seat for o in witnesses)


def progressed(s: PublicState, claims_before: tuple[int, ...], refuted_before: int) -> bool:
    """Did the entry folded last move the table on, as a joiner's clock counts it, whichever
    way it came (the host's stream or the mesh)? ``moves_on``, and neither a claim of the
    host's the witnesses disproved nor a new claim about a seat they disproved (else a host
    could hold the table with false claims for good)."""
    return (len(s.refuted) == refuted_before and moves_on(s, claims_before)
            and not any(claim.seat in s.refuted for claim in s.claims
                        if claim.position not in claims_before))


def open_claims(s: PublicState) -> tuple[int, ...]:
    """The positions of the claims of the open witness round (what ``moves_on`` compares)."""
    return tuple(claim.position for claim in s.claims)


def _lobby(s: PublicState) -> list[Owed]:
    everyone = range(s.seat_count)
    if len(s.keys) < s.seat_count:
        return []
    if len(s.ready) < s.seat_count:
        return [Owed(p, Duty.READY) for p in everyone if p not in s.ready]
    if len(s.coin_commits) < s.seat_count:
        return [Owed(p, Duty.COIN_COMMIT) for p in everyone if p not in s.coin_commits]
    return [Owed(p, Duty.COIN_REVEAL) for p in everyone if p not in s.coin_nonces]
