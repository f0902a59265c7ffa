"""A claim the host made about a seat, waiting for the other peers to witness it
(``fold/witness.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...crypto.envelope import Envelope
from ...engine.moves import Catch
from ...wire.kinds import EntryKind
from .duties import Duty


@dataclass
class Claim:
    """One host claim about a seat, waiting for its witnesses."""

    position: int  # where the claim is in the log
    seat: int  # the seat it is about: the timed out, or the caught
    env: Envelope
    reveal: bool = False  # a timeout while the seat's seed reveal was due
    owed: Duty | None = None  # a timeout while the table waited for a step of that seat's
    due: set[int] = field(default_factory=set)  # the witnesses it waits for
    heard: dict[int, bytes] = field(default_factory=dict)  # witness seat -> what it holds
    # witness seat -> what in its ``heard`` disproves the claim, judged when the witness entry
    # was folded (the seat's unlogged step stops being its next once it signs anything else)
    disproved: dict[int, str] = field(default_factory=dict)
    # the seat's chain when the claim was made: its next sequence number, and the earliest head
    # its next envelope could extend. Its step sealed so could have been logged at the claim,
    # though the seat may since have signed a witness of another claim at that number.
    seq_then: int = -1
    floor_then: int = 0
    # the seat's entries logged after the claim, each as (its index in the log, the position
    # of the head it extended): from them, its next sequence number at any later head
    later: list[tuple[int, int]] = field(default_factory=list)
    # the seat's own entry in the log after the claim that discharges it (its owed step; for a
    # claim about a move, any entry of its): the log itself disproves the claim
    discharged: int = -1
    # a catch waits here for its witnesses before the game takes it, with the hand it was
    # logged in: it stands, or the call the witnesses held counts instead (no rollback needed)
    catch: Catch | None = None
    hand: int = -1

    @property
    def kind(self) -> str:
        return "catch" if self.env.kind == EntryKind.MOVE else "timeout"


def awaited(claims: list[Claim], claim: Claim, seats: int) -> set[int]:
    """The witnesses ``claim`` still waits for, at a table of ``seats`` seats. A seat another
    open claim is about stands aside while at least half the table's seats (rounded down) are
    left to answer without it: a coalition of at most half the table, the host counted, is
    then never all of them, and two seats gone together, each due in the other's round, do not
    keep both rounds open forever. With fewer left, every due seat answers (its witness, logged
    after the claim about it, also disproves that claim): else a host that claimed the victim
    and every witness at once would leave each claim with no witness, and each would stand.
    A catch waits for every due witness: its judgment counts them, and a host that timed out an
    honest one to have it stand aside took its word out of the count (a seat that leaves is no
    longer due)."""
    if claim.kind == "catch":
        return claim.due - set(claim.heard)
    accused = {c.seat for c in claims if c is not claim and c.kind != "catch"}
    free = claim.due - accused
    return (free if len(free) >= seats // 2 else claim.due) - set(claim.heard)

