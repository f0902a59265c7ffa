"""Weak points of the session around the proven deck, each closed at the depth it belongs:
a one-card reshuffle, a stop of the hand with an early seed reveal, a bye instead of the reveal,
a false card claim in a play, and messages that must never reach the fold."""

from __future__ import annotations

from p2p_pageone.crypto.deck import Pass
from p2p_pageone.session.deckcheck import check_reveal, round_cards
from p2p_pageone.session.hand import HandDeck, HandSecrets


def test_a_one_card_reshuffle_is_a_deck_round_like_any_other() -> None:
    """qdan can recycle a single public card: every peer shuffles and locks it with proofs, the
    keys check out, and the reveal re-derives it (the audit's path) to the same card."""
    seats = [0, 2, 3]
    contexts = [b"table" + bytes([seat]) * 36 for seat in seats]
    deck = HandDeck(4, seats, contexts, 52)
    secrets = {seat: HandSecrets(deck, seat, bytes([seat + 1]) * 32) for seat in seats}
    for seat, own in secrets.items():
        deck.commit(seat, own.commitment)
    deck.start(deck.next_reshuffle_label(), [17])
    while not deck.round_done():
        step, seat = deck.pass_turn()
        made = secrets[seat].compute_pass(deck)
        assert made is not None and made[0] == step
        sent = Pass.from_fields(made[1].fields())
        assert deck.refusal(step, seat, {"deck": deck.pending_round, **sent.fields()}) is None
        deck.receive_pass(step, seat, sent)
    label = deck.pending_round
    deck.finish_round(40)
    for seat in seats:
        where, slots, keys = secrets[seat].keys_for(deck, [40])
        deck.receive_keys(where, seat, slots, keys)
    assert deck.open_public(40) == 17
    seeds = {seat: own.seed for seat, own in secrets.items()}
    for seat in seats:
        check_reveal(deck, seat, seeds[seat])
    assert round_cards(deck, label, seeds) == [17]
