"""The sequencer's check before it appends an envelope to the log (protocol/SPEC.md §7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..crypto.envelope import Envelope
from ..engine.moves import IllegalMove
from ..wire.codec import ProtocolError
from .away import away_refusal
from .common import PROTOCOL_VERSION
from .moves import move_from
from .takeover import takeover_refusal

DECK_KINDS = ("shuffle", "lock", "keys", "move")
LOBBY_STEPS = ("start", "ready", "coin_commit", "coin_reveal")

if TYPE_CHECKING:
    from .peer import PeerSession


def admissible(s: PeerSession, env: Envelope) -> str | None:
    raw = env.raw
    if s.ended:
        return "the table has ended"
    if s.chain is None:
        return None if env.sender == s.identity.public and env.kind == "table" else (
            "the table is not open yet")
    if env.kind == "hello":
        return _hello_refusal(s, env)
    if env.kind in ("open", "heartbeat"):
        return f"{env.kind} messages are not part of this protocol version's log"
    try:
        s.chain.check(raw, env)
    except ProtocolError as error:
        return error.reason
    if env.kind in ("table", "seat", "start", "timeout", "away") and env.sender != s.host_key:
        return f"only the host sends {env.kind}"
    if env.kind == "takeover":  # a live sequencer never gives its table away
        return ("only a new host appends takeover, as its own first entry"
                if env.sender != s.identity.public else
                takeover_refusal(s, env.sender, env.data["seat"]))
    if s.game is not None and s.seat_of(env.sender) not in s.active:
        return "that seat has left the game"
    if env.kind in ("away", "back"):
        return away_refusal(s, env.kind, env.data["seat"] if env.kind == "away" else
                            s.seat_of(env.sender))
    if s.seat_of(env.sender) in s.away:
        return "that seat is away: its first message on its return is back"
    expel = s.urgent
    if expel is not None and expel[0] == "expel" and expel[1]["seat"] == s.seat_of(env.sender):
        return "this seat is being expelled for a deck message every peer refuses"
    if env.kind in DECK_KINDS and s.crypto is not None and s.seat_of(env.sender) in s.active:
        refusal = s.crypto.refusal(env.kind, s.seat_of(env.sender), env.data)
        if refusal is not None:
            if env.sender != s.identity.public:  # name it to the table, with the evidence
                s.urgent = ("expel", {"seat": s.seat_of(env.sender), "reason": refusal[:200],
                                      "evidence": raw})
            return refusal
    if env.kind in LOBBY_STEPS:
        return _lobby_refusal(s, env)
    if env.kind == "head" and (s.hand_end is None or s.seat_of(env.sender) in s.heads):
        return "a log head is signed once, at the end of a hand"
    if env.kind == "head" and (env.data["index"], env.data["head"]) != s.hand_end:
        return "that is not the head this log reached at the end of the hand"
    if env.kind == "seed_reveal" and not s.hand_over():
        return "a hand seed is revealed only once the hand is over"
    if env.kind == "move":
        game = s.game
        if game is None or game.over or game.to_reveal or s.crypto is None or s.hand_over():
            return "no move is possible now"
        try:
            game.deal.verify(move_from(s.seat_of(env.sender), env.data))
        except IllegalMove as error:
            return str(error)
    return None


def _lobby_refusal(s: PeerSession, env: Envelope) -> str | None:
    """Steps before the first deal, in their order; one sealed before a player left the lobby
    (the toss starts again) is refused, and its author says it again when it is due."""
    seat, full = s.seat_of(env.sender), s.seat_count
    if s.game is not None or seat < 0:
        return f"a {env.kind} message is for the seated players before the game starts"
    if env.kind == "start" and (s.waiting_hellos
                                or not 2 <= env.data["seats"] == len(s.keys) < full):
        return "the game starts with the players seated, fewer than the seats"
    if env.kind == "ready" and (len(s.keys) < full or seat in s.ready):
        return "ready is said once, when every seat is taken"
    if env.kind == "coin_commit" and (len(s.ready) < full or seat in s.coin_commits):
        return "a coin commitment comes once, when every player is ready"
    if env.kind == "coin_reveal" and (len(s.coin_commits) < full or seat in s.coin_nonces):
        return "a coin reveal comes once, after every commitment"
    return None


def _hello_refusal(s: PeerSession, env: Envelope) -> str | None:
    if env.sender in s.keys or any(k == env.sender for k, _ in s.waiting_hellos):
        return "this identity is already at the table: each user sits once"
    if s.game is not None or len(s.keys) + len(s.waiting_hellos) >= s.seat_count:
        return "the table is full"
    if env.data["proto"] != PROTOCOL_VERSION:
        return (f"protocol version {env.data['proto']}; this table speaks {PROTOCOL_VERSION}: "
                "use the same pageone version as the host")
    assert s.chain is not None  # a user who left the lobby may come back: its count goes on
    if env.table != s.table_id or env.hand != 0 or env.seq != s.chain.next_seq(env.sender):
        return "a hello must be the first message, for this table"
    return None
