"""Finished hands, as everyone knows them after the seed reveal, and their full-information
replay through the same engine (the check of every hidden move)."""

from __future__ import annotations

from dataclasses import dataclass

from ...engine.classic import ClassicDeal
from ...engine.deal import Deal
from ...engine.moves import ChanceError, IllegalMove, Move, ReshuffleRequest, TurnUpRequest
from ...engine.qdan import QdanDeal
from ...engine.settings import ClassicSettings, Settings


@dataclass(frozen=True)
class HandRecord:
    """A finished hand with every card known: enough to replay it on the engine alone."""

    dealer: int
    players: tuple[int, ...]
    cards: tuple[int, ...]  # every slot's card: the main deck, then each reshuffle's block
    moves: tuple[Move, ...]
    positions: tuple[int, ...] = ()  # the log entry of each move
    number: int = 0  # the hand's number at the table
    first_place: int = 1  # qdan: the best place still free when the hand began (places before
    # it went to seats that finished a deal a leaver voided)


@dataclass(frozen=True)
class Fault:
    """A move the rules refuse with every card known: ``move`` indexes ``HandRecord.moves``."""

    move: int
    seat: int
    reason: str


def replay_hand(settings: Settings, seats: int, record: HandRecord) -> Deal:
    """Play a recorded hand again with full information (the referee's view of it)."""
    deal, fault = check_hand(settings, seats, record)
    if fault is not None:
        raise IllegalMove(fault.reason)
    return deal


def check_hand(settings: Settings, seats: int, record: HandRecord) -> tuple[Deal, Fault | None]:
    """Replay the hand with every card known; the first move the engine refuses, if any."""
    deal: Deal
    if isinstance(settings, ClassicSettings):
        deal = ClassicDeal(settings, record.players, record.dealer, seats)
    else:
        deal = QdanDeal(settings, record.players, record.dealer, seats, record.first_place)
    size = settings.deck_size
    try:
        deal.deal(record.cards[:size])
    except ChanceError as error:
        return deal, Fault(-1, -1, f"the dealt deck is not a deck: {error}")
    index = 0
    while not deal.over:
        request = deal.chance
        if isinstance(request, ReshuffleRequest):
            first = len(deal.known)
            try:
                deal.reshuffle(record.cards[first : first + len(request.cards)])
            except ChanceError as error:
                return deal, Fault(-1, -1, f"a reshuffled stock is wrong: {error}")
        elif isinstance(request, TurnUpRequest):
            assert isinstance(deal, QdanDeal)
            deal.turn_up(deal.known[request.slot])
        elif index < len(record.moves):
            move = record.moves[index]
            try:
                deal.apply(move)
            except IllegalMove as error:
                return deal, Fault(index, move.seat, str(error))
            index += 1
        else:
            break
    return deal, None
