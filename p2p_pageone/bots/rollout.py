"""Classic playouts by ``normal``'s own rules of thumb (or ``sharp``'s), read straight off a
full-information copy of the deal: the same choices ``NormalBot`` makes from a seat's view,
without building one."""

from __future__ import annotations

from ..engine.cards import JOKER, QDAN_COLOURED
from ..engine.classic import ClassicDeal
from ..engine.moves import Draw, Move, Play
from ..engine.qdan import QdanDeal
from .normal import NormalBot, _preferred_plays, best_led_rank, cheapest_winner, qdan_score


def qdan_habit(deal: QdanDeal, seat: int, habits: NormalBot, moves: list[Move],
               salt: int) -> Move:
    """``normal``'s qdan choice (or ``sharp``'s) read off the copy, its ties broken by ``salt``
    (one per world) instead of a fresh random draw: the candidates' playouts of a world then
    break the same ties alike, so their outcomes differ by what the moves change."""
    plays = _preferred_plays(moves)
    if not plays:
        return next((m for m in moves if isinstance(m, Draw)), moves[0])
    known, colours = deal.known, [0, 0, 0, 0]
    for slot in deal.hands[seat]:
        card = known[slot]
        if card < QDAN_COLOURED:
            colours[card // 26] += 1
    next_count = len(deal.hands[deal._step(seat, 1)])
    return max(plays, key=lambda p: qdan_score(habits, p, colours, next_count)
               + ((p.cards[0] * 131 + p.colour * 17 + salt) % 997) / 997)


def classic_habit(deal: ClassicDeal, seat: int, habits: NormalBot, moves: list[Move]) -> Move:
    plays = _preferred_plays(moves)
    if not plays:
        return next((m for m in moves if isinstance(m, Draw)), moves[0])
    hands = deal.hands
    low = min(len(hands[p]) for p in deal.players if p != seat) <= 2
    jokers = [p for p in plays if p.cards[0] >= JOKER]
    suited = [p for p in plays if p.cards[0] < JOKER]
    if not deal.trick:
        if not suited:
            return jokers[0]
        return _lead(deal, seat, suited, habits.seen_weight)
    if not suited:
        draw = next((m for m in moves if isinstance(m, Draw)), None)
        if (draw is not None and not habits.joker_before_drawing and not low
                and len(hands[seat]) > 2):
            return draw
        return jokers[0]
    if low and jokers:
        return jokers[0]
    return cheapest_winner(suited, best_led_rank((c for _, _, c in deal.trick), deal.led_suit))


def _lead(deal: ClassicDeal, seat: int, suited: list[Play], seen_weight: int) -> Play:
    known = deal.known
    counts = [0, 0, 0, 0]
    for slot in deal.hands[seat]:
        card = known[slot]
        if card < JOKER:
            counts[card // 13] += 1
    seen = [0, 0, 0, 0]
    for slot in deal.collected:
        card = known[slot]
        if card < JOKER:
            seen[card // 13] += 1

    def value(play: Play) -> tuple[int, int]:
        suit = play.cards[0] // 13
        return (counts[suit] * 3 + seen[suit] * seen_weight, play.cards[0] % 13)

    best_suit = max(suited, key=value).cards[0] // 13
    in_suit = [p for p in suited if p.cards[0] // 13 == best_suit]
    if deal.rules.reverse_lead:
        return min(in_suit, key=lambda p: p.cards[0] % 13)
    return max(in_suit, key=lambda p: p.cards[0] % 13)
