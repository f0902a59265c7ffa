"""Keys sent to their owner directly, ahead of the log (protocol/SPEC.md §7, "Keys to their
owner, directly").

A ``keys`` envelope goes to the host, which logs it; its author also sends it straight to each
joiner whose cards it opens, so that player sees a drawn card half a round trip sooner. The
envelope is the same signed bytes either way. Its owner checks every key against its author's
commitments, exactly as the fold will, and uses it only to open its own cards early: what the
table knows, and every check anyone makes of the log, are unchanged. The sequencer appends the
owner's next move only once those keys are in the log.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..crypto.deck import DeckError
from ..crypto.envelope import Envelope
from ..wire.kinds import EntryKind
from .hand import HandDeck

PENDING = 64  # envelopes kept while they cannot be checked yet (their deck round not dealt)


class EarlyKeys:
    """Checked keys for this peer's own cards, by ``(deck round, position, peer index)``."""

    def __init__(self) -> None:
        self.pending: list[Envelope] = []
        self.keys: dict[tuple[str, int, int], int] = {}
        self.hand = 0

    def add(self, env: Envelope) -> None:
        """Keep it to check (for this hand or the next only; the oldest give way)."""
        if env.kind == EntryKind.KEYS and self.hand <= env.hand <= self.hand + 1:
            self.pending = [*self.pending[-(PENDING - 1):], env]

    def new_hand(self, hand: int) -> None:
        self.hand, self.keys = hand, {}
        self.pending = [env for env in self.pending if env.hand >= hand]

    def absorb(self, deck: HandDeck, seat_of: Callable[[bytes], int], me: int) -> None:
        """Check what can be checked now; keep what waits for its deck round."""
        waiting = []
        for env in self.pending:
            seat, label = seat_of(env.sender), env.data["deck"]
            if env.hand > self.hand:
                waiting.append(env)
                continue
            if env.hand < self.hand or seat < 0 or seat == me or seat not in deck.seats:
                continue
            dealt = deck.record.get(label)
            if dealt is None or dealt.next_step()[0] != "done":
                waiting.append(env)
                continue
            try:
                checked = deck.check_keys(label, seat, env.data["positions"], env.data["keys"])
            except KeyError:  # a slot not dealt yet here
                waiting.append(env)
                continue
            except DeckError:
                continue  # a wrong key: the log will show it, with its author named
            index = deck.index(seat)
            self.keys.update({(label, position, index): key for position, key in checked})
        self.pending = waiting

    def view(self) -> Mapping[tuple[str, int, int], int]:
        return self.keys
