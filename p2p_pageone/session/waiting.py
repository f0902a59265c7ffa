"""Whom the table is waiting on: the sequencer times these out and names them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.qdan import QdanDeal
from .hand import PUBLIC
from .handlers import hand_over

if TYPE_CHECKING:
    from .peer import PeerSession

MOVE = "its move"


def waiting_for(s: PeerSession) -> list[tuple[int, str]]:
    seats = range(s.seat_count)
    if s.game is None:
        if len(s.keys) < s.seat_count:
            return []
        if len(s.ready) < s.seat_count:
            return [(p, "ready") for p in seats if p not in s.ready]
        if len(s.coin_commits) < s.seat_count:
            return [(p, "coin commitment") for p in seats if p not in s.coin_commits]
        return [(p, "coin reveal") for p in seats if p not in s.coin_nonces]
    crypto, game = s.crypto, s.game
    if crypto is None or s.game_over or s.ended:
        return []
    if hand_over(s):
        return [(p, "its hand seed reveal") for p in seats if p not in s.seed_reveals]
    if len(crypto.logged_commits) < s.seat_count:
        return [(p, "its seed commitment") for p in seats if p not in crypto.logged_commits]
    if crypto.pending_round:
        step, peer = crypto.deck.rounds[crypto.pending_round].next_step()
        return [(peer, f"its {step} pass")]
    owed = _keys_owed_by_anyone(s)
    if owed:
        return owed
    deal = game.deal
    if game.chance is None and deal.turn >= 0:
        return [(deal.turn, MOVE)]
    return []


def _keys_owed_by_anyone(s: PeerSession) -> list[tuple[int, str]]:
    crypto, game = s.crypto, s.game
    assert crypto is not None and game is not None
    if not crypto.rounds:
        return []
    deal = game.deal
    out = []
    public = [slot for slot in deal.discard if crypto.owner(slot) == PUBLIC] if isinstance(
        deal, QdanDeal) else []
    chance = game.chance
    if chance is not None and hasattr(chance, "slot"):
        public.append(chance.slot)
    for peer in range(s.seat_count):
        slots = [x for p in deal.players if p != peer for x in deal.hands[p]] + public
        if any(not crypto.published(x, peer) for x in slots):
            out.append((peer, "its keys for dealt cards"))
    return out
