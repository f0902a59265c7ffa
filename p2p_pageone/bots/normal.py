"""The ``normal`` CPU: the seeds' strategy tips as heuristics.

Classic: lead the longest suit (weighted towards suits opponents are likely void in, by counting
the cards already seen), keep the joker for when an opponent is low, always call, catch missed
calls. Qdan: stack draw cards, shed the biggest group, hit a low next player with action cards,
keep change-colour cards for when nothing else plays, pick the colour it holds most of.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable

from ..engine.cards import (
    JOKER,
    KIND_CHANGE,
    KIND_DRAW2,
    KIND_DRAW3,
    KIND_SKIP,
    QDAN_COLOURED,
    kind_of,
)
from ..engine.moves import Call, Catch, Draw, Move, Play
from ..engine.settings import ClassicSettings
from ..engine.view import SeatView


class NormalBot:
    name = "normal"
    # The habits ``hard`` changes (measured over thousands of games against these defaults):
    joker_before_drawing = False  # classic: play the joker rather than draw to follow suit
    seen_weight = 1  # classic lead: weight of the suit's cards already seen
    draw_card_keep = 0  # qdan: score of a Draw 2/3 while the next player is not low
    attack_at, attack_bonus = 3, 15  # qdan: the next player is low at this many cards: hit it
    # The chance of forgetting a Page One call owed, so that people at the table get calls to
    # catch (a table setting; 0 at tables of CPU players only and in ``pageone sim``). A call
    # forgotten stays forgotten: no late call for it.
    forget = 0.0
    _forgetting = False
    _moment: tuple[int, int] = (-1, -1)

    def choose(self, view: SeatView, rng: random.Random) -> Move | None:
        moves = view.legal_moves()
        if not moves:
            return None
        if self.forget > 0 and self._forgets(view, moves, rng):
            moves = [m for m in moves if not isinstance(m, Call)
                     and not (isinstance(m, Play) and m.call)]
        for move in moves:
            if isinstance(move, Catch | Call):
                return move  # catch every missed call; make every call owed
        if view.turn != view.seat:
            return None
        return self.decide(view, moves, rng)

    def _forgets(self, view: SeatView, moves: list[Move], rng: random.Random) -> bool:
        """Whether this seat forgets the call owed now: decided once per turn that owes one."""
        if view.turn != view.seat:
            return self._forgetting  # a late call: only if it did not forget
        if not any(isinstance(m, Call) or (isinstance(m, Play) and m.call) for m in moves):
            self._forgetting = False
            return False
        moment = (len(view.hand()), len(view.played_cards()))
        if moment != self._moment:
            self._moment, self._forgetting = moment, rng.random() < self.forget
        return self._forgetting

    def decide(self, view: SeatView, moves: list[Move], rng: random.Random) -> Move:
        """A move on this seat's own turn, with no call or catch owed."""
        if view.family == "classic":
            return self._classic(view, moves, rng)
        return self._qdan(view, moves, rng)

    # --- classic --------------------------------------------------------------------------------

    def _classic(self, view: SeatView, moves: list[Move], rng: random.Random) -> Move:
        plays = _preferred_plays(moves)
        if not plays:
            return moves[0]
        opponent_low = min(n for s, n in view.counts().items() if s != view.seat) <= 2
        jokers = [p for p in plays if p.cards[0] >= JOKER]
        suited = [p for p in plays if p.cards[0] < JOKER]
        if not view.trick():
            return self._lead(view, suited or jokers, opponent_low)
        if not suited:  # only a joker follows: use it now if it matters, else draw and keep it
            draw = next((m for m in moves if isinstance(m, Draw)), None)
            if (draw is not None and not self.joker_before_drawing and not opponent_low
                    and len(view.hand()) > 2):
                return draw
            return jokers[0]
        if opponent_low and jokers:
            return jokers[0]
        return self._follow(view, suited)

    def _lead(self, view: SeatView, plays: list[Play], opponent_low: bool) -> Play:
        hand = view.hand()
        counts = Counter(c // 13 for c in hand if c < JOKER)
        seen = Counter(c // 13 for c in view.played_cards() if c < JOKER)
        jokers = [p for p in plays if p.cards[0] >= JOKER]
        if opponent_low and jokers:
            return jokers[0]
        suited = [p for p in plays if p.cards[0] < JOKER] or plays

        def value(play: Play) -> tuple[int, int]:
            suit = play.cards[0] // 13
            return (counts[suit] * 3 + seen[suit] * self.seen_weight, play.cards[0] % 13)

        best_suit = max(suited, key=value).cards[0] // 13
        in_suit = [p for p in suited if p.cards[0] // 13 == best_suit]
        settings = view.settings
        low_first = isinstance(settings, ClassicSettings) and settings.reverse_lead
        pick = min if low_first else max
        return pick(in_suit, key=lambda p: p.cards[0] % 13)

    def _follow(self, view: SeatView, plays: list[Play]) -> Play:
        return cheapest_winner(plays, best_led_rank((c for _, c in view.trick()),
                                                    view.led_suit()))

    # --- qdan -----------------------------------------------------------------------------------

    def _qdan(self, view: SeatView, moves: list[Move], rng: random.Random) -> Move:
        plays = _preferred_plays(moves)
        if not plays:
            return next(m for m in moves if isinstance(m, Draw))
        colours = [0, 0, 0, 0]
        for card in view.hand():
            if card < QDAN_COLOURED:
                colours[card // 26] += 1
        next_count = view.counts().get(view.next_seat(), 99)
        return max(plays, key=lambda p: qdan_score(self, p, colours, next_count) + rng.random())


def best_led_rank(trick: Iterable[int], led: int) -> int:
    """The rank to beat in ``trick``: its highest card of the led suit (-1: none; a joker in it
    beats every rank, 99)."""
    best = -1
    for card in trick:
        if card >= JOKER:
            best = 99
        elif card // 13 == led and card % 13 > best:
            best = card % 13
    return best


def cheapest_winner(plays: list[Play], best: int) -> Play:
    """``normal``'s follow: the cheapest card that beats ``best`` (takes the lead), else its
    lowest."""
    winners = [p for p in plays if p.cards[0] % 13 > best]
    return min(winners or plays, key=lambda p: p.cards[0] % 13)


def qdan_score(habits: NormalBot, play: Play, colours: list[int], next_count: int) -> float:
    """How ``normal`` (with ``habits``) rates a qdan play: shed many cards, hit a low next
    player, keep change-colour cards, keep to the colour held most. ``colours``: the cards held
    of each colour before the play."""
    first = play.cards[0]
    kind = kind_of(first)
    score = 10.0 * len(play.cards)
    if kind in (KIND_DRAW2, KIND_DRAW3, KIND_SKIP) and next_count <= habits.attack_at:
        score += habits.attack_bonus
    elif kind in (KIND_DRAW2, KIND_DRAW3):
        score += habits.draw_card_keep
    if kind == KIND_CHANGE:
        return score - 25 + 2 * colours[play.colour]
    cards = play.cards
    last = cards[-1] // 26
    same = 1 if len(cards) == 1 else sum(1 for c in cards if c // 26 == last)
    return score + 2 * (colours[last] - same)


def _preferred_plays(moves: list[Move]) -> list[Play]:
    """The plays, each with the Page One call attached wherever the rules allow it."""
    called = {m.slots for m in moves if isinstance(m, Play) and m.call}
    return [m for m in moves if isinstance(m, Play) and (m.call or m.slots not in called)]

