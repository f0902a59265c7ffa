"""Classic playouts by ``normal``'s own rules of thumb (or ``sharp``'s), read straight off a
full-information copy of the deal: the same choices ``NormalBot`` makes from a seat's view,
without building one."""

from __future__ import annotations

from ..engine.cards import JOKER, KIND_DRAW2, KIND_DRAW3, KIND_SKIP, QDAN_COLOURED
from ..engine.classic import ClassicDeal
from ..engine.moves import Draw, Move, Play
from ..engine.qdan import QdanDeal
from .normal import NormalBot, _preferred_plays, best_led_rank, cheapest_winner

_DRAWS = (KIND_DRAW2, KIND_DRAW3)
_ATTACKS = (KIND_DRAW2, KIND_DRAW3, KIND_SKIP)


def qdan_habit(deal: QdanDeal, seat: int, habits: NormalBot, moves: list[Move],
               salt: int) -> Move:
    """``normal``'s qdan choice (or ``sharp``'s) read off the copy, its ties broken by ``salt``
    (one per world) instead of a fresh random draw: the candidates' playouts of a world then
    break the same ties alike, so their outcomes differ by what the moves change. The scores
    are ``qdan_score``'s, inlined for speed (a test holds the two together)."""
    called = {m.slots for m in moves if isinstance(m, Play) and m.call}
    known, colours = deal.known, [0, 0, 0, 0]
    for slot in deal.hands[seat]:
        card = known[slot]
        if card < QDAN_COLOURED:
            colours[card // 26] += 1
    low = len(deal.hands[deal._step(seat, 1)]) <= habits.attack_at
    hit, keep = habits.attack_bonus, habits.draw_card_keep
    best: Move | None = None
    top = -1e9
    for move in moves:
        if not isinstance(move, Play) or (not move.call and move.slots in called):
            continue
        cards = move.cards
        first = cards[0]
        score = 10.0 * len(cards)
        if first >= QDAN_COLOURED:
            score += -25 + 2 * colours[move.colour]
        else:
            kind = (first % 26) >> 1
            if kind in _ATTACKS and low:
                score += hit
            elif kind in _DRAWS:
                score += keep
            last = cards[-1] // 26
            same = 1 if len(cards) == 1 else sum(1 for c in cards if c // 26 == last)
            score += 2 * (colours[last] - same)
        score += ((first * 131 + move.colour * 17 + salt) % 997) / 997
        if score > top:
            best, top = move, score
    if best is None:
        return next((m for m in moves if isinstance(m, Draw)), moves[0])
    return best


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
