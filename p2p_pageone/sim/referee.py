"""Engine-only games: a seeded dealer, bots on their own views, the full-information referee.

The referee is the same engine with every slot known. Besides refusing illegal moves, it
cross-checks its two statements of the rules (``verify`` and ``legal_moves``) on every decision
and checks card conservation after every step.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

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


def play_game(
    settings: Settings, bots: Sequence[Bot], rng: random.Random, check: bool = True
) -> GameRecord:
    """One whole game; ``check`` adds the referee's cross-checks after every step."""
    seats = len(bots)
    game = Game(settings, seats, rng.randrange(seats))
    bot_rngs = [random.Random(rng.getrandbits(64)) for _ in bots]
    views = [SeatView(game, seat) for seat in range(seats)]
    violations: Counter[str] = Counter()
    moves = 0
    while not game.over:
        if game.chance is not None:
            resolve_chance(game, rng)
        else:
            move = _next_move(game, bots, views, bot_rngs)
            try:
                game.apply(move)
            except IllegalMove:
                violations["bot_move_refused"] += 1
                break
            moves += 1
            if moves >= MAX_MOVES:
                violations["non_termination"] += 1
                break
        if check and not game.over and not isinstance(game.chance, DealRequest):
            violations.update(conservation_errors(game.deal))
            if game.chance is None:
                violations.update(rules_disagreements(game))
    drawn = sum(result.drawn for result in game.results)
    return GameRecord(game.places, moves, len(game.results), violations, drawn)


def _next_move(
    game: Game, bots: Sequence[Bot], views: list[SeatView], rngs: list[random.Random]
) -> Move:
    """Out-of-turn calls and catches first (in seat order), then the player to move."""
    turn = game.deal.turn
    for seat in game.players:
        if seat != turn and (game.deal.open_miss != -1):
            move = bots[seat].choose(views[seat], rngs[seat])
            if move is not None:
                return move
    move = bots[turn].choose(views[turn], rngs[turn])
    if move is None:
        raise IllegalMove(f"bot at seat {turn} did not move on its turn")
    return move
