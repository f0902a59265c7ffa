"""The deck check after the reveal: the one place that re-derives a hand's deck rounds from the
revealed seeds (through ``crypto.deck``) and compares them with what the log holds.

Live peers run it at every hand's end and ``pageone audit`` runs it over a whole log; a new deck
(another group, proofs) changes this module and ``hand.py``, nothing else.
"""

from __future__ import annotations

from ..crypto.deck import Cheat, DeckSecrets, card_at, open_point, seed_commitment
from .hand import HandDeck


def check_reveal(deck: HandDeck, seat: int, seed: bytes) -> None:
    """``seat``'s revealed seed against its commitment, every pass it made and every key it
    published in this hand; raises ``Cheat`` (deck index) on the first value that differs.

    Each pass is recomputed from the input the log shows it was given, so a substituted or
    duplicated card is pinned on the pass that made it, never on the peers after it."""
    index = deck.index(seat)
    context = deck.contexts[index]
    if seed_commitment(seed, context) != deck.commitments.get(index):
        raise Cheat(index, "its revealed seed does not match its commitment")
    for label, deck_round in deck.record.items():
        secrets = DeckSecrets.derive(seed, context, label, deck_round.size)
        deck_round.verify_peer(index, secrets)
        for (where, position, who), key in deck.keys.items():
            if where == label and who == index and key != secrets.unlock_key(position):
                raise Cheat(index, f"it published a wrong key for position {position} of deck "
                            f"{label}")


def round_cards(deck: HandDeck, label: str, seeds: dict[int, bytes]) -> list[int]:
    """Every position's card in one round, opened with the keys derived from every seed (by
    seat); call after ``check_reveal`` passed for each of them."""
    deck_round = deck.record[label]
    secrets = [DeckSecrets.derive(seeds[seat], deck.contexts[i], label, deck_round.size)
               for i, seat in enumerate(deck.seats)]
    return [card_at(open_point(x, [s.unlock_key(i) for s in secrets]), deck.deck_size, -1)
            for i, x in enumerate(deck_round.final)]
