"""The ``hard`` CPU: legal moves, its own view only, repeatable under a seed; bot levels."""

from __future__ import annotations

import random

import pytest

from p2p_pageone.bots import HardBot, NormalBot, parse_bot_levels
from p2p_pageone.engine import UNKNOWN, Game, ReshuffleRequest, SeatView, make_settings
from p2p_pageone.sim.referee import play_game, resolve_chance

from .helpers import own_engine

QUICK = HardBot(rounds=2, horizon=12)


@pytest.mark.parametrize(("family", "players", "options"), [
    ("classic", 3, {"deals": 1}), ("classic", 2, {"deals": 1, "stop_eight": True}),
    ("qdan", 3, {"start_cards": 5}), ("qdan", 2, {}),
])
def test_hard_plays_whole_games_without_a_refused_move(
    family: str, players: int, options: dict[str, object]
) -> None:
    bots = [QUICK, NormalBot(), NormalBot()][:players]
    record = play_game(make_settings(family, options), bots, random.Random(players), "all")
    assert not record.violations, record.violations
    assert sorted(record.places) and 1 in record.places



@pytest.mark.parametrize("family", ["classic", "qdan"])
def test_hard_decides_the_same_on_the_referee_and_on_its_own_engine(family: str) -> None:
    """Its choices depend on its own view only: an engine that knows every card and one that
    knows only this seat's cards lead to the same decisions under the same seed."""
    rng = random.Random(5)
    referee = Game(make_settings(family), 3, 2)
    deck = list(range(referee.settings.deck_size))
    rng.shuffle(deck)
    referee.deal_cards(deck)
    peer = own_engine(referee, 0)
    while referee.chance is not None:  # qdan start card, public
        card = referee.deal.known[referee.deal.stock[-1]]
        referee.turn_up(card)
        peer.turn_up(card)
    normal, hard, compared = NormalBot(), HardBot(rounds=3, horizon=15, search_classic=True), 0
    while not referee.results and compared < 6:
        if isinstance(referee.chance, ReshuffleRequest):
            cards = list(referee.chance.cards)
            rng.shuffle(cards)
            referee.reshuffle(cards)
            peer.reshuffle([UNKNOWN] * len(cards))
            continue
        for slot in referee.deal.hands[0]:  # seat 0 sees its own draws
            if peer.deal.known[slot] == UNKNOWN:
                peer.deal.reveal(slot, referee.deal.known[slot])
        turn = referee.deal.turn
        if turn == 0 and len(SeatView(referee, 0).legal_moves()) > 2:
            mine = hard.choose(SeatView(referee, 0), random.Random(compared))
            theirs = hard.choose(SeatView(peer, 0), random.Random(compared))
            assert mine == theirs
            again = hard.choose(SeatView(peer, 0), random.Random(compared))
            assert again == mine  # repeatable under a seed
            compared += 1
        move = normal.choose(SeatView(referee, turn), rng)
        assert move is not None
        referee.apply(move)
        peer.apply(move)
    assert compared >= 2


def _dealt(family: str, deck: list[int]) -> Game:
    game = Game(make_settings(family), 4, 3)  # seat 0 plays first
    game.deal_cards(deck)
    while game.chance is not None:  # qdan start card, public
        game.turn_up(game.deal.known[game.deal.stock[-1]])
    return game


@pytest.mark.parametrize("family", ["classic", "qdan"])
def test_hard_decides_the_same_whoever_holds_the_unseen_cards(family: str) -> None:
    """The other players' cards dealt differently among them (nothing public changes): the
    same decision, whether the search deals them itself or plays by its habits."""
    searched = 0
    for seed in range(12):
        rng = random.Random(seed)
        deck = list(range(make_settings(family).deck_size))
        rng.shuffle(deck)
        game = _dealt(family, deck)
        others = [s for seat in (1, 2, 3) for s in game.deal.hands[seat]]
        if family == "classic":
            others += game.deal.stock
        moved = [deck[s] for s in others]
        rng.shuffle(moved)
        other_deck = list(deck)
        for slot, card in zip(others, moved, strict=True):
            other_deck[slot] = card
        other = _dealt(family, other_deck)
        assert other.deal.hands[0] == game.deal.hands[0] and other.deal.known != game.deal.known
        for hard in (HardBot(rounds=4, horizon=10, search_classic=True), HardBot()):
            mine = hard.choose(SeatView(game, 0), random.Random(seed))
            assert mine == hard.choose(SeatView(other, 0), random.Random(seed))
        searched += len(SeatView(game, 0).legal_moves()) > 2
    assert searched >= 4


def test_hard_plays_the_joker_where_normal_draws_to_follow() -> None:
    """Classic: unable to follow with the joker in hand, ``normal`` draws (while nobody is low
    and its hand is big) and ``hard`` plays the joker (better over thousands of games)."""
    from p2p_pageone.engine import Draw, Play

    found = 0
    for seed in range(40):
        rng = random.Random(seed)
        game = Game(make_settings("classic", {"deals": 1}), 4, 0)
        normal = NormalBot()
        while not game.over and found < 3:
            if game.chance is not None:
                resolve_chance(game, rng)
                continue
            view = SeatView(game, game.deal.turn)
            mine = normal.choose(view, rng)
            moves = view.legal_moves()
            if isinstance(mine, Draw) and any(isinstance(m, Play) for m in moves):
                found += 1
                hard = HardBot().choose(view, rng)
                assert isinstance(hard, Play) and hard.cards[0] >= 52  # the joker
            assert mine is not None
            game.apply(mine)
    assert found == 3


def test_bot_levels_for_the_command_line() -> None:
    assert parse_bot_levels("2", "hard") == ["hard", "hard"]
    assert parse_bot_levels("normal, hard") == ["normal", "hard"]
    assert parse_bot_levels("0") == []
    with pytest.raises(ValueError, match="unknown bot level 'genius'"):
        parse_bot_levels("normal,genius")
    with pytest.raises(ValueError, match="unknown bot level"):
        parse_bot_levels("1", "genius")


def test_host_refuses_an_unknown_bot_level(capsys: pytest.CaptureFixture[str]) -> None:
    from p2p_pageone.cli.main import main

    assert main(["host", "--bots", "normal,genius", "--no-mdns"]) == 2
    assert "unknown bot level 'genius'" in capsys.readouterr().err


def test_hard_plays_at_a_network_table_on_its_peers_own_engine() -> None:
    from p2p_pageone.session.memory import MemoryTable

    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=3,
                        levels=["normal", "hard", "normal"])
    table.run()
    first = table.sessions[0]
    for session in table.sessions:
        assert session.game_over and not session.ended, session.ended
        assert session.log == first.log
    assert table.sessions[1].bot is not None and table.sessions[1].bot.name == "hard"
