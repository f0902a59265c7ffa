"""Whom the table is waiting on: the sequencer times these out and names them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .handlers import slots_owed_by

if TYPE_CHECKING:
    from .peer import PeerSession

MOVE = "its move"


def waiting_for(s: PeerSession) -> list[tuple[int, str]]:
    everyone = range(s.seat_count)
    if s.game is None:
        if len(s.keys) < s.seat_count:
            return []
        if len(s.ready) < s.seat_count:
            return [(p, "ready") for p in everyone if p not in s.ready]
        if len(s.coin_commits) < s.seat_count:
            return [(p, "coin commitment") for p in everyone if p not in s.coin_commits]
        return [(p, "coin reveal") for p in everyone if p not in s.coin_nonces]
    crypto, game = s.crypto, s.game
    if crypto is None or s.game_over or s.ended:
        return []
    seats = s.active
    if s.hand_end is not None:
        return [(p, "its signed log head") for p in seats if p not in s.heads]
    if s.hand_over():
        return [(p, "its hand seed reveal") for p in seats if p not in s.seed_reveals]
    if len(crypto.logged_commits) < len(seats):
        return [(p, "its seed commitment") for p in seats if p not in crypto.logged_commits]
    if crypto.pending_round:
        step, peer = crypto.pass_turn()
        return [(peer, f"its {step} pass")]
    owed = _keys_owed_by_anyone(s)
    if owed:
        return owed
    deal = game.deal
    if game.chance is None and deal.turn >= 0:
        return [(deal.turn, MOVE)]
    return []


def _keys_owed_by_anyone(s: PeerSession) -> list[tuple[int, str]]:
    return [(peer, "its keys for dealt cards") for peer in s.active if slots_owed_by(s, peer)]
