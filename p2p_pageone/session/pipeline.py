"""Moves behind the envelope in flight (protocol/SPEC.md §7, "Moves behind").

A peer waits for each envelope to be logged before it seals the next, except that a move may go
right behind, sealed with the next sequence number against the same or a later head, when it
needs nothing the envelopes ahead of it do in the log and the sequencer will not hold them (our
turn, no Page One window open, every key of our cards logged):

- behind our ``keys`` (they open other players' cards, never ours): the move due on our turn, so
  the player after a draw answers it in the round trip of its keys;
- behind our own move that leaves the turn with us (a Page One call before the play): the CPU's
  next move, chosen on a copy of the deal with the moves ahead applied.

At most three are out (keys, a call, the play). If one is refused, every one behind it is
refused too (its sequence number skips one) and nothing new is sealed until those refusals are
in, so a refusal is never taken for a newer envelope with the same number; after a move behind
lost a race, nothing more goes behind the ones still out.
"""

from __future__ import annotations

from typing import Any

from ..crypto.envelope import seal
from ..engine.deal import NOBODY
from ..engine.game import Game
from ..engine.moves import IllegalMove
from ..wire.kinds import KIND_RULES, EntryKind
from .common import Event, Refusal
from .fold.queries import lacks_keys, slots_owed_by
from .intents import Intent, move_intent
from .moves import move_from
from .player import PlayerState, Sent
from .through_others import cut_off
from .witnessing import to_mesh

PIPE = 3  # envelopes out at once: keys, a Page One call, the play after it


def fill(s: PlayerState, now: float) -> None:
    """Seal moves behind our envelopes out while one may go."""
    chain = s.chain
    if cut_off(s):  # through the others, each step alone: relays come late and in any order,
        return  # and a move behind chosen on one copy of ours may follow another in the log
    while (chain is not None and not s.is_host and len(s.outbox.pipe) < PIPE
           and all(sent.kind is not None and KIND_RULES[sent.kind].pipelined
                   and not (sent.doomed or sent.closed)
                   for sent in s.outbox.pipe)):
        intent = follow_intent(s, s.outbox.pipe, now)
        if intent is None:
            return
        kind, data = intent
        seq = chain.next_seq(s.identity.public) + len(s.outbox.pipe)
        raw = seal(s.identity, s.table_id, s.hand, seq, chain.head, kind, data)
        s.outbox.pipe.append(Sent(raw, kind, data, seq))
        s.outbox.outgoing.append(raw)
        to_mesh(s, raw, kind, data)


def drop_taken(s: PlayerState) -> None:
    """Our envelope out whose sequence number another of ours took (a ``back`` sealed on a
    welcome, a step given up for a claim) can never be logged: a host that reads nothing from
    us never refuses it, so it is dropped here, with whatever is behind it."""
    chain, pipe = s.chain, s.outbox.pipe
    if (chain is not None and pipe and not s.is_host and s.game is not None
            and s.me in s.active and pipe[0].number < chain.next_seq(s.identity.public)):
        pipe.clear()


def stale_refusal(s: PlayerState, seq: int) -> bool:
    """A refusal of an envelope of ours that is no longer out: one logged since (its duplicate
    was refused), or one given up and sealed again. Taking it for the envelope out now would
    drop that one and seal it again: a duplicate, whose own refusal would drop the next."""
    if seq < 0 or not s.outbox.pipe:
        return False
    return all(sent.number != seq for sent in s.outbox.pipe)


def refused_behind(s: PlayerState, reason: str, code: Refusal, seq: int, now: float) -> bool:
    """A refusal with several envelopes out, or refusals still due (True: handled here; False:
    the usual handling of one envelope in flight). The refused one's followers are doomed; a
    lost race is chosen again once nothing is out."""
    if stale_refusal(s, seq):
        return True
    if len(s.outbox.pipe) < 2 and not any(sent.doomed for sent in s.outbox.pipe):
        return False
    index = next((i for i, sent in enumerate(s.outbox.pipe) if sent.seq == seq), -1)
    if index < 0 or code is Refusal.BROKEN_CHAIN:  # a fork: the usual handling ends the table
        return False
    refused = s.outbox.pipe.pop(index)
    for later in s.outbox.pipe[index:]:
        later.doomed = True
    if index > 0:  # a race lost behind one still out: chosen again only once that is logged
        s.outbox.pipe[index - 1].closed = True
    if not refused.doomed and s.outbox.requested is not None:
        s.events.append(Event("refused", f"not accepted: {reason}"))
        s.outbox.requested = None
    if not s.outbox.pipe:
        s.flush(now)
    return True


def follow_intent(s: PlayerState, out: list[Sent], now: float) -> Intent | None:
    """The move that may go out behind the envelopes ``out``, or None."""
    if (s.outbox.notices or s.outbox.chat or s.outbox.local_bye or s.game is None or s.game_over
            or s.me not in s.active or s.hand_end is not None or s.private.secrets is None
            or s.crypto is None or s.crypto.pending_round or s.hand_over()):
        return None
    deal = s.game.deal  # what is out is not in it yet: a move behind is due on our turn only
    if deal.turn != s.me or deal.open_miss != NOBODY or lacks_keys(s, s.me):
        return None  # the sequencer may hold what is out (the Page One window, our keys)
    keys_out = {slot for sent in out if sent.kind == EntryKind.KEYS
                for slot in sent.data["positions"]}
    moves_out = [sent.data for sent in out if sent.kind == EntryKind.MOVE]
    if not moves_out:
        return _owing_nothing_but(s, keys_out, now)
    if s.autoplay and s.outbox.requested is None:
        return _after_own_moves(s, out[-1], moves_out, keys_out, now)
    return None


def _after_own_moves(s: PlayerState, last: Sent, moves: list[dict[str, Any]],
                     keys_out: set[int], now: float) -> Intent | None:
    """The CPU's next move on a copy of the game with our moves out applied. If they end our
    turn (the usual case), nothing goes behind ``last``: no copy is made again for it."""
    game = s.game
    assert game is not None
    real = game.deal
    ahead = real.clone()
    ahead.events = list(real.events)  # the CPU reads them: the copy must tell the same story
    try:
        for data in moves:
            ahead.apply(move_from(s.me, data))
    except IllegalMove:
        last.closed = True
        return None
    if ahead.over or ahead.chance is not None or ahead.turn != s.me:
        last.closed = True
        return None
    return _owing_nothing_but(s, keys_out, now, game.what_if(ahead))


def _owing_nothing_but(s: PlayerState, keys_out: set[int], now: float,
                       game: Game | None = None) -> Intent | None:
    """Our move (chosen on ``game``, a what-if, if given), if every key we owe is out already.
    Our own moves change no other seat's cards, so what we owe is the live table's."""
    if any(slot not in keys_out for slot in slots_owed_by(s, s.me)):
        return None
    intent = move_intent(s, now, game)
    return intent if intent is not None and intent[0] == EntryKind.MOVE else None
