"""Engine-only games: a seeded dealer, bots on their own views, the full-information referee.

The referee is the same engine with every slot known. Besides refusing illegal moves, it
cross-checks its two statements of the rules (``verify`` and ``legal_moves``) and card
conservation, after every step or after a seeded sample of steps.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..bots import Bot
from ..engine.classic import ClassicDeal
from ..engine.deal import Deal
from ..engine.game import Game
from ..engine.moves import (
    Call,
    Catch,
    DealRequest,
    Draw,
    IllegalMove,
    Move,
    Play,
    ReshuffleRequest,
    RevealRequest,
    TurnUpRequest,
)
from ..engine.qdan import QdanDeal
from ..engine.qdan import _face as face
from ..engine.settings import Settings
from ..engine.view import SeatView

MAX_MOVES = 20_000


@dataclass
class GameRecord:
    places: list[int]
    moves: int
    deals: int
    violations: Counter[str] = field(default_factory=Counter)
    drawn_deals: int = 0
    clocks: list[SeatClock] = field(default_factory=list)


def resolve_chance(game: Game, rng: random.Random) -> None:
    """Supply the outcome of the pending chance step from ``rng`` (the referee knows all)."""
    request = game.chance
    if isinstance(request, DealRequest):
        deck = list(range(request.size))
        rng.shuffle(deck)
        game.deal_cards(deck)
    elif isinstance(request, ReshuffleRequest):
        cards = list(request.cards)
        rng.shuffle(cards)
        game.reshuffle(cards)
    elif isinstance(request, TurnUpRequest):
        game.turn_up(game.deal.known[request.slot])
    elif isinstance(request, RevealRequest):
        game.reveal_hands([game.deal.known[s] for s in request.slots])


def conservation_errors(deal: Deal) -> list[str]:
    """Every card of the deck in exactly one place, every slot in at most one zone."""
    zones: list[int] = [s for p in deal.players for s in deal.hands[p]] + deal.stock
    if isinstance(deal, ClassicDeal):
        zones += deal.collected + [slot for _, slot, _ in deal.trick]
    elif isinstance(deal, QdanDeal):
        zones += deal.discard
    errors = []
    if len(set(zones)) != len(zones):
        errors.append("duplicate_slot")
    cards = sorted(deal.known[s] for s in zones)
    if cards != list(range(deal.settings.deck_size)):
        errors.append("duplicate_card" if len(set(cards)) != len(cards) else "card_conservation")
    return errors


def _candidates(deal: Deal, seat: int) -> list[Move]:
    """Moves to test against the listing: draw, call, catches, and single cards from hand
    (every card for the player to move, the first card for the others)."""
    out: list[Move] = [Draw(seat), Call(seat)]
    out += [Catch(seat, other) for other in deal.players if other != seat]
    hand = deal.hands[seat] if seat == deal.turn else deal.hands[seat][:1]
    for slot in hand:
        card = deal.known[slot]
        out += [Play(seat, (slot,), (card,)), Play(seat, (slot,), (card,), True)]
        if deal.family == "qdan":
            out.append(Play(seat, (slot,), (card,), False, 0))
    return out


def _face_key(move: Move) -> object:
    """Identical qdan copies make the same move; the listing names only one of them."""
    if isinstance(move, Play):
        return (move.seat, tuple(face(c) for c in move.cards), move.call, move.colour)
    return move


def rules_disagreements(game: Game) -> list[str]:
    """Compare ``verify`` with ``legal_moves`` for every seat on a set of candidate moves."""
    deal = game.deal
    errors = []
    for seat in deal.players:
        listed = game.legal_moves(seat)
        if any(not deal.can(m) for m in listed):
            errors.append("legal_move_refused")
        listed_set = {_face_key(m) for m in listed}
        if any(deal.can(m) and _face_key(m) not in listed_set for m in _candidates(deal, seat)):
            errors.append("illegal_move_accepted")
    return errors


Check = Literal["all", "sample", "none"]
SAMPLE_EVERY = 64  # "sample": the full cross-checks on one step in 64 on average, seeded


@dataclass
class SeatClock:
    """What a seat's bot spent deciding: calls that returned a move, seconds in total, and the
    longest single call."""

    decisions: int = 0
    seconds: float = 0.0
    longest: float = 0.0


def play_game(
    settings: Settings, bots: Sequence[Bot], rng: random.Random, check: Check = "sample",
    clock: Callable[[], float] | None = None,
) -> GameRecord:
    """One whole game. The engine refuses any move that is not legal (a move taken from its own
    listing is trusted, so the listing itself is what the cross-checks test); ``check`` adds the
    cross-checks (``verify`` against ``legal_moves`` for every seat, full card conservation)
    after every step ("all") or after a seeded sample of steps ("sample"; conservation is also
    checked on the last state, as a lost card stays lost). The sample comes from its own
    stream, so the game is the same whatever is checked. ``clock`` times the bots' decisions."""
    seats = len(bots)
    game = Game(settings, seats, rng.randrange(seats))
    bot_rngs = [random.Random(rng.getrandbits(64)) for _ in bots]
    order_rng = random.Random(rng.getrandbits(64))
    check_rng = random.Random(rng.getrandbits(64))
    views = [SeatView(game, seat) for seat in range(seats)]
    clocks = [SeatClock() for _ in bots]
    asker = _Asker(bots, views, bot_rngs, order_rng, clocks, clock)
    violations: Counter[str] = Counter()
    moves = 0
    next_check = 0  # the step of the next full cross-check
    steps = 0
    while not game.over:
        if game.chance is not None:
            resolve_chance(game, rng)
        else:
            try:
                game.apply(asker.next_move(game))
            except IllegalMove:
                violations["bot_move_refused"] += 1
                break
            moves += 1
            if moves >= MAX_MOVES:
                violations["non_termination"] += 1
                break
        if check == "none" or game.over or isinstance(game.chance, DealRequest):
            continue
        steps += 1
        if check == "all" or steps >= next_check:
            next_check = steps + 1 + check_rng.randrange(2 * SAMPLE_EVERY - 1)
            violations.update(conservation_errors(game.deal))
            if game.chance is None:
                violations.update(rules_disagreements(game))
    if check != "none" and not violations:
        # A lost or doubled card stays lost or doubled: the last state shows it if a sample
        # missed the step that caused it.
        violations.update(conservation_errors(game.deal))
    drawn = sum(result.drawn for result in game.results)
    return GameRecord(game.places, moves, len(game.results), violations, drawn, clocks)


class _Asker:
    """Asks the bots for the next move: out-of-turn calls and catches first, offered to the
    other seats in a fresh seeded order each time (a fixed order favours the first seats),
    then the player to move."""

    def __init__(self, bots: Sequence[Bot], views: list[SeatView], rngs: list[random.Random],
                 order_rng: random.Random, clocks: list[SeatClock],
                 clock: Callable[[], float] | None) -> None:
        self.bots, self.views, self.rngs = bots, views, rngs
        self.order_rng, self.clocks, self.clock = order_rng, clocks, clock

    def ask(self, seat: int) -> Move | None:
        clock = self.clock
        if clock is None:
            return self.bots[seat].choose(self.views[seat], self.rngs[seat])
        start = clock()
        move = self.bots[seat].choose(self.views[seat], self.rngs[seat])
        used = self.clocks[seat]
        spent = clock() - start
        used.seconds += spent
        used.longest = max(used.longest, spent)
        used.decisions += move is not None
        return move

    def next_move(self, game: Game) -> Move:
        turn = game.deal.turn
        if game.deal.open_miss != -1:
            others = [seat for seat in game.players if seat != turn]
            self.order_rng.shuffle(others)
            for seat in others:
                move = self.ask(seat)
                if move is not None:
                    return move
        move = self.ask(turn)
        if move is None:
            raise IllegalMove(f"bot at seat {turn} did not move on its turn")
        return move
