"""Questions about the public table that every role asks: who owes keys, who is awaited, whose
seed reveal is due. Each reads the state and changes nothing."""

from __future__ import annotations

from ...engine.game import Game
from ...engine.moves import TurnUpRequest
from ...engine.qdan import QdanDeal
from ...wire.codec import ProtocolError
from ..hand import PUBLIC, HandDeck
from .state import PublicState


def deck_of(s: PublicState) -> HandDeck:
    if s.crypto is None:
        raise ProtocolError("a hand message before the hand started")
    return s.crypto


def game_of(s: PublicState) -> Game:
    if s.game is None:
        raise ProtocolError("a game message before the game started")
    return s.game


def hand_over(s: PublicState) -> bool:
    """The hand in play is finished (its seeds are due), or a new one has not started yet."""
    game = s.game
    if game is None or s.crypto is None:
        return False
    return game.deal is not s.hand_deal or game.deal.over or bool(game.to_reveal)


def reveal_due(s: PublicState, seat: int) -> bool:
    """``seat`` played the hand and has not revealed its seed yet."""
    return (not s.game_over and s.crypto is not None and hand_over(s) and seat in s.active
            and seat not in s.seed_reveals)


def shown_to_all(s: PublicState, slot: int) -> bool:
    """Every peer knows this card (played face up, or opened with every key)."""
    return slot in deck_of(s).shown


def slots_owed_by(s: PublicState, peer: int) -> list[int]:
    """Slots whose card ``peer`` must still help open: other seats' hands and public cards."""
    crypto, game = deck_of(s), game_of(s)
    if not crypto.rounds:
        return []
    deal = game.deal
    wanted = [slot for seat in deal.players if seat != peer for slot in deal.hands[seat]]
    if isinstance(game.chance, TurnUpRequest):
        wanted.append(game.chance.slot)  # the qdan start card, shown to all
    if isinstance(deal, QdanDeal):
        wanted += [slot for slot in deal.discard if crypto.owner_of(slot) == PUBLIC]
    return crypto.unpublished(wanted, peer)


def lacks_keys(s: PublicState, seat: int) -> bool:
    """Some key for a card dealt to ``seat`` is not in the log yet: a move of that seat waits."""
    game, deck = s.game, s.crypto
    if game is None or deck is None or seat not in s.active:
        return False
    try:
        return any(not deck.keys_complete(slot, but=seat) for slot in game.deal.hands[seat])
    except KeyError:
        return False  # not dealt: a move is refused as usual


def expected_at_takeover(s: PublicState, old: int) -> set[bytes]:
    """Who is to come to a new host (``s`` its own state; ``old`` the old host's seat): every
    seat still in the game that listens, but the old host and the new."""
    return {s.keys[seat] for seat in s.active if seat not in (old, s.me)
            and s.endpoints.get(s.keys[seat])}
