"""``hard``'s qdan guesses from the public record: right against ``normal`` players, read from
the seat's own view only, and honoured by the determinized deals where the cards allow."""

from __future__ import annotations

import random

from p2p_pageone.bots import NormalBot
from p2p_pageone.bots.infer import read_record
from p2p_pageone.engine import UNKNOWN, Game, ReshuffleRequest, SeatView, make_settings
from p2p_pageone.engine.qdan import QdanDeal
from p2p_pageone.sim.referee import resolve_chance

from .helpers import own_engine


def _normal_game(seed: int, players: int = 4) -> Game:
    game = Game(make_settings("qdan"), players, 0)
    resolve_chance(game, random.Random(seed))
    return game


def _play_on(game: Game, rng: random.Random, normal: NormalBot) -> None:
    """One step of an all-``normal`` table: a chance step, a catch, or the turn's move."""
    if game.chance is not None:
        resolve_chance(game, rng)
        return
    deal = game.deal
    for seat in deal.players:
        if seat != deal.turn and deal.open_miss not in (-1, seat):
            move = normal.choose(SeatView(game, seat), rng)
            if move is not None:
                game.apply(move)
                return
    move = normal.choose(SeatView(game, deal.turn), rng)
    assert move is not None
    game.apply(move)


def test_the_guesses_hold_against_normal_players() -> None:
    """Every slot a guess rules a card out of does not hold that card, and the true hands fit
    every replayed play, when the others play as ``normal`` does (the guesses assume it)."""
    normal, marked, fitted = NormalBot(), 0, 0
    for seed in range(6):
        game, rng = _normal_game(seed), random.Random(seed)
        while not game.over:
            for seat in game.deal.players:
                record = read_record(SeatView(game, seat))
                for slot, mask in record.unlikely.items():
                    assert slot not in game.deal.hands[seat]  # only the others' slots
                    assert not mask >> game.deal.known[slot] & 1, (seed, slot)
                    marked += 1
                for other in record.choices:
                    assert other != seat and record.fits(other, game.deal.known)
                    fitted += 1
                assert record.misfits(game.deal.known) == 0
            _play_on(game, rng, normal)
    assert marked > 1000 and fitted > 500



def test_the_guesses_read_only_the_seats_own_view() -> None:
    """The same record from an engine that knows every card and from the seat's own engine,
    through draws, stacks, change-colour cards and reshuffles."""
    compared = reshuffles = replayed = 0
    for seed in range(4):
        counts = _compare_on_both_engines(seed)
        compared, reshuffles, replayed = (
            compared + counts[0], reshuffles + counts[1], replayed + counts[2])
    assert compared > 200 and replayed > 400 and reshuffles


def _compare_on_both_engines(seed: int) -> tuple[int, int, int]:
    rng, normal = random.Random(seed), NormalBot()
    referee = Game(make_settings("qdan", {"start_cards": 10}), 5, 2)
    deck = list(range(referee.settings.deck_size))
    rng.shuffle(deck)
    referee.deal_cards(deck)
    peer = own_engine(referee, 0)
    compared = reshuffles = replayed = 0
    while not referee.over:
        if isinstance(referee.chance, ReshuffleRequest):
            cards = list(referee.chance.cards)
            rng.shuffle(cards)
            referee.reshuffle(cards)
            peer.reshuffle([UNKNOWN] * len(cards))
            reshuffles += 1
            continue
        if referee.chance is not None:  # the start card, public
            card = referee.deal.known[referee.deal.stock[-1]]
            referee.turn_up(card)
            peer.turn_up(card)
            continue
        for slot in referee.deal.hands[0]:  # seat 0 sees its own draws
            if peer.deal.known[slot] == UNKNOWN:
                peer.deal.reveal(slot, referee.deal.known[slot])
        mine, theirs = read_record(SeatView(referee, 0)), read_record(SeatView(peer, 0))
        assert mine == theirs
        compared += 1
        replayed += sum(len(choices) for choices in mine.choices.values())
        move = normal.choose(SeatView(referee, referee.deal.turn), rng)
        assert move is not None
        referee.apply(move)
        peer.apply(move)
    return compared, reshuffles, replayed


def test_determinized_deals_honour_the_guesses_and_keep_every_card() -> None:
    """Deals for search: the seat's own hand and the public cards as they are, every other card
    exactly once, and each guessed-about slot given a card its guess allows whenever it can."""
    normal, checked = NormalBot(), 0
    for seed in range(3):
        game, rng = _normal_game(seed), random.Random(seed)
        for _ in range(60):
            if game.over:
                break
            _play_on(game, rng, normal)
        if game.over or game.chance is not None:
            continue
        view = SeatView(game, 0)
        guesses = read_record(view).unlikely
        deal = game.deal
        assert isinstance(deal, QdanDeal)
        for world_seed in range(20):
            world = view.determinize(random.Random(world_seed), forbidden=guesses)
            zones = [s for p in deal.players for s in deal.hands[p]] + deal.stock + deal.discard
            assert sorted(world.known[s] for s in zones) == list(range(deal.settings.deck_size))
            for slot in deal.hands[0] + deal.discard:
                assert world.known[slot] == deal.known[slot]
            for slot, mask in guesses.items():
                assert not mask >> world.known[slot] & 1
            checked += 1
    assert checked >= 40
