"""What a seat may owe the table (``Duty``), one such debt (``Owed``) and the table's timing
(``Bounds``): the types of ``fold/obligations.py``, which says who owes what."""

from __future__ import annotations

import enum
import itertools
from dataclasses import dataclass

from ...wire.kinds import EntryKind


class Duty(enum.Enum):
    """A step a seat may owe the table: its entry kind and how the table says it."""

    READY = (EntryKind.READY, "ready")
    COIN_COMMIT = (EntryKind.COIN_COMMIT, "coin commitment")
    COIN_REVEAL = (EntryKind.COIN_REVEAL, "coin reveal")
    SEED_COMMIT = (EntryKind.SEED_COMMIT, "its seed commitment")
    SHUFFLE = (EntryKind.SHUFFLE, "its shuffle pass")
    LOCK = (EntryKind.LOCK, "its lock pass")
    KEYS = (EntryKind.KEYS, "its keys for dealt cards")
    MOVE = (EntryKind.MOVE, "its move")
    SEED_REVEAL = (EntryKind.SEED_REVEAL, "its hand seed reveal")
    HEAD = (EntryKind.HEAD, "its signed log head")
    WITNESS = (EntryKind.WITNESS, "its witness of the host's claim")
    RETURN = (EntryKind.BACK, "its return")  # a seat kept away that owes no step: only its
    # ``back`` shows it is there (its signs of life do not: it may talk and never come back)

    @property
    def kind(self) -> EntryKind:
        """The entry kind that discharges it."""
        return self.value[0]

    @property
    def text(self) -> str:
        return self.value[1]

    @property
    def timed_by_step_clock(self) -> bool:
        """A move is timed by the turn (and a person may think); every other step by the
        table's step clock (``BOUNDS.step``)."""
        return self is not Duty.MOVE


@dataclass(frozen=True)
class Owed:
    seat: int
    duty: Duty

    @property
    def text(self) -> str:
        return self.duty.text


@dataclass(frozen=True)
class Bounds:
    """The table's timing, in seconds; their order is what makes the rules sound (a witness
    waits longer than an envelope takes to cross the mesh, a step is timed out after its
    witnesses could answer, a joiner gives up only on a host that failed to time it out)."""

    alive_every: float = 1.0
    relay_after: float = 5.0
    witness_grace: float = 8.0
    catch_up: float = 20.0  # a witness waits at most this long for a claimed seat it serves the
    # log while that seat's sign of life still grows toward the claim
    step: float = 30.0
    give_up: float = 45.0
    return_window: int = 60  # a seat whose connection dropped is kept this long (whole seconds:
    # the ``away`` entry says it)

    def __post_init__(self) -> None:
        order = (self.alive_every, self.relay_after, self.witness_grace, self.catch_up,
                 self.step, self.give_up, self.return_window)
        if any(a >= b for a, b in itertools.pairwise(order)):
            raise ValueError("the bounds must grow: alive_every < relay_after < witness_grace "
                             f"< catch_up < step < give_up < return_window, not {order}")

    @property
    def claims_at_most(self) -> float:
        """The longest the table may go on with claims alone (none moves it on): a joiner's
        give-up time for the step, a seat kept its return window, then timed out, and that
        claim's witnesses timed out in turn."""
        return self.give_up + self.return_window + self.step


BOUNDS = Bounds()
