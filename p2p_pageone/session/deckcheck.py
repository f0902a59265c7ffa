"""The deck check after the reveal: the one place that re-derives a hand's deck rounds from the
revealed seeds (through ``crypto.deck``) and compares them with what the log holds.

Live peers run it at every hand's end and ``pageone audit`` runs it over a whole log; a new deck
(another group, proofs) changes this module and ``hand.py``, nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..crypto import group
from ..crypto.deck import (
    Cheat,
    DeckError,
    DeckRound,
    DeckSecrets,
    card_at,
    open_points,
    seed_commitment,
)
from .hand import HandDeck


@dataclass(frozen=True)
class Unproven:
    """A check the fold deferred (``TableState.defer_proofs``): a pass's proof, or keys'
    ``u·T = W``; the author's checked seed reveal establishes what it would check."""

    position: int  # its log entry
    hand: int
    seat: int
    step: str  # "shuffle", "lock" or "keys"
    deck_round: DeckRound
    index: int  # the seat's deck index in that round
    proof: bytes = b""
    keys: tuple[tuple[int, int], ...] = ()  # (position, key)

    def holds(self) -> bool:
        if self.step == "keys":
            return all(self.deck_round.check_key(self.index, p, k) for p, k in self.keys)
        try:
            self.deck_round.verify_recorded(self.step, self.index, self.proof)
        except DeckError:
            return False
        return True


def check_reveal(deck: HandDeck, seat: int, seed: bytes, proven: bool = True,
                 rederive: bool = True) -> None:
    """``seat``'s revealed seed against its commitment, its shuffle commitments and every key it
    published in this hand; raises ``Cheat`` (deck index) on the first value that differs.

    ``rederive`` (the audit): every pass is recomputed too, from the input the log shows it was
    given, so a substituted or duplicated card is pinned on the pass that made it, never on the
    peers after it. ``proven=False`` (proofs deferred): the lock commitments as well, which only
    the lock proof ties to the points. A live peer verified every pass's proof on receipt, so
    the passes are right whatever the seed says; it opens the cards with the seeds' keys
    (``opened_cards``) and leaves re-deriving every pass to the audit (SPEC §5.10)."""
    index = deck.index(seat)
    context = deck.contexts[index]
    if seed_commitment(seed, context) != deck.commitments.get(index):
        raise Cheat(index, "its revealed seed does not match its commitment")
    for label, deck_round in deck.record.items():
        secrets = DeckSecrets.derive(seed, context, label, deck_round.size)
        if rederive:
            deck_round.verify_peer(index, secrets)
        else:
            deck_round.check_round_commit(index, secrets)
        if not proven:
            deck_round.check_lock_commits(index, secrets)
        for (where, position, who), key in deck.keys.items():
            # u = l⁻¹ exactly when u·l = 1 (mod N): no inversion needed
            if where == label and who == index and key * secrets.locks[position] % group.N != 1:
                raise Cheat(index, f"it published a wrong key for position {position} of deck "
                            f"{label}")


def round_cards(deck: HandDeck, label: str, seeds: dict[int, bytes]) -> list[int]:
    """Every position's card in one round, from every seed (by seat); call after
    ``check_reveal`` passed for each of them.

    Every pass then re-derives byte for byte, so position p holds ``(∏_j l_{j,p})·C`` for the
    card C the composed permutations bring there, and the derived keys open it to exactly that
    card: the permutations alone tell it, with no multiplication."""
    deck_round = deck.record[label]
    orders = [DeckSecrets.derive(seeds[seat], deck.contexts[i], label, deck_round.size).order
              for i, seat in enumerate(deck.seats)]
    return [card_at(deck_round.start[_origin(orders, p)], deck.deck_size, -1)
            for p in range(deck_round.size)]


def opened_cards(deck: HandDeck, label: str, seeds: dict[int, bytes],
                 positions: Sequence[int]) -> list[int]:
    """The cards at ``positions`` of one round, each opened with the unlock keys every seed
    derives (one multiplication a position): for a live peer, which verified every pass's proof
    on receipt. A position that does not open names the seat whose seed's lock commitments
    differ from its logged ones (with the proofs verified, nothing else can make it fail)."""
    deck_round = deck.record[label]
    derived = [DeckSecrets.derive(seeds[seat], deck.contexts[i], label, deck_round.size)
               for i, seat in enumerate(deck.seats)]
    index = group.card_index(deck.deck_size)
    cards = []
    opened = open_points([deck_round.final_point(p) for p in positions],
                         [[secrets.unlock_key(p) for secrets in derived] for p in positions])
    for position, x in zip(positions, opened, strict=True):
        card = index.get(x)
        if card is None:
            for i, secrets in enumerate(derived):
                deck_round.check_lock_commits(i, secrets)
            raise Cheat(-1, f"position {position} of deck {label} did not open to a card")
        cards.append(card)
    return cards


def _origin(orders: Sequence[Sequence[int]], position: int) -> int:
    """The start position whose card the shuffles (output i = input ``order[i]``) bring to
    ``position``."""
    for order in reversed(orders):
        position = order[position]
    return position
