"""The qdan ``expert`` plays for places: once someone has gone out, its playouts race for the
best place still free, and how many playouts a decision gets follows what is at stake."""

from __future__ import annotations

import random

from p2p_pageone.bots import Budget, ExpertBot, NormalBot
from p2p_pageone.bots.qdan_search import Spend, Stakes, finish_line, place_value, read_stakes
from p2p_pageone.engine import Game, QdanDeal, SeatView, make_settings
from p2p_pageone.sim.referee import resolve_chance


def _after_first_place(seed: int) -> Game | None:
    """A 4-seat qdan game played by ``normal`` until someone has gone out (not eliminated)
    and seat 0, still in, has a choice to make."""
    rng = random.Random(seed)
    game = Game(make_settings("qdan"), 4, 3)
    deck = list(range(game.settings.deck_size))
    rng.shuffle(deck)
    game.deal_cards(deck)
    normal = NormalBot()
    while not game.results:
        if game.chance is not None:
            resolve_chance(game, rng)
            continue
        deal = game.deal
        assert isinstance(deal, QdanDeal)
        if (1 in deal.places and deal.places[0] == 0 and deal.turn == 0
                and len(SeatView(game, 0).legal_moves()) > 2):
            return game
        move = normal.choose(SeatView(game, deal.turn), rng)
        assert move is not None
        game.apply(move)
    return None


def _games_after_first_place() -> list[Game]:
    games = [_after_first_place(seed) for seed in range(40)]
    return [g for g in games if g is not None][:5]


def test_stakes_are_read_from_the_public_record() -> None:
    game = Game(make_settings("qdan"), 4, 3)
    deck = list(range(game.settings.deck_size))
    random.Random(1).shuffle(deck)
    game.deal_cards(deck)
    assert read_stakes(SeatView(game, 0)) == Stakes(4, 0)
    found = _games_after_first_place()
    assert found
    for later in found:
        deal = later.deal
        assert isinstance(deal, QdanDeal)
        stakes = read_stakes(SeatView(later, 0))
        assert stakes.active == len(deal.active) and stakes.gone >= 1
        assert stakes.target(deal) == min(p for p in range(1, 5) if p not in deal.places)


def test_after_the_first_place_a_playout_races_for_the_next() -> None:
    """The playout runs on (the old finish line stopped it at once) and scores 1 for exactly
    one of the players still in: the one who takes the place played for."""
    for game in _games_after_first_place():
        deal = game.deal.clone()
        assert isinstance(deal, QdanDeal)
        stakes = read_stakes(SeatView(game, 0))
        assert not finish_line(deal, stakes)()
        still_in = list(deal.active)
        guesses = [place_value(deal, p, 0.6, stakes) for p in still_in]
        assert abs(sum(guesses) - 1.0) < 1e-9
        expert = ExpertBot()
        expert._stakes = stakes
        expert._play_on(deal, 0, 2000, random.Random(5))
        values = [place_value(deal, p, 0.6, stakes) for p in still_in]
        assert sorted(values) == [0.0] * (len(still_in) - 1) + [1.0]


def test_the_search_after_the_first_place_tells_its_candidates_apart() -> None:
    """Before bots34 every playout after the first place scored the same: the search spent its
    budget on ties. Now the playouts differ, and a later decision spends only ``later``'s share
    of the budget."""
    searched = 0
    for game in _games_after_first_place():
        view = SeatView(game, 0)
        full = ExpertBot(Budget(playouts=60, horizon=200), spend=Spend())
        full.choose(view, random.Random(2))
        cheap = ExpertBot(Budget(playouts=60, horizon=200), spend=Spend(later=0.5))
        cheap.choose(view, random.Random(2))
        assert cheap.playouts_used <= 30
        searched += full.playouts_used > 0
    assert searched


def test_spend_scales_the_budget_with_the_stakes() -> None:
    game = Game(make_settings("qdan"), 4, 3)
    deck = list(range(game.settings.deck_size))
    random.Random(1).shuffle(deck)
    game.deal_cards(deck)
    view = SeatView(game, 0)
    spend = Spend(cards=3, low=2.0, high=0.5, later=0.1)
    assert spend.scale(view, Stakes(4, 0)) == 0.5  # seven cards each: the end is not near
    assert spend.scale(view, Stakes(3, 1)) == 0.1
    assert Spend(cards=7, low=2.0).scale(view, Stakes(4, 0)) == 2.0
    assert Spend().scale(view, Stakes(4, 0)) == 1.0
