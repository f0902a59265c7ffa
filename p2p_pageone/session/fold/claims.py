"""A claim the host made about a seat, waiting for the other peers to witness it
(``fold/witness.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...crypto.envelope import Envelope


@dataclass
class Claim:
    """One host claim about a seat, waiting for its witnesses."""

    position: int  # where the claim is in the log
    seat: int  # the seat it is about: the timed out, or the caught
    env: Envelope
    reveal: bool = False  # a timeout while the seat's seed reveal was due
    owed: str = ""  # a timeout while the table waited for a step of that seat's: its kind
    due: set[int] = field(default_factory=set)  # the witnesses it waits for
    heard: dict[int, bytes] = field(default_factory=dict)  # witness seat -> what it holds
    # witness seat -> what in its ``heard`` disproves the claim, judged when the witness entry
    # was folded (the seat's unlogged step stops being its next once it signs anything else)
    disproved: dict[int, str] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return "catch" if self.env.kind == "move" else "timeout"

    def complete(self) -> bool:
        return self.due <= set(self.heard)
