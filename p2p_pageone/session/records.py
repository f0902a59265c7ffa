"""Finished hands, as everyone knows them after the seed reveal, and their engine-only replay."""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.classic import ClassicDeal
from ..engine.deal import Deal
from ..engine.moves import Move, ReshuffleRequest, TurnUpRequest
from ..engine.qdan import QdanDeal
from ..engine.settings import ClassicSettings, Settings


@dataclass(frozen=True)
class HandRecord:
    """A finished hand with every card known: enough to replay it on the engine alone."""

    dealer: int
    players: tuple[int, ...]
    cards: tuple[int, ...]  # every slot's card: the main deck, then each reshuffle's block
    moves: tuple[Move, ...]


def replay_hand(settings: Settings, seats: int, record: HandRecord) -> Deal:
    """Play a recorded hand again with full information (the referee's view of it)."""
    deal: Deal
    if isinstance(settings, ClassicSettings):
        deal = ClassicDeal(settings, record.players, record.dealer, seats)
    else:
        deal = QdanDeal(settings, record.players, record.dealer, seats)
    size = settings.deck_size
    deal.deal(record.cards[:size])
    moves = iter(record.moves)
    while not deal.over:
        request = deal.chance
        if isinstance(request, ReshuffleRequest):
            first = len(deal.known)
            deal.reshuffle(record.cards[first : first + len(request.cards)])
        elif isinstance(request, TurnUpRequest):
            assert isinstance(deal, QdanDeal)
            deal.turn_up(deal.known[request.slot])
        else:
            move = next(moves, None)
            if move is None:
                break
            deal.apply(move)
    return deal
