"""The ``hard`` CPU: sharper habits than ``normal``, and in qdan an information-set search.

Both families start from ``normal``'s play with a few habits changed, each measured over
thousands of simulated games against ``normal`` (scripts/bench_hard.py): in classic it plays the
joker rather than draw to follow (drawing fills the hand it must empty), and it leads the suit
most often seen played, counting those cards twice (opponents are then likelier to be void in
it and to have to draw); in qdan it keeps its Draw 2 and Draw 3 cards, to answer an attack by
stacking, unless the next player is low, and it hits the next player later (at two cards, not
three) but surely.

In qdan it then searches on its own seat's view: it deals the cards it cannot see
(``SeatView.determinize``) as the public record suggests (``infer.py``: what a player who drew,
or played a change-colour card, could not have held; and hands whose recent plays are the ones
``normal`` would have made), plays each candidate move on such a copy, plays a short stretch on
(the others by ``normal``'s own scoring, itself by its habits), and scores the position for its
own seat (places and cards in hand). Every candidate meets the same worlds and the same luck.
Its own habit's choice starts with a head start, so only a clear gain overrides it. In classic
the same search (with the public voids: a player who drew to follow a suit holds none of it
until it draws again) played worse than the sharper habits alone, so classic plays by the
habits. Calls and catches: always, as ``normal``.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..engine.cards import JOKER, QDAN_COLOURED, classic_points
from ..engine.classic import ClassicDeal
from ..engine.deal import Deal
from ..engine.moves import Draw, Move, Play, ReshuffleRequest
from ..engine.qdan import QdanDeal
from ..engine.view import SeatView, deal_honouring
from .infer import Record, read_record
from .normal import NormalBot, _preferred_plays, best_led_rank, cheapest_winner, qdan_score

# Qdan search: worlds per decision, moves rolled out, the habit's head start (in the units of
# ``_value``). Handed the others' true hands (an experiment, not a player), the same search
# wins about 0.42: what they hold matters most. Scored against a search that knows them, more
# worlds, other horizons, head starts or value functions made no measurable difference. One
# hard against three normal, 2,000 games, seats rotated: classic 0.289 [0.270, 0.309] (seed
# 7); qdan 0.273 [0.253, 0.292] (seed 7) and 0.293 [0.273, 0.313] (seed 8).
QDAN_SEARCH = (16, 8, 1.0)


class SharpBot(NormalBot):
    """``normal`` with the habits ``hard`` changes; ``hard`` plays by it where it does
    not search."""

    name = "sharp"
    joker_before_drawing = True
    seen_weight = 2
    draw_card_keep = -15
    attack_at, attack_bonus = 2, 25


class HardBot(SharpBot):
    """``sharp``'s out-of-turn reflexes and habits; in qdan, a search on its own turn."""

    name = "hard"

    def __init__(self, rounds: int = 0, horizon: int = 0, prior: float = -1.0,
                 search_classic: bool = False, tries: int = 12,
                 exact_rollout: bool = True) -> None:
        self.tries = tries  # qdan: fresh hands tried for a player whose plays do not fit
        # qdan rollouts: the others play as ``normal``, this seat by its own habits (None: a
        # cruder, faster policy for everyone)
        self.habits: tuple[NormalBot, NormalBot] | None = (
            (NormalBot(), SharpBot()) if exact_rollout else None)
        self.rounds = rounds or QDAN_SEARCH[0]  # worlds per decision; every candidate plays each
        self.horizon = horizon or QDAN_SEARCH[1]  # moves played out before the position is scored
        self.prior = QDAN_SEARCH[2] if prior < 0 else prior  # the habit's head start
        self.search_classic = search_classic  # for experiments: it played worse (see above)

    def decide(self, view: SeatView, moves: list[Move], rng: random.Random) -> Move:
        usual = super().decide(view, moves, rng)
        if view.family == "classic" and not self.search_classic:
            return usual
        candidates = _candidates(view, moves)
        if len(candidates) == 1:
            return candidates[0]
        rounds, horizon, prior = self.rounds, self.horizon, self.prior
        allowed = _classic_voids(view) if view.family == "classic" else None
        record = read_record(view) if view.family == "qdan" else None
        totals = [prior * rounds if move == usual else 0.0 for move in candidates]
        for _ in range(rounds):
            # Every candidate meets the same world and the same luck, so the sums differ by what
            # the moves change, not by the noise of separate rollouts.
            if record is None:
                world = view.determinize(rng, allowed)
            else:
                world = _fitting_world(view, record, rng, self.tries)
            luck = rng.getrandbits(64)
            for index, move in enumerate(candidates):
                copy = world.clone()
                copy.apply(_same_move(copy, move))
                totals[index] += _rollout(copy, view.seat, horizon, random.Random(luck),
                                          self.habits)
        best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
        return candidates[best]


def _fitting_world(view: SeatView, record: Record, rng: random.Random, tries: int) -> Deal:
    """A deal of the hidden cards that honours the record's guesses where the cards allow: the
    slot-by-slot ones when dealing, then, for each player whose recent plays do not fit its
    dealt hand, a few fresh hands from its cards and the stock's."""
    world = view.determinize(rng, forbidden=record.unlikely)
    known = world.known
    for seat in record.choices:
        slots = list(world.hands[seat])
        if record.fits(seat, known):
            continue
        pool_slots = slots + world.stock
        first = [known[s] for s in pool_slots]
        for _ in range(tries):
            cards = list(first)
            rng.shuffle(cards)
            rest = deal_honouring(known, slots, cards, record.unlikely, rng) + world.stock
            for slot, card in zip(rest, cards, strict=True):
                known[slot] = card
            if record.fits(seat, known):
                break
        else:  # nothing fitted: keep the first deal, which honours the slot guesses
            for slot, card in zip(pool_slots, first, strict=True):
                known[slot] = card
    return world


def _rollout(deal: Deal, me: int, horizon: int, rng: random.Random,
             habits: tuple[NormalBot, NormalBot] | None = None) -> float:
    for _ in range(horizon):
        if deal.over:
            break
        if isinstance(deal.chance, ReshuffleRequest):
            cards = list(deal.chance.cards)
            rng.shuffle(cards)
            deal.reshuffle(cards)
            continue
        deal.apply(_fast_move(deal, rng, None if habits is None else
                              habits[deal.turn == me]))
    return _value(deal, me)


def _candidates(view: SeatView, moves: list[Move]) -> list[Move]:
    """The distinct choices: plays (with the call attached where it may be), and the draw.
    A change-colour card is tried with the colour held most (the other colours rarely win)."""
    plays = _preferred_plays(moves)
    if view.family == "qdan":
        hand = view.hand()
        counts = [sum(1 for c in hand if c < QDAN_COLOURED and c // 26 == k) for k in range(4)]
        best = max(range(4), key=lambda k: counts[k])
        plays = [p for p in plays if p.colour in (-1, best)]
    out: list[Move] = list(plays)
    if view.family == "classic" or not plays:  # a qdan draw with a play in hand rarely pays
        out += [m for m in moves if isinstance(m, Draw)]
    return out


def _same_move(deal: Deal, move: Move) -> Move:
    """The move for the copy: a play keeps its slots and cards; listing it is not needed."""
    if isinstance(move, Play):
        return Play(move.seat, move.slots, move.cards, move.call, move.colour)
    return move


def _fast_move(deal: Deal, rng: random.Random, habits: NormalBot | None = None,
               moves: list[Move] | None = None) -> Move:
    """The rollout policy: the ``normal`` bot's habits, read straight off the copy (``moves``:
    the turn's legal moves, if listed already)."""
    seat = deal.turn
    if moves is None:
        moves = deal.legal_moves(seat)
    plays = [m for m in moves if isinstance(m, Play)]
    if not plays:
        return next((m for m in moves if isinstance(m, Draw)), moves[0])
    plays = _preferred_plays(list(plays))
    if isinstance(deal, ClassicDeal):
        return _classic_policy(deal, seat, plays, moves)
    assert isinstance(deal, QdanDeal)
    if habits is not None:
        return _qdan_habits(deal, seat, plays, rng, habits)
    return _qdan_policy(deal, seat, plays, rng)


def _classic_policy(deal: ClassicDeal, seat: int, plays: list[Play], moves: list[Move]) -> Move:
    hands, known = deal.hands, deal.known
    low = min(len(hands[p]) for p in deal.players if p != seat) <= 2
    jokers = [p for p in plays if p.cards[0] >= JOKER]
    suited = [p for p in plays if p.cards[0] < JOKER]
    if jokers and (low or not suited):
        if not suited and not low and len(hands[seat]) > 2:
            draw = next((m for m in moves if isinstance(m, Draw)), None)
            if draw is not None:
                return draw
        return jokers[0]
    if not deal.trick:  # lead the highest card of the longest suit
        counts = [0, 0, 0, 0]
        for slot in hands[seat]:
            card = known[slot]
            if card < JOKER:
                counts[card // 13] += 1
        return max(suited, key=lambda p: (counts[p.cards[0] // 13], p.cards[0] % 13))
    return cheapest_winner(suited, best_led_rank((c for _, _, c in deal.trick), deal.led_suit))


def _qdan_habits(deal: QdanDeal, seat: int, plays: list[Play], rng: random.Random,
                 habits: NormalBot) -> Move:
    """``normal``'s qdan choice (or ``hard``'s habits), read straight off the copy."""
    known, colours = deal.known, [0, 0, 0, 0]
    for slot in deal.hands[seat]:
        card = known[slot]
        if card < QDAN_COLOURED:
            colours[card // 26] += 1
    next_count = len(deal.hands[deal._step(seat, 1)])
    return max(plays, key=lambda p: qdan_score(habits, p, colours, next_count) + rng.random())


def _qdan_policy(deal: QdanDeal, seat: int, plays: list[Play], rng: random.Random) -> Move:
    def value(play: Play) -> float:
        score = 10.0 * len(play.cards) + rng.random()
        if play.cards[0] >= QDAN_COLOURED:
            score -= 25
        return score

    return max(plays, key=value)


def _value(deal: Deal, me: int) -> float:
    """How good the position is for ``me``: higher is better."""
    others = [p for p in deal.players if p != me]
    if isinstance(deal, ClassicDeal):
        points = deal.rules.joker_points
        if deal.over and deal.drawn_deal:
            return 0.0

        def held(seat: int) -> float:
            if deal.over and seat == deal.winner:
                return 0.0
            return float(sum(classic_points(deal.known[s], points) for s in deal.hands[seat]))

        mine = held(me)
        return sum(held(p) for p in others) / len(others) - mine
    assert isinstance(deal, QdanDeal)
    seats = len(deal.players)

    def standing(seat: int) -> float:
        place = deal.places[seat]
        if place:  # first place is worth more than any hand, last place less
            return 30.0 - 60.0 * (place - 1) / max(1, seats - 1)
        return -float(len(deal.hands[seat]))

    return standing(me) - sum(standing(p) for p in others) / len(others)


def _classic_voids(view: SeatView) -> Callable[[int, int], bool]:
    """From the public record: a seat that drew to follow a suit holds none of it, until it
    next draws (a later draw may bring that suit again). Penalty draws also clear it."""
    void: dict[int, int] = {}
    led = -1
    for event in view.events():
        kind = event[0]
        if kind == "play":
            cards = event[2]
            assert isinstance(cards, tuple)
            if led == -1 and cards[0] < JOKER:
                led = cards[0] // 13
        elif kind == "trick":
            led = -1
        elif kind == "passed" and led != -1:
            seat = event[1]
            assert isinstance(seat, int)
            void[seat] = led
        elif kind == "draw":
            seat = event[1]
            assert isinstance(seat, int)
            if event[3] == "follow" and led != -1:
                void[seat] = led
            else:
                void.pop(seat, None)
    return lambda seat, card: not (card < JOKER and void.get(seat, -2) == card // 13)
