"""What a peer must say next, given the log so far (one message at a time)."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..engine.game import Game
from ..engine.moves import Move, Play
from ..engine.settings import QdanSettings
from ..engine.view import SeatView
from ..wire.kinds import KIND_RULES, EntryKind
from .common import Event, coin_commitment
from .fold.obligations import Duty, Owed, claimed_of, discharges, step_owed
from .fold.queries import slots_owed_by
from .moves import move_data
from .player import PlayerState
from .witnessing import witness_intent

Intent = tuple[EntryKind, dict[str, Any]]


def next_intent(s: PlayerState, now: float) -> Intent | None:
    if s.outbox.local_bye and s.chain is not None:  # this machine failed: nothing but the bye
        return EntryKind.BYE, {"reason": s.outbox.local_bye}
    if s.outbox.notices:
        return s.outbox.notices.popleft()
    if s.chain is None:
        return _table_intent(s) if s.is_host else None
    if s.me < 0 or (s.is_host and s.waiting_hellos):
        return _lobby_seating(s)
    if s.outbox.chat:  # chat goes out in the lobby too
        return EntryKind.SAY, {"text": s.outbox.chat.pop(0)}
    if s.game is None:
        return _lobby_intent(s)
    if s.game_over:
        return None
    if s.claims:  # the host made a claim: the table takes nothing but witnesses meanwhile,
        # but a step the host says we did not take we take now, for the witnesses to hold
        # (once per entry of the log while the round lasts: the host refuses it meanwhile)
        ours = any(claim.seat == s.me and claim.owed for claim in s.claims)
        return witness_intent(s, now) or (_step_in_round(s, now) if ours else None)
    return _own_step(s, now)


def _step_in_round(s: PlayerState, now: float) -> Intent | None:
    """Our step a claim about us waits for (no other: the witnesses weigh that one alone, and
    the round keeps the others out of the log); one the round keeps out of the log (refused at
    this length of the log) goes again once the log moves, a ``back`` at once."""
    intent = _own_step(s, now)
    if intent is None or not any(discharges(Owed(s.me, duty), *intent)
                                 for duty in claimed_of(s, s.me)):
        return None
    if (not KIND_RULES[intent[0]].during_round
            and s.outbox.round_refused_at == len(s.log)):
        return None
    return intent


def _own_step(s: PlayerState, now: float) -> Intent | None:
    """Our next step of the hand; kept away, yet here: a step the table waits on us for goes
    first (the log takes it from a seat kept away), else our ``back`` (before any move)."""
    if s.me not in s.away or s.is_host:
        return _hand_intent(s, now)
    if _owes_a_step(s):
        return _hand_intent(s, now)
    return EntryKind.BACK, {"endpoint": s.attachment.endpoint}


def _owes_a_step(s: PlayerState) -> bool:
    """Kept away: does the table wait on a step of ours (else on our return)? A claim about us
    says which; with none, what the table waits for."""
    claimed = [claim.owed for claim in s.claims if claim.seat == s.me and claim.owed]
    if claimed:
        return claimed[0] is not Duty.RETURN
    return step_owed(s, s.me) is not None


def _table_intent(s: PlayerState) -> Intent:
    assert s.host_table is not None
    name, settings, seats = s.host_table
    options = dataclasses.asdict(settings)
    return EntryKind.TABLE, {"name": name, "rules": settings.family, "options": options,
                             "seats": seats}


def _lobby_seating(s: PlayerState) -> Intent | None:
    if s.is_host:
        if s.me < 0:
            return EntryKind.SEAT, {"seat": 0, "key": s.identity.public, "name": s.name}
        if s.waiting_hellos and len(s.keys) < s.seat_count:
            key, name = s.waiting_hellos[0]
            return EntryKind.SEAT, {"seat": len(s.keys), "key": key, "name": _unique(name, s.names)}
        return None
    return None  # a joiner's hello went out on the host's welcome; it waits to be seated


def _unique(name: str, taken: list[str]) -> str:
    """Names at a table differ in more than case, so `catch NAME` always means one player."""
    lowered = {n.casefold() for n in taken}
    candidate, n = name, 1
    while candidate.casefold() in lowered:
        n += 1
        candidate = f"{name}-{n}"
    return candidate


def _lobby_intent(s: PlayerState) -> Intent | None:
    if len(s.keys) < s.seat_count:
        return None
    if s.me not in s.ready:
        return EntryKind.READY, {}
    if len(s.ready) < s.seat_count:
        return None
    if s.me not in s.coin_commits:
        # Fresh each time: a toss restarted after a leaver must not reuse a revealed nonce.
        s.private.my_coin = s.random_bytes(32)
        return EntryKind.COIN_COMMIT, {"commit": coin_commitment(s.table_id, s.identity.public,
                                                         s.private.my_coin)}
    if len(s.coin_commits) == s.seat_count and s.me not in s.coin_nonces:
        return EntryKind.COIN_REVEAL, {"nonce": s.private.my_coin}
    return None


def _hand_intent(s: PlayerState, now: float) -> Intent | None:
    crypto, game = s.crypto, s.game
    assert crypto is not None and game is not None
    if s.me not in s.active:
        return None
    if s.hand_end is not None:  # between hands: sign the head the hand ended on
        if s.me in s.heads:
            return None
        return EntryKind.HEAD, {"index": s.hand_end[0], "head": s.hand_end[1]}
    secrets = s.private.secrets
    if secrets is None:
        return None
    if s.hand_over():
        if s.me not in s.seed_reveals:
            return EntryKind.SEED_REVEAL, {"seed": secrets.seed}
        return None
    if s.me not in crypto.logged_commits:
        return EntryKind.SEED_COMMIT, {"commit": secrets.commitment}
    if len(crypto.logged_commits) < len(s.active):
        return None
    if crypto.pending_round:
        return _pass_intent(s)
    owed = _keys_owed(s)
    if owed:
        label, slots, keys = secrets.keys_for(crypto, owed)
        return EntryKind.KEYS, {"deck": label, "positions": slots, "keys": keys}
    return move_intent(s, now)


def _pass_intent(s: PlayerState) -> Intent | None:
    crypto, secrets = s.crypto, s.private.secrets
    assert crypto is not None and secrets is not None
    label = crypto.pending_round
    step, seat = crypto.pass_turn()
    if seat != s.me:
        return None
    turn = f"{label}/{step}"
    if s.private.pass_cache is None or s.private.pass_cache[0] != turn:
        result = secrets.compute_pass(crypto)
        if result is None:
            return None
        s.private.pass_cache = (turn, result[0], result[1])
    _, step, proven = s.private.pass_cache
    return EntryKind(step), {"deck": label, **proven.fields()}


def _keys_owed(s: PlayerState) -> list[int]:
    """Slots (of one deck round) that need this peer's key and have not had it yet."""
    crypto = s.crypto
    assert crypto is not None
    owed = slots_owed_by(s, s.me)
    return next(iter(crypto.group_by_round(owed).values())) if owed else []


def move_intent(s: PlayerState, now: float, game: Game | None = None) -> Intent | None:
    """Our move now, on the live game or on ``game``, a what-if copy of it."""
    game, crypto, secrets = game or s.game, s.crypto, s.private.secrets
    assert game is not None and crypto is not None and secrets is not None
    deal = game.deal
    known = bool(deal.known) and all(deal.known[slot] >= 0 for slot in deal.hands[s.me])
    if game.chance is not None or not known or deal.over:
        return None
    move = _chosen_move(s, game, now)
    if move is None:
        return None
    keys = [secrets.key_for(crypto, slot) for slot in move.slots] if isinstance(move, Play) else []
    return EntryKind.MOVE, move_data(move, keys)


def _chosen_move(s: PlayerState, game: Game, now: float) -> Move | None:
    if s.outbox.requested is not None:  # kept until it is in the log or refused
        if game.deal.can(s.outbox.requested):
            return s.outbox.requested
        s.outbox.requested = None
        s.events.append(Event("refused", "that move is no longer possible"))
        return None
    if s.bot is None:
        return None
    settings = game.settings
    timed_out = (isinstance(settings, QdanSettings) and settings.turn_timer > 0
                 and s.clock.turn_since >= 0 and now - s.clock.turn_since >= settings.turn_timer)
    if not (s.autoplay or timed_out):
        return None
    if timed_out and not s.autoplay:
        s.events.append(Event("timer", "your time ran out: the CPU plays this turn"))
    return s.bot.choose(SeatView(game, s.me), s.rng)
