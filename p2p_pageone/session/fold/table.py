"""The public fold of the log: ``TableState.apply(entry) -> events`` (protocol/SPEC.md §7).

It knows only what the log says. Three users share it:

- a live peer (``peer.PeerSession``) is this fold plus its own seed, cards, intents and outbox;
- ``pageone audit`` is this fold over a log file, with the seeds the log reveals;
- ``pageone replay`` is this fold plus a renderer.
"""

from __future__ import annotations

from ...crypto.deck import DeckError
from ...crypto.envelope import BadSignature, Envelope, OrderFault
from ...wire.codec import ProtocolError
from ..common import Event, TableEnded
from .apply import FOLD_ERRORS, apply_entry, kind_refusal
from .queries import hand_over
from .rounds import advance
from .state import PublicState

__all__ = ["FOLD_ERRORS", "TableState"]


class TableState(PublicState):
    """Everything every peer derives from the log alone, folded entry by entry."""

    def apply(self, raw: bytes, env: Envelope | None = None, now: float = 0.0) -> list[Event]:
        """Fold one log entry; returns the events it caused. A fault raises (see ``blame``)."""
        start = len(self.events)
        self.author = -1
        apply_entry(self, raw, now, env)
        advance(self, now)
        self._note_game_moved()
        return self.events[start:]

    def _note_game_moved(self) -> None:
        deal = self.game.deal if self.game is not None else None
        seen = (self.hand, id(deal), deal.version if deal is not None else 0)
        if seen != self.game_seen:
            self.game_seen, self.game_moved_at = seen, len(self.log) - 1

    def blame(self, error: Exception) -> tuple[int, str]:
        """The seat a fault raised by ``apply`` names (-1: nobody can be named) and why."""
        if isinstance(error, TableEnded):
            return error.culprit, str(error)
        if isinstance(error, DeckError):
            blamed = self.crypto.seat_at(error.peer) if self.crypto else -1
            return (blamed if blamed >= 0 else self.author), f"{type(error).__name__}: {error}"
        if isinstance(error, OrderFault):
            return self.host_seat, self.relay_fault(error)
        reason = error.reason if isinstance(error, ProtocolError) else str(error)
        return self.author, f"sent a message this peer cannot accept: {reason}"

    def relay_fault(self, error: ProtocolError) -> str:
        what = ("relayed a message whose signature does not verify (forged or corrupted)"
                if isinstance(error, BadSignature) else
                f"relayed a message out of its place ({type(error).__name__}: {error})")
        return f"{what}: the sequencer must refuse it, and its author is not to blame"

    def step_refusal(self, env: Envelope) -> str | None:
        return kind_refusal(self, env)

    def hand_over(self) -> bool:
        return hand_over(self)
