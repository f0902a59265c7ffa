"""Questions about the public table that every role asks: who owes keys, who is awaited, whose
seed reveal is due. Each reads the state and changes nothing."""

from __future__ import annotations

from ...engine.game import Game
from ...engine.moves import TurnUpRequest
from ...engine.qdan import QdanDeal
from ...wire.codec import ProtocolError
from ..hand import PUBLIC, HandDeck
from .state import PublicState

MOVE = "its move"  # what the table waits for on a player's turn
# What the table waits for (``waiting_for``), as the kind of envelope that is that step.
STEP_KINDS = {"its witness of the host's claim": "witness", "its signed log head": "head",
              "its hand seed reveal": "seed_reveal", "its seed commitment": "seed_commit",
              "its keys for dealt cards": "keys", "its shuffle pass": "shuffle",
              "its lock pass": "lock"}


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


def waiting_for(s: PublicState) -> list[tuple[int, str]]:
    """Seats the table is waiting on for a protocol step, and for what."""
    if s.game is None:
        return _lobby_waits(s)
    crypto, game = s.crypto, s.game
    if crypto is None or s.game_over:
        return []
    if s.claims:  # the round's witnesses first: nothing else moves meanwhile
        return sorted({(w, "its witness of the host's claim") for c in s.claims
                       for w in c.due - set(c.heard)})
    seats = s.active
    if s.hand_end is not None:
        return [(p, "its signed log head") for p in seats if p not in s.heads]
    if hand_over(s):
        return [(p, "its hand seed reveal") for p in seats if p not in s.seed_reveals]
    if len(crypto.logged_commits) < len(seats):
        return [(p, "its seed commitment") for p in seats if p not in crypto.logged_commits]
    if crypto.pending_round:
        step, peer = crypto.pass_turn()
        return [(peer, f"its {step} pass")]
    owed = [(peer, "its keys for dealt cards") for peer in s.active if slots_owed_by(s, peer)]
    if owed:
        return owed
    deal = game.deal
    if game.chance is None and deal.turn >= 0:
        return [(deal.turn, MOVE)]
    return []


def _lobby_waits(s: PublicState) -> list[tuple[int, str]]:
    everyone = range(s.seat_count)
    if len(s.keys) < s.seat_count:
        return []
    if len(s.ready) < s.seat_count:
        return [(p, "ready") for p in everyone if p not in s.ready]
    if len(s.coin_commits) < s.seat_count:
        return [(p, "coin commitment") for p in everyone if p not in s.coin_commits]
    return [(p, "coin reveal") for p in everyone if p not in s.coin_nonces]


def expected_at_takeover(s: PublicState, old: int) -> set[bytes]:
    """Who is to come to a new host (``s`` its own state; ``old`` the old host's seat): every
    seat still in the game that listens, but the old host and the new."""
    return {s.keys[seat] for seat in s.active if seat not in (old, s.me)
            and s.endpoints.get(s.keys[seat])}
