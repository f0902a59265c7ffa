"""Classic: the replay of ``normal``'s choices (``fit_classic``) accepts the true hands of
``normal`` players, and rules out hands that would have led another suit."""

from __future__ import annotations

import random

from p2p_pageone.bots import NormalBot
from p2p_pageone.bots.fit_classic import Moment, normal_allows, read_choices
from p2p_pageone.engine import Game, SeatView, make_settings
from p2p_pageone.sim.referee import resolve_chance


def test_true_hands_of_normal_players_fit() -> None:
    checked = moments = 0
    for seed in range(40):
        rng = random.Random(seed)
        game = Game(make_settings("classic"), 4, seed % 4)
        normal = NormalBot()
        steps = 0
        while not game.over and steps < 300:
            if game.chance is not None:
                resolve_chance(game, rng)
                continue
            if steps % 5 == 0 and game.deal.turn == 0:
                choices = read_choices(SeatView(game, 0))
                for seat in (1, 2, 3):
                    assert choices.fits(seat, game.deal.known), (seed, steps, seat)
                    checked += 1
                    moments += len(choices.moments[seat])
            move = None
            for seat in [game.deal.turn] + [s for s in range(4) if s != game.deal.turn]:
                move = normal.choose(SeatView(game, seat), rng)
                if move is not None:
                    break
            assert move is not None
            game.apply(move)
            steps += 1
    assert checked > 100 and moments > 500


def test_a_lead_names_the_suit_normal_rates_best() -> None:
    lead = Moment(seat=1, at=3, trick=(), led=-1, low=False, seen=(0, 0, 0, 0), card=12)
    assert normal_allows(lead, [12, 3, 4, 20], False)  # three spades: the ace of spades
    assert not normal_allows(lead, [12, 20, 21, 22], False)  # three hearts: a heart instead
    assert normal_allows(lead, [12, 11, 20], False)  # the ace is the top spade
    draw = Moment(seat=1, at=5, trick=(12,), led=0, low=True, seen=(1, 0, 0, 0), card=-1)
    assert not normal_allows(draw, [20, 21, 52], False)  # someone low: it plays the joker
    assert normal_allows(draw, [20, 21, 30], False)
