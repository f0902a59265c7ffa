"""RULINGS Q14 in the engine: a seat that leaves for good voids its deal; the game goes on."""

from __future__ import annotations

from p2p_pageone.engine import ClassicSettings, Game, QdanSettings
from p2p_pageone.engine.qdan import QdanDeal

from .helpers import play, rig


def _deal(game: Game) -> None:
    game.deal_cards(list(range(game.settings.deck_size)))
    while game.chance is not None:
        game.turn_up(game.deal.known[game.deal.stock[-1]])


def test_classic_leaver_ranks_last_and_the_deal_is_voided() -> None:
    game = Game(ClassicSettings(deals=2), 3, 0)
    _deal(game)
    game.totals = [30, 5, 10]
    game.leave(1)
    assert not game.results and not game.over
    assert game.deal.players == (0, 2) and game.deal.dealer == 2
    while not game.over:
        _deal(game)
        deal = game.deal
        deal.hands[deal.turn] = deal.hands[deal.turn][:1]
        game.apply(game.legal_moves(deal.turn)[0])
    assert game.places[1] == 3 and sorted(game.places[s] for s in (0, 2)) in ([1, 2], [1, 1])


def test_qdan_leaver_takes_the_lowest_free_place_and_the_rest_keep_theirs() -> None:
    game = rig(QdanSettings(), ["5r 6r 7b", "1y 2y 3y", "1g 2g 3g", "4b 5b 6b"], stock="3r")
    deal = game.deal
    assert isinstance(deal, QdanDeal)
    deal.hands[0] = deal.hands[0][:1]
    play(game, 0, "5r")  # seat 0 goes out: first place
    game.leave(2)
    assert game.awarded == {0: 1, 2: 4}
    new = game.deal
    assert isinstance(new, QdanDeal) and new is not deal and new.players == (1, 3)
    _deal(game)
    new.hands[new.turn] = new.hands[new.turn][:1]
    game.apply(next(m for m in game.legal_moves(new.turn) if hasattr(m, "cards")))
    assert game.over and sorted(game.places) == [1, 2, 3, 4] and game.places[2] == 4


def test_leaving_down_to_one_player_ends_the_game() -> None:
    game = Game(QdanSettings(), 2, 0)
    _deal(game)
    game.leave(0)
    assert game.over and game.places == [2, 1]


def test_a_seat_leaving_between_deals_skips_no_dealer() -> None:
    game = Game(ClassicSettings(deals=3), 4, 0)
    assert game.deal.dealer == 0
    game.leave(2)  # before the first deal is dealt: seat 0 still deals it
    assert game.deal.dealer == 0 and game.deal.players == (0, 1, 3)
    game.leave(0)  # the dealer itself leaves: the next seat still in deals
    assert game.deal.dealer == 1 and game.deal.players == (1, 3)


def test_a_seat_leaving_mid_deal_voids_it_and_the_next_dealer_deals() -> None:
    game = Game(ClassicSettings(deals=3), 4, 0)
    _deal(game)
    game.leave(2)
    assert game.deal.dealer == 1 and game.deal.players == (0, 1, 3)


def test_a_qdan_hand_after_a_voided_one_begins_at_the_place_still_free() -> None:
    """A seat went out (first place) in a deal a leaver voided: the next hand's places begin at
    second, and the deal says so, clones included (the full-information replay at the reveal
    begins there too: ``HandRecord.first_place``; tests/test_byzantine.py replays the table the
    Byzantine simulator found this on)."""
    game = rig(QdanSettings(), ["5r 6r 7b", "1y 2y 3y", "1g 2g 3g", "4b 5b 6b"], stock="3r")
    deal = game.deal
    deal.hands[0] = deal.hands[0][:1]
    play(game, 0, "5r")
    game.leave(2)
    new = game.deal
    assert isinstance(new, QdanDeal) and new.first_place == 2 and new.clone().first_place == 2
