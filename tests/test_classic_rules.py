"""One test (at least) per classic ruling, C1–C13 of RULINGS.md, and the seeds' scoring."""

from __future__ import annotations

import pytest

from p2p_pageone.engine import (
    Call,
    Catch,
    ClassicSettings,
    Draw,
    Game,
    IllegalMove,
    ReshuffleRequest,
)
from p2p_pageone.engine.cards import classic_points, parse_classic
from p2p_pageone.engine.classic import ClassicDeal

from .helpers import cards_of, hand, play, play_move, rig

S = ClassicSettings()


def deal_of(game: Game) -> ClassicDeal:
    assert isinstance(game.deal, ClassicDeal)
    return game.deal


def c(text: str) -> int:
    return parse_classic(text)


# --- the seeds' core mechanics ---


def test_lead_any_card_then_follow_suit_and_highest_wins() -> None:
    game = rig(S, ["5h 2c 3c 4c", "kh 2d 3d 4d", "ah 2s 3s 4s"])
    play(game, 0, "5h")
    with pytest.raises(IllegalMove, match="follow hearts"):
        play(game, 1, "2d")
    play(game, 1, "kh")
    play(game, 2, "ah")
    deal = deal_of(game)
    assert deal.tricks == 1 and deal.leader == 2 and deal.turn == 2
    assert not deal.trick


def test_play_out_of_turn_is_refused() -> None:
    game = rig(S, ["5h 2c 3c 4c", "kh 2d 3d 4d"])
    with pytest.raises(IllegalMove, match="not your turn"):
        play(game, 1, "kh")


def test_leader_may_not_draw() -> None:
    game = rig(S, ["5h 2c 3c 4c", "kh 2d 3d 4d"])
    with pytest.raises(IllegalMove, match="you lead"):
        game.apply(Draw(0))


def test_penalty_points() -> None:
    assert classic_points(c("as"), 50) == 15
    assert [classic_points(c(x), 50) for x in ("ks", "qh", "jd")] == [10, 10, 10]
    assert classic_points(c("7c"), 50) == 7 and classic_points(c("10c"), 50) == 10
    assert classic_points(c("jk"), 50) == 50 and classic_points(c("jk"), 20) == 20


# --- C1 / C2: the Page One call and its window ---


def test_c1_call_due_at_two_cards_and_c2_catch_in_window() -> None:
    game = rig(S, ["5h 6h 2c 3c", "kh 2d 3d 4d", "qh 2s 3s 4s"], stock="9d 9s 9c 8d 8s")
    play(game, 0, "5h")
    play(game, 1, "kh")
    play(game, 2, "qh")  # seat 1 wins and leads
    play(game, 1, "2d")
    game.apply(Draw(2))  # seat 2 has no diamonds: draws 9d (a diamond) ...
    play(game, 2, "9d")  # ... and must play it
    deal = deal_of(game)
    assert deal.turn == 0
    with pytest.raises(IllegalMove):
        play(game, 0, "2c")  # 0 has no diamonds: must draw
    game.apply(Draw(0))  # draws 9s: not a diamond
    game.apply(Draw(0))  # draws 9c
    game.apply(Draw(0))  # 8d: a diamond, must be played
    with pytest.raises(IllegalMove, match="must be played at once"):
        play(game, 0, "6h")
    play(game, 0, "8d")
    assert deal.leader == 2  # 9d won


def test_c1_missed_call_can_be_caught_until_next_player_acts() -> None:
    game = rig(S, ["5h 6h 2c 3c", "kh 2d 3d 4d", "qh 2s 3s 4s"], stock="9d 9s 9c 8d 8s 7s")
    play(game, 0, "5h")  # 3 cards left: no call due
    deal = deal_of(game)
    assert deal.open_miss == -1
    play(game, 1, "kh")
    play(game, 2, "qh")
    play(game, 1, "2d")  # seat 1 now holds 2 (3d 4d): call missed
    assert deal.open_miss == 1
    game.apply(Catch(2, 1))
    assert len(deal.hands[1]) == 2 + 5  # forget penalty: five cards
    with pytest.raises(IllegalMove, match="too late or too early"):
        game.apply(Catch(0, 1))


def test_c2_window_closes_when_another_player_acts() -> None:
    game = rig(S, ["5h 6h 7h 3c", "kh 2d 3d 4d", "qh 9h 10h 4s"])
    play(game, 0, "5h")
    play(game, 1, "kh")
    play(game, 2, "qh")
    play(game, 1, "2d")
    assert deal_of(game).open_miss == 1
    game.apply(Draw(2))  # the next player's action is accepted: the window closes
    with pytest.raises(IllegalMove, match="too late"):
        game.apply(Catch(0, 1))


def test_c2_call_attached_to_play_and_call_after_play() -> None:
    game = rig(S, ["5h 6h 7h 3c", "kh 2d 3d 4d", "qh 2s 3s 4s"])
    with pytest.raises(IllegalMove, match="call Page One with the play"):
        game.apply(play_move(game, 0, "5h", call=True))  # leaves three: no call
    play(game, 0, "5h")
    play(game, 1, "kh")
    play(game, 2, "qh")
    play(game, 1, "2d", call=True)
    deal = deal_of(game)
    assert deal.open_miss == -1 and deal.called[1]


def test_c2_late_call_in_window_prevents_catch() -> None:
    game = rig(S, ["5h 6h 7h 3c", "kh 2d 3d 4d", "qh 2s 3s 4s"])
    play(game, 0, "5h")
    play(game, 1, "kh")
    play(game, 2, "qh")
    play(game, 1, "2d")
    game.apply(Call(1))
    with pytest.raises(IllegalMove):
        game.apply(Catch(2, 1))
    with pytest.raises(IllegalMove, match="call Page One when"):
        game.apply(Call(0))


def test_c1_drawing_above_clears_the_call_and_a_new_one_is_due() -> None:
    game = rig(S, ["5h 6h 7h 3c", "kh 2d 3d 9h", "qh 2s 3s 4s"], stock="8s 8c 7d 5s")
    play(game, 0, "5h")
    play(game, 1, "kh")
    play(game, 2, "qh")
    play(game, 1, "2d", call=True)  # seat 1 at two cards, called
    deal = deal_of(game)
    assert deal.called[1]
    game.apply(Draw(2))  # 8s: not a diamond
    game.apply(Draw(2))  # 8c
    game.apply(Draw(2))  # 7d: must play
    play(game, 2, "7d")
    game.apply(Draw(0))  # seat 0 has no diamonds: 5s
    assert len(deal.hands[0]) == 4


def test_c1_call_at_one_variant() -> None:
    settings = ClassicSettings(call_at=1)
    game = rig(settings, ["5h 6h 7h 3c", "kh 2d 3d 4d", "qh 2s 3s 4s"])
    play(game, 0, "5h")
    play(game, 1, "kh")
    play(game, 2, "qh")
    play(game, 1, "2d")  # two cards left: nothing due with call_at=1
    assert deal_of(game).open_miss == -1
    with pytest.raises(IllegalMove, match=r"leaves you 1 card$"):
        game.apply(play_move(game, 2, "2s", call=True))


# --- C3 / C4 / C5: jokers and drawing to follow ---


def test_c3_joker_led_next_card_sets_suit_and_joker_wins() -> None:
    game = rig(S, ["jk 2c 3c 4c", "5d 2h 3h 4h", "kd ah 3s 4s"])
    play(game, 0, "jk")
    with pytest.raises(IllegalMove, match="a joker was led"):
        game.apply(Draw(1))
    play(game, 1, "2h")  # any card; hearts to follow now
    with pytest.raises(IllegalMove, match="follow hearts"):
        play(game, 2, "kd")
    play(game, 2, "ah")
    assert deal_of(game).leader == 0  # the joker still wins


def test_c4_joker_may_be_played_instead_of_following() -> None:
    game = rig(S, ["5h 2c 3c 4c", "jk 6h 3d 4d"])
    play(game, 0, "5h")
    play(game, 1, "jk")  # holds 6h, plays the joker anyway
    assert deal_of(game).leader == 1


def test_c5_cannot_draw_while_holding_the_led_suit() -> None:
    game = rig(S, ["5h 2c 3c 4c", "9h 6d 3d 4d"])
    play(game, 0, "5h")
    with pytest.raises(IllegalMove, match="follow suit instead of drawing"):
        game.apply(Draw(1))


def test_c5_drawn_joker_may_be_played_at_once() -> None:
    game = rig(S, ["5h 2c 3c 4c", "6d 7d 3d 4d"], stock="2s jk 9h")
    play(game, 0, "5h")
    game.apply(Draw(1))  # 2s
    game.apply(Draw(1))  # the joker: a legal follow
    play(game, 1, "jk")
    assert deal_of(game).leader == 1


def test_c5_drawn_card_of_led_suit_must_be_played() -> None:
    game = rig(S, ["5h 2c 3c 4c", "jk 7d 3d 4d"], stock="9h 2s")
    play(game, 0, "5h")
    game.apply(Draw(1))  # 9h
    with pytest.raises(IllegalMove, match="must be played at once"):
        play(game, 1, "jk")
    with pytest.raises(IllegalMove, match="follow suit instead"):
        game.apply(Draw(1))
    play(game, 1, "9h")


# --- C6 / C9: the stock runs out ---


def _drain_stock(game: Game) -> None:
    deal = deal_of(game)
    deal.stock.clear()


def test_c6_empty_stock_reshuffles_collected_tricks() -> None:
    game = rig(S, ["5h 2c 3c 4c", "kh 2d 3d 4d"], stock="9s")
    play(game, 0, "5h")
    play(game, 1, "kh")  # trick of 5h kh collected
    play(game, 1, "2d")
    _drain_stock(game)
    game.apply(Draw(0))
    request = game.chance
    assert isinstance(request, ReshuffleRequest)
    assert sorted(request.cards) == sorted(cards_of("classic", "5h kh"))
    game.reshuffle(list(request.cards))
    deal = deal_of(game)
    assert not deal.collected and len(deal.stock) == 1 and len(deal.hands[0]) == 4


def test_c6_nothing_to_reshuffle_the_player_passes_and_keeps_their_draws() -> None:
    game = rig(S, ["5h 2c 3c 4c", "6d 2d 3d 4d", "9h 8s 9d 10d"], stock="js qs")
    play(game, 0, "5h")
    deal = deal_of(game)
    deal.stock[:] = deal.stock[-1:]  # one card (the jack of spades) left
    game.apply(Draw(1))  # the jack
    assert deal.drawn_slot >= 0 and deal.turn == 1
    game.apply(Draw(1))  # nothing left to draw or reshuffle: seat 1 passes
    assert not deal.over and ("passed", 1) in deal.events
    assert hand(game, 1) == sorted(cards_of("classic", "6d 2d 3d 4d js"))
    assert deal.turn == 2 and deal.drawn_slot == -1
    assert [m for m in game.legal_moves(1) if not isinstance(m, Catch)] == []
    play(game, 2, "9h")  # the trick is complete without seat 1's card
    assert deal.leader == 2 and len(deal.collected) == 2 and deal.stock_closed
    play(game, 2, "8s")
    game.apply(Draw(0))  # the stock stays closed: no reshuffle, seat 0 passes at once
    assert game.chance is None and ("passed", 0) in deal.events
    assert len(deal.hands[0]) == 3 and deal.turn == 1 and not game.results


def test_c6_closed_stock_forgives_penalties_and_the_deal_ends() -> None:
    game = rig(S, ["5h 2c 3c 4c", "6d 2d 3d 4d"])
    deal = deal_of(game)
    deal.stock.clear()
    play(game, 0, "5h")
    game.apply(Draw(1))  # passes: the trick holds the lead alone
    assert deal.leader == 0 and deal.tricks == 1 and deal.stock_closed
    play(game, 0, "2c")  # two cards left, no call
    game.apply(Catch(1, 0))
    assert ("forgiven", 0, 5) in deal.events and len(deal.hands[0]) == 2
    game.apply(Draw(1))
    play(game, 0, "3c")
    game.apply(Draw(1))
    play(game, 0, "4c")  # out: the deal ends normally and is scored
    assert game.results[-1].scores == {0: 0, 1: 2 + 3 + 4 + 6}


def test_c6_setting_exhausted_drawn_makes_a_drawn_deal() -> None:
    game = rig(ClassicSettings(exhausted="drawn"), ["5h 2c 3c 4c", "6d 2d 3d 4d"], stock="9s")
    play(game, 0, "5h")
    _drain_stock(game)
    game.apply(Draw(1))
    assert game.results[-1].drawn
    assert all(points == 0 for points in game.results[-1].scores.values())
    assert game.totals == [0, 0]


def test_c9_penalty_larger_than_stock_reshuffles_then_forgives() -> None:
    game = rig(S, ["5h 6h 2c 3c", "kh 9d 3d 4d", "qh 2s 3s 4s"], stock="8s 7s")
    play(game, 0, "5h")
    play(game, 1, "kh")
    play(game, 2, "qh")
    play(game, 1, "9d")  # seat 1 at two cards, no call
    deal = deal_of(game)
    deal.stock[:] = deal.stock[-2:]  # two cards left in the stock
    game.apply(Catch(0, 1))
    request = game.chance
    assert isinstance(request, ReshuffleRequest) and len(request.cards) == 3
    game.reshuffle(list(request.cards))
    assert game.chance is None
    assert len(deal.hands[1]) == 2 + 5
    assert ("forgiven", 1, 0) not in deal.events
    # a second penalty with nothing left to reshuffle is forgiven
    game2 = rig(S, ["5h 6h 2c 3c", "kh 9d 3d 4d", "qh 2s 3s 4s"], stock="8s")
    play(game2, 0, "5h")
    play(game2, 1, "kh")
    play(game2, 2, "qh")
    deal2 = deal_of(game2)
    deal2.collected.clear()
    deal2.stock[:] = deal2.stock[-1:]
    play(game2, 1, "9d")
    game2.apply(Catch(2, 1))
    assert len(deal2.hands[1]) == 3 and ("forgiven", 1, 4) in deal2.events


# --- C7 / C8 ---


def test_c7_first_joker_played_wins() -> None:
    game = rig(ClassicSettings(jokers=2), ["5h 2c 3c 4c", "jk 2d 3d 4d", "jk2 2s 3s 4s"])
    play(game, 0, "5h")
    play(game, 1, "jk")
    play(game, 2, "jk")
    assert deal_of(game).leader == 1


def test_c8_going_out_mid_trick_ends_the_deal_and_forgives_missed_call() -> None:
    game = rig(S, ["5h 6h 7h 8h", "kh 2d 3d 4d", "qh 2s 3s 4s"])
    deal = deal_of(game)
    deal.hands[1] = deal.hands[1][:1]  # seat 1 holds only the king of hearts
    play(game, 0, "5h")  # 3 left
    play(game, 1, "kh")  # out, mid-trick
    assert deal.over and deal.winner == 1
    result = game.results[-1]
    assert result.scores[1] == 0
    assert result.scores[0] == 6 + 7 + 8 and result.scores[2] == 10 + 2 + 3 + 4
    with pytest.raises(IllegalMove, match="deal is over"):
        deal.apply(Catch(2, 1))


# --- C10 / C11 ---


def test_c10_reverse_lead_lowest_of_led_suit_leads() -> None:
    settings = ClassicSettings(reverse_lead=True)
    game = rig(settings, ["5h 2c 3c 4c", "kh 2d 3d 4d", "2h 2s 3s 4s"])
    play(game, 0, "5h")
    play(game, 1, "kh")
    play(game, 2, "2h")
    assert deal_of(game).leader == 2


def test_c10_joker_is_never_lowest() -> None:
    settings = ClassicSettings(reverse_lead=True)
    game = rig(settings, ["5h 2c 3c 4c", "jk 2d 3d 4d", "9h 2s 3s 4s"])
    play(game, 0, "5h")
    play(game, 1, "jk")
    play(game, 2, "9h")
    assert deal_of(game).leader == 0


def test_c11_stop_eight_skips_the_next_player() -> None:
    settings = ClassicSettings(stop_eight=True)
    game = rig(settings, ["8h 2c 3c 4c", "kh 2d 3d 4d", "qh 2s 3s 4s"])
    play(game, 0, "8h")
    deal = deal_of(game)
    assert deal.turn == 2
    with pytest.raises(IllegalMove, match="not your turn"):
        play(game, 1, "kh")
    play(game, 2, "qh")
    assert deal.leader == 2 and hand(game, 1) == sorted(cards_of("classic", "kh 2d 3d 4d"))


def test_c11_without_the_variant_an_eight_is_plain() -> None:
    game = rig(S, ["8h 2c 3c 4c", "kh 2d 3d 4d", "qh 2s 3s 4s"])
    play(game, 0, "8h")
    assert deal_of(game).turn == 1


# --- C12 / C13: scoring modes and settings ---


def _finish_deal_quickly(game: Game) -> None:
    """Seat to lead plays out a one-card hand."""
    deal = deal_of(game)
    seat = deal.turn
    deal.hands[seat] = deal.hands[seat][:1]
    game.apply(game.legal_moves(seat)[0])


def _new_deal(game: Game) -> None:
    game.deal_cards(list(range(game.settings.deck_size)))


def test_c12_deals_mode_lowest_total_wins_and_dealer_rotates() -> None:
    game = Game(ClassicSettings(deals=2), 3, 0)
    _new_deal(game)
    assert game.deal.dealer == 0
    _finish_deal_quickly(game)
    assert len(game.results) == 1 and not game.over
    assert game.deal.dealer == 1
    _new_deal(game)
    _finish_deal_quickly(game)
    assert game.over and len(game.results) == 2
    best = min(game.totals)
    assert game.winners() == [s for s in range(3) if game.totals[s] == best]


def test_c12_ties_share_the_place() -> None:
    game = Game(ClassicSettings(deals=1), 2, 0)
    game.totals = [0, 0]
    game._finish_game()
    assert game.places == [1, 1]


def test_c12_elimination_over_100_and_last_standing_wins() -> None:
    game = Game(ClassicSettings(scoring="elimination"), 3, 0)
    game.totals = [95, 99, 0]
    _new_deal(game)
    _finish_deal_quickly(game)
    out = [s for s in range(3) if game.out_at[s]]
    assert all(game.totals[s] > 100 for s in out)
    assert all(game.totals[s] <= 100 for s in range(3) if s not in out)
    while not game.over:
        _new_deal(game)
        assert all(not game.out_at[p] for p in game.deal.players)
        _finish_deal_quickly(game)
    assert len(game.winners()) == 1
    assert not game.out_at[game.winners()[0]]


def test_c13_five_cards_two_jokers_and_twenty_point_joker() -> None:
    settings = ClassicSettings(hand_size=5, jokers=2, joker_points=20)
    game = Game(settings, 4, 0)
    assert settings.deck_size == 54
    _new_deal(game)
    assert all(len(game.deal.hands[s]) == 5 for s in range(4))
    assert len(game.deal.stock) == 54 - 20
    assert classic_points(53, settings.joker_points) == 20


def test_c13_no_forget_penalty_means_nothing_to_catch() -> None:
    settings = ClassicSettings(forget_penalty=0)
    game = rig(settings, ["5h 6h 7h 3c", "kh 2d 3d 4d", "qh 2s 3s 4s"])
    play(game, 0, "5h")
    play(game, 1, "kh")
    play(game, 2, "qh")
    play(game, 1, "2d")
    with pytest.raises(IllegalMove, match="without the forget penalty"):
        game.apply(Catch(2, 1))
