"""One test (at least) per Qdan ruling, Q1–Q11 of RULINGS.md, and each Qdan setting."""

from __future__ import annotations

from collections import Counter

import pytest

from p2p_pageone.engine import (
    Call,
    Catch,
    Draw,
    Game,
    IllegalMove,
    Play,
    QdanSettings,
    ReshuffleRequest,
    SettingError,
)
from p2p_pageone.engine.cards import (
    KIND_CHANGE,
    colour_of,
    is_number,
    kind_of,
    parse_qdan,
    qdan_deck,
)
from p2p_pageone.engine.qdan import QdanDeal

from .helpers import cards_of, play, play_move, rig

S = QdanSettings()


def deal_of(game: Game) -> QdanDeal:
    assert isinstance(game.deal, QdanDeal)
    return game.deal


def top_name(game: Game) -> tuple[int, int]:
    deal = deal_of(game)
    return deal.top_colour, deal.top_kind


# --- Q1 / Q2 ---


def test_q1_deck_is_104_plus_change_colour_cards() -> None:
    deck = qdan_deck(4)
    assert len(deck) == 108
    kinds = Counter((colour_of(c), kind_of(c)) for c in deck if kind_of(c) != KIND_CHANGE)
    assert len(kinds) == 4 * 13 and set(kinds.values()) == {2}
    assert sum(1 for c in deck if kind_of(c) == KIND_CHANGE) == 4
    assert QdanSettings(colour_changes=0).deck_size == 104
    assert QdanSettings(colour_changes=8).deck_size == 112


def test_q2_start_card_is_first_number_and_action_cards_go_under_it() -> None:
    game = rig(S, ["1r 2r 3r", "1y 2y 3y"], stock="d2b skipg cc 7g")
    deal = deal_of(game)
    assert game.chance is None
    assert [deal.known[s] for s in deal.discard] == cards_of("qdan", "d2b skipg cc 7g")
    assert deal.top_group == 1 and top_name(game) == (2, 6)
    assert deal.pending == 0  # a Draw 2 turned at the start does not count
    assert deal.turn == 0


# --- Q3: playing together ---


def test_q3_same_number_together_last_on_top_sets_colour() -> None:
    game = rig(S, ["5r 5b 5y 9g", "1y 2y 3y 4y"], stock="3r")
    play(game, 0, "5r 5b 5y")
    deal = deal_of(game)
    assert top_name(game) == (1, 4)  # yellow 5 on top
    assert deal.top_group == 3 and len(deal.hands[0]) == 1


def test_q3_one_card_must_match_and_ranks_must_agree() -> None:
    game = rig(S, ["5b 5g 6r 9g", "1y 2y 3y 4y"], stock="3r")
    with pytest.raises(IllegalMove, match="none of 5b 5g matches"):
        play(game, 0, "5b 5g")  # neither matches red 3
    with pytest.raises(IllegalMove, match="5b matches neither"):
        play(game, 0, "5b")
    with pytest.raises(IllegalMove, match="share a number"):
        play(game, 0, "6r 5b")


def test_q3_a_group_typed_in_any_order_starts_with_a_matching_card() -> None:
    game = rig(S, ["5b 5r 5g 9g", "1y 2y 3y 4y"], stock="3r")
    play(game, 0, "5b 5r 5g")  # the red one goes first; the green one, typed last, stays on top
    assert deal_of(game).events[-1] == ("play", 0, tuple(cards_of("qdan", "5r 5b 5g")), -1)
    assert top_name(game) == (2, 4)


def test_q3_change_colour_cards_are_not_played_together() -> None:
    game = rig(S, ["cc cc 5b 6b", "1y 2y 3y 4y"], stock="3r")
    with pytest.raises(IllegalMove, match="one at a time"):
        play(game, 0, "cc cc", colour=1)
    plays = [m for m in game.legal_moves(0) if isinstance(m, Play)]
    changes = [m for m in plays if kind_of(m.cards[0]) == KIND_CHANGE]
    assert len(changes) == 4 and all(len(m.slots) == 1 for m in changes)  # one per colour
    play(game, 0, "cc", colour=1)
    assert len(deal_of(game).hands[0]) == 3


def test_q3_change_colour_always_playable_and_chooses_colour() -> None:
    game = rig(S, ["cc 5b 6b 3g", "1y 2y 3y 4y"], stock="3r")
    with pytest.raises(IllegalMove, match="choose the next colour"):
        play(game, 0, "cc")
    with pytest.raises(IllegalMove, match="only a change-colour"):
        game.apply(play_move(game, 0, "3g", colour=2))
    play(game, 0, "cc", colour=1)
    assert top_name(game) == (1, KIND_CHANGE)
    play(game, 1, "2y")


# --- Q4: draw cards ---


def test_q4_draw_two_makes_next_draw_and_lose_turn() -> None:
    game = rig(S, ["d2r 1b 2b 3b", "5y 6y 7y 8y", "1g 2g 3g 4g"], stock="3r")
    play(game, 0, "d2r")
    deal = deal_of(game)
    assert deal.pending == 2 and deal.turn == 1
    with pytest.raises(IllegalMove, match="draw 2 or stack"):
        play(game, 1, "5y")
    game.apply(Draw(1))
    assert len(deal.hands[1]) == 6 and deal.pending == 0 and deal.turn == 2


def test_q4_stacking_same_card_adds_and_passes_on() -> None:
    game = rig(S, ["d2r 1b 2b 3b", "d2y d2g 7y 8y", "1g 2g d3g 4g"], stock="3r")
    play(game, 0, "d2r")
    play(game, 1, "d2y d2g")
    deal = deal_of(game)
    assert deal.pending == 6 and deal.turn == 2
    with pytest.raises(IllegalMove, match="stack another d2"):
        play(game, 2, "d3g")  # Draw 3 does not answer a Draw 2
    game.apply(Draw(2))
    assert len(deal.hands[2]) == 4 + 6 and deal.turn == 0


def test_q4_change_colour_does_not_answer_a_pending_draw() -> None:
    game = rig(S, ["d3r 1b 2b 3b", "cc 6y 7y 8y"], stock="3r")
    play(game, 0, "d3r")
    with pytest.raises(IllegalMove, match="draw 3"):
        play(game, 1, "cc", colour=0)


# --- Q5 / Q6 ---


def test_q5_reverse_changes_direction_even_count_does_not() -> None:
    game = rig(S, ["revr 1b 2b 3b", "5y 6y 7y 8y", "1g 2g 3g 4g"], stock="3r")
    play(game, 0, "revr")
    deal = deal_of(game)
    assert deal.direction == -1 and deal.turn == 2
    game2 = rig(S, ["revr revy 2b 3b", "5y 6y 7y 8y", "1g 2g 3g 4g"], stock="3r")
    play(game2, 0, "revr revy")
    assert deal_of(game2).direction == 1 and deal_of(game2).turn == 1


def test_q5_reverse_with_two_players_opponent_plays_next() -> None:
    game = rig(S, ["revr 1b 2b 3b", "5y 6y 7y 8y"], stock="3r")
    play(game, 0, "revr")
    assert deal_of(game).turn == 1


def test_q6_skip_skips_one_each_and_two_players_play_again() -> None:
    game = rig(S, ["skipr skipy 2b 3b", "5y 6y 7y 8y", "1g 2g 3g 4g", "1r 2r 3r 4r"],
               stock="3r")
    play(game, 0, "skipr skipy")
    assert deal_of(game).turn == 3
    game2 = rig(S, ["skipr 1b 2b 3b", "5y 6y 7y 8y"], stock="3r")
    play(game2, 0, "skipr")
    assert deal_of(game2).turn == 0


@pytest.mark.parametrize(("players", "skips"), [(2, 2), (2, 3), (3, 2), (3, 3), (4, 4)])
def test_q6_skips_never_come_round_to_their_player(players: int, skips: int) -> None:
    names = ["skipr", "skipr", "skipy", "skipy"][:skips]
    pad = ["1b", "2b", "3b", "4b", "5b"][: 5 - skips]
    others = ["5y 6y 7y 8y 9y", "1g 2g 3g 4g 5g", "6g 7g 8g 9g 1y"]
    game = rig(S, [" ".join(names + pad), *others[: players - 1]], stock="3r")
    play(game, 0, " ".join(names))
    skipped = min(skips, players - 1)  # at most n-1 skipped: two players means play again
    assert deal_of(game).turn == (1 + skipped) % players


# --- Q7 / Q8 ---


def test_q7_draw_one_and_pass_even_when_able_to_play() -> None:
    game = rig(S, ["5r 1b 2b 3b", "5y 6y 7y 8y"], stock="3r 9g")
    game.apply(Draw(0))
    deal = deal_of(game)
    assert len(deal.hands[0]) == 5 and deal.turn == 1


def test_q8_over_the_hand_limit_is_eliminated_at_lowest_place() -> None:
    settings = QdanSettings(hand_limit=10, start_cards=9)
    game = rig(settings, ["1b 2b 4b 5b 6b 7b 8b 9b skipb", "1y 2y 3y 4y 5y 6y 7y 8y 9y",
                          "1g 2g 3g 4g 5g 6g 7g 8g d2y"], stock="3r")
    deal = deal_of(game)
    game.apply(Draw(0))  # 10 cards: at the limit, still playing
    assert not deal.places[0] and deal.turn == 1
    play(game, 1, "3y")
    play(game, 2, "d2y")  # seat 0 must take 2: 12 > 10
    top_before = deal.discard[-1]
    game.apply(Draw(0))
    assert deal.places[0] == 3 and not deal.hands[0]
    assert deal.discard[-1] == top_before  # the eliminated cards go under the top group
    assert len(deal.discard) == 3 + 12 and deal.top_group == 1
    assert deal.turn == 1


# --- Q9: the call ---


def test_q9_call_said_before_the_play() -> None:
    game = rig(S, ["5r 6r 7b", "1y 2y 3y", "1g 2g 3g"], stock="3r")
    play(game, 0, "5r")  # two left: no call due yet
    deal = deal_of(game)
    assert deal.open_miss == -1
    game.apply(Draw(1))
    game.apply(Draw(2))
    game.apply(Call(0))  # said before the play
    with pytest.raises(IllegalMove, match="already said"):
        game.apply(Call(0))
    play(game, 0, "6r")
    assert deal.open_miss == -1 and deal.called[0]
    with pytest.raises(IllegalMove, match="owes no Page One call"):
        game.apply(Catch(1, 0))


def test_q9_missed_call_caught_draws_penalty() -> None:
    game = rig(S, ["5r 6r 7b", "1y 2y 3y", "1g 2g 3g"], stock="3r")
    play(game, 0, "5r")
    game.apply(Draw(1))
    game.apply(Draw(2))
    play(game, 0, "6r")  # one card left, no call
    deal = deal_of(game)
    assert deal.open_miss == 0
    with pytest.raises(IllegalMove, match="on your own turn"):
        game.apply(Call(0))  # too late: the call comes before the play
    game.apply(Catch(2, 0))
    assert len(deal.hands[0]) == 1 + 5


def test_q9_attached_call_and_no_call_from_two_to_zero() -> None:
    game = rig(S, ["5r 6r 7b", "1y 2y 3y"], stock="3r")
    play(game, 0, "5r")
    game.apply(Draw(1))
    play(game, 0, "6r", call=True)
    deal = deal_of(game)
    assert deal.open_miss == -1 and deal.called[0]
    game2 = rig(S, ["5r 5b 7b", "1y 2y 3y"], stock="3r")
    deal2 = deal_of(game2)
    deal2.hands[0] = deal2.hands[0][:2]  # holds 5r 5b
    with pytest.raises(IllegalMove, match="leaves you one card"):
        play(game2, 0, "5r 5b", call=True)
    play(game2, 0, "5r 5b")  # two to zero: no call needed
    assert deal2.places[0] == 1 and deal2.open_miss == -1


def test_q9_catch_window_closes_on_next_players_action() -> None:
    game = rig(S, ["5r 6r 7b", "1y 2y 3y", "1g 2g 3g"], stock="3r")
    play(game, 0, "5r")
    game.apply(Draw(1))
    game.apply(Draw(2))
    play(game, 0, "6r")
    game.apply(Draw(1))
    with pytest.raises(IllegalMove, match="too late"):
        game.apply(Catch(2, 0))


def test_q9_announce_rule_off_no_call_no_catch() -> None:
    settings = QdanSettings(announce=False)
    game = rig(settings, ["5r 6r 7b", "1y 2y 3y"], stock="3r")
    with pytest.raises(IllegalMove, match="without the announce rule"):
        game.apply(Call(0))
    play(game, 0, "5r")
    game.apply(Draw(1))
    play(game, 0, "6r")
    assert deal_of(game).open_miss == -1
    with pytest.raises(IllegalMove):
        game.apply(Catch(1, 0))


@pytest.mark.parametrize("penalty", [5, 2, 0])
def test_q9_forget_penalty_setting(penalty: int) -> None:
    settings = QdanSettings(forget_penalty=penalty)
    game = rig(settings, ["5r 6r 7b", "1y 2y 3y"], stock="3r")
    play(game, 0, "5r")
    game.apply(Draw(1))
    play(game, 0, "6r")
    deal = deal_of(game)
    if penalty:
        game.apply(Catch(1, 0))
        assert len(deal.hands[0]) == 1 + penalty
    else:
        with pytest.raises(IllegalMove, match="forget penalty"):
            game.apply(Catch(1, 0))


# --- Q10 / Q11 ---


def test_q10_places_in_order_and_last_player_takes_last_place() -> None:
    game = rig(S, ["5r 6r 7b", "5y 6y 7y", "1g 2g 3g"], stock="3r")
    deal = deal_of(game)
    deal.hands[0] = deal.hands[0][:1]
    play(game, 0, "5r")
    assert deal.places[0] == 1 and not game.over
    deal.hands[1] = deal.hands[1][:1]
    play(game, 1, "5y")
    assert game.over and game.places == [1, 2, 3]


def test_q11_empty_stock_keeps_top_group_and_reshuffles_the_rest() -> None:
    game = rig(S, ["5r 1b 2b", "5y 5b 3y"], stock="3r")
    play(game, 0, "5r")
    play(game, 1, "5y 5b")
    deal = deal_of(game)
    deal.stock.clear()
    game.apply(Draw(0))
    request = game.chance
    assert isinstance(request, ReshuffleRequest)
    assert request.cards == tuple(cards_of("qdan", "3r 5r"))
    game.reshuffle(list(request.cards))
    assert [deal.known[s] for s in deal.discard] == cards_of("qdan", "5y 5b")
    assert len(deal.hands[0]) == 3 and len(deal.stock) == 1


def test_q11_a_single_card_is_not_reshuffled() -> None:
    game = rig(S, ["5r 5b 1b", "1y 2y 3y"], stock="3r")
    play(game, 0, "5r 5b")
    deal = deal_of(game)
    deal.stock.clear()
    game.apply(Draw(1))  # only the start card 3r could be recycled: the draw is skipped
    assert game.chance is None and len(deal.hands[1]) == 3 and deal.turn == 0


def test_q11_nothing_to_reshuffle_skips_the_draw() -> None:
    game = rig(S, ["5r 1b 2b", "1y 2y 3y"], stock="3r")
    deal = deal_of(game)
    deal.stock.clear()
    deal.discard[:] = deal.discard[-1:]
    game.apply(Draw(0))
    assert game.chance is None and len(deal.hands[0]) == 3 and deal.turn == 1


# --- settings ---


def test_start_cards_and_hand_limit_settings() -> None:
    game = Game(QdanSettings(start_cards=5), 3, 0)
    game.deal_cards(list(range(108)))
    assert all(len(game.deal.hands[s]) == 5 for s in range(3))
    with pytest.raises(SettingError, match=r"hand_limit must be one of 10\.\.25"):
        QdanSettings(hand_limit=9)
    with pytest.raises(SettingError, match="too large for 6 players"):
        QdanSettings(hand_limit=20).check_players(6)


def test_turn_timer_setting_values() -> None:
    assert QdanSettings(turn_timer=30).turn_timer == 30
    with pytest.raises(SettingError, match="turn_timer must be one of 0, 30, 60"):
        QdanSettings(turn_timer=45)


def test_number_cards_are_numbers() -> None:
    assert is_number(parse_qdan("9b")) and not is_number(parse_qdan("d2b"))
