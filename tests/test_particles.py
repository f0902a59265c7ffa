"""``particles.py``: the population ``expert`` may draw its qdan worlds from reads only its own
view, repeats for a seed, keeps every card once, and its clues hold for ``normal`` players."""

from __future__ import annotations

import random

from p2p_pageone.bots import Budget, ExpertBot, NormalBot
from p2p_pageone.bots.hard import _candidates
from p2p_pageone.bots.infer import read_record
from p2p_pageone.bots.particles import Population, Walk
from p2p_pageone.engine import Game, SeatView
from p2p_pageone.sim.referee import resolve_chance

from .test_expert_bot import _midgame

WALK = Walk(size=6, steps=40, beta=2.0)


def _views(count: int) -> list[tuple[Game, SeatView]]:
    """Qdan games played on by ``normal`` to seat 0's turn with a choice, later in the deal."""
    out = []
    for seed in range(count):
        game, _ = _midgame("qdan", seed, 16 + seed % 7, seat=0)
        if not game.results and game.chance is None and game.deal.turn == 0:
            out.append((game, SeatView(game, 0)))
    return out


def _twin(game: Game, seed: int) -> Game:
    """The same game with the cards seat 0 cannot see scrambled among their places."""
    deal = game.deal
    twin = game.what_if(deal.clone())
    twin.deal.events = list(deal.events)
    hidden = [s for p in deal.players if p != 0 for s in deal.hands[p]] + deal.stock
    cards = [deal.known[s] for s in hidden]
    random.Random(seed).shuffle(cards)
    for slot, card in zip(hidden, cards, strict=True):
        twin.deal.known[slot] = card
    return twin


def test_the_population_reads_only_the_view_and_repeats_for_a_seed() -> None:
    compared = 0
    for seed, (game, view) in enumerate(_views(8)):
        twin = SeatView(_twin(game, seed), 0)
        first = Population(view, read_record(view, 99), random.Random(seed), WALK)
        again = Population(view, read_record(view, 99), random.Random(seed), WALK)
        other = Population(twin, read_record(twin, 99), random.Random(seed), WALK)
        worlds = [p.world(i, random.Random(i)).known for p in (first, again, other)
                  for i in range(WALK.size)]
        size = WALK.size
        assert worlds[:size] == worlds[size:2 * size] == worlds[2 * size:]
        compared += 1
    assert compared >= 4


def test_worlds_keep_every_card_once_and_the_truth_breaks_no_clue() -> None:
    """Each world deals the unseen cards among the same places (nothing made or lost); the
    true deal breaks none of the clues (they are ``normal``'s habits); the walks end with
    fewer clues broken than the slot-by-slot deals they start from."""
    walked = started = 0
    for seed, (game, view) in enumerate(_views(10)):
        record = read_record(view, 99)
        population = Population(view, record, random.Random(seed), WALK)
        truth = list(game.deal.known)
        assert population.clues(truth) == 0
        for index in range(WALK.size):
            world = population.world(index, random.Random(index))
            assert sorted(world.known) == sorted(truth)
            assert world.hands == game.deal.hands
            for slot in game.deal.hands[0]:
                assert world.known[slot] == truth[slot]
        walked += sum(population.clues(m) for m in population.members)
        rng = random.Random(seed)
        for _ in range(WALK.size):
            dealt = view.determinize(rng, forbidden=record.unlikely).known
            started += population.clues(list(dealt))
    assert walked < started


def test_expert_with_a_walk_decides_by_its_view_alone() -> None:
    compared = 0
    for seed, (game, view) in enumerate(_views(6)):
        if len(_candidates(view, view.legal_moves())) <= 1:
            continue
        expert = ExpertBot(Budget(playouts=160, horizon=30), walk=WALK)
        mine = expert.choose(view, random.Random(seed))
        assert expert.playouts_used > 0
        assert mine == expert.choose(SeatView(_twin(game, seed), 0), random.Random(seed))
        assert mine == ExpertBot(Budget(playouts=160, horizon=30), walk=WALK).choose(
            view, random.Random(seed))
        compared += 1
    assert compared >= 3


def test_a_walk_with_cards_applies_only_near_the_end() -> None:
    near = far = 0
    for _, view in _views(10):
        low = min(n for seat, n in view.counts().items() if seat != 0 and n > 0) <= 3
        assert Walk(cards=3).applies(view) == low
        assert Walk().applies(view)
        near, far = near + low, far + (not low)
    assert near and far


def test_a_carried_filter_reads_only_the_views_and_repeats_for_a_seed() -> None:
    """Along one deal played by ``normal`` players, an ``expert`` carrying its population from
    decision to decision decides as a twin does that is shown, at each decision, a game whose
    cards seat 0 cannot see are scrambled; and as a second run with the same seeds."""
    carried = Walk(size=6, steps=30, beta=2.0, carry=10)
    compared = 0
    for seed in range(3):
        game, _ = _midgame("qdan", seed, 0)
        experts = [ExpertBot(Budget(playouts=160, horizon=30), walk=carried) for _ in range(3)]
        rng, normal = random.Random(seed), NormalBot()
        while not game.results and compared < 12 * (seed + 1):
            if game.chance is not None:
                resolve_chance(game, rng)
                continue
            view = SeatView(game, game.deal.turn)
            if game.deal.turn == 0 and len(_candidates(view, view.legal_moves())) > 1:
                views = [view, SeatView(_twin(game, compared), 0), view]
                picks = [e.choose(v, random.Random(compared)) for e, v in zip(experts, views,
                                                                               strict=True)]
                assert picks[0] == picks[1] == picks[2]
                compared += 1
            move = normal.choose(view, rng)
            assert move is not None
            game.apply(move)
    assert compared >= 12
