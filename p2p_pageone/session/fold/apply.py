"""One log entry into the public state: its checks, then its effect (SPEC.md §7).

Every kind of entry has one check, raising and changing nothing, and one effect; the fold runs
both, and the sequencer's admission asks the same checks (``entry_refusal``) before it appends,
so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable

from ...crypto.deck import DeckError
from ...crypto.envelope import ChainVerifier, Envelope, open_envelope
from ...crypto.identity import fingerprint
from ...engine.moves import ChanceError, IllegalMove
from ...engine.settings import SettingError
from ...wire.codec import ProtocolError
from ..common import MustRefuse, TableEnded
from . import dealing, leaving, lobby, presence, witness
from .state import PublicState

Check = Callable[[PublicState, Envelope, int], None]
Effect = Callable[[PublicState, Envelope, int, float], None]

FOLD_ERRORS = (TableEnded, DeckError, ProtocolError, IllegalMove, ChanceError, SettingError)
HOST_KINDS = frozenset({"table", "seat", "start", "timeout", "away", "expel"})
NOT_LOGGED = frozenset({"open", "heartbeat"})  # kinds of earlier protocol versions
# Kinds whose author must hold a seat; the hand's own kinds check it is still in the game.
SEATED_KINDS = frozenset({"ready", "coin_commit", "coin_reveal", "seed_commit", "shuffle",
                          "lock", "keys", "move", "seed_reveal", "head", "bye", "witness"})
IN_HAND_KINDS = frozenset({"seed_commit", "shuffle", "lock", "keys", "seed_reveal", "head"})


def _nothing(s: PublicState, env: Envelope, seat: int) -> None:
    """Nothing to check beyond what every entry is checked for."""


def _nothing_done(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    """No effect."""


ENTRIES: dict[str, tuple[Check, Effect]] = {
    "table": (lobby.check_table, lobby.on_table),
    "hello": (_nothing, lobby.on_hello),  # checked before its sender joins the chain
    "seat": (lobby.check_seat, lobby.on_seat),
    "start": (lobby.check_lobby_step, lobby.on_start),
    "ready": (lobby.check_lobby_step, lobby.on_ready),
    "coin_commit": (lobby.check_lobby_step, lobby.on_coin_commit),
    "coin_reveal": (lobby.check_lobby_step, lobby.on_coin_reveal),
    "say": (_nothing, lobby.on_say),
    "seed_commit": (dealing.check_seed_commit, dealing.on_seed_commit),
    "shuffle": (dealing.check_pass, dealing.on_pass),
    "lock": (dealing.check_pass, dealing.on_pass),
    "keys": (dealing.check_keys, dealing.on_keys),
    "move": (dealing.check_move_now, dealing.on_move),
    "seed_reveal": (dealing.check_seed_reveal, dealing.on_seed_reveal),
    "head": (leaving.check_head, leaving.on_head),
    "timeout": (leaving.check_timeout, leaving.on_timeout),
    "witness": (witness.check_witness, leaving.on_witness),
    "expel": (leaving.check_expel, leaving.on_expel),
    "bye": (_nothing, leaving.on_bye),
    "away": (presence.check_away, presence.on_away),
    "back": (presence.check_back, presence.on_back),
    "takeover": (presence.check_takeover, presence.on_takeover),
    "open": (_nothing, _nothing_done),  # refused by ``check_common``
    "heartbeat": (_nothing, _nothing_done),
}


def check_common(s: PublicState, env: Envelope, seat: int) -> None:
    """What every entry is checked for once the chain took it: who may send its kind."""
    kind, author = env.kind, fingerprint(env.sender)
    if kind in NOT_LOGGED:
        raise ProtocolError(f"{kind} messages are not part of this protocol version's log",
                            author)
    if kind in HOST_KINDS and env.sender != s.host_key:
        raise ProtocolError(f"only the host may send {kind}", author)
    if kind in SEATED_KINDS and seat < 0:
        raise ProtocolError(f"a {kind} message from someone not seated", author)
    if s.game is None or seat < 0 or kind == "takeover":
        return
    witness.check_during_round(s, kind)
    if kind in IN_HAND_KINDS:
        return
    if seat not in s.active:
        raise MustRefuse("that seat has left the game", kind, s.host_seat)
    if seat in s.away and kind not in ("back", "bye", "witness"):  # a seat the host says is
        # away may also leave for good, or answer as a witness (the host's word removes no
        # witness from a round)
        raise MustRefuse("that seat is away: its first message on its return is back", kind,
                         s.host_seat)


def apply_entry(s: PublicState, raw: bytes, now: float, env: Envelope | None = None) -> None:
    """``env``: the envelope already opened (and its signature checked) from these bytes.

    The entry goes into ``s.log`` first: a log keeps what the sequencer relayed, the faulty
    entry included, as evidence."""
    s.log.append(raw)
    env = env or open_envelope(raw)
    if s.chain is None:
        if env.kind != "table":
            raise TableEnded("the log does not start with the table's description")
        s.table_id = env.table
        s.chain = ChainVerifier(env.table, [env.sender])
        s.host_key = env.sender
    elif env.kind == "hello":
        lobby.check_hello(s, env, -1)
        s.chain.admit(env.sender)
    s.author, s.folded_kind = s.seat_of(env.sender), env.kind
    s.chain.accept(raw, env)
    check, effect = ENTRIES[env.kind]
    check_common(s, env, s.author)
    check(s, env, s.author)
    witness.note_discharge(s, env, s.author)
    effect(s, env, s.author, now)


def entry_refusal(s: PublicState, env: Envelope) -> str | None:
    """Why the fold would refuse ``env`` as the log's next entry (None: it would take it),
    changing nothing: ``order_refusal`` then ``kind_refusal``."""
    return order_refusal(s, env) or kind_refusal(s, env)


def order_refusal(s: PublicState, env: Envelope) -> str | None:
    """The checks every entry gets: its place in the chain, and who may send its kind."""
    try:
        if env.kind == "hello":
            lobby.check_hello(s, env, -1)
            return None
        assert s.chain is not None
        s.chain.check(env.raw, env)
        check_common(s, env, s.seat_of(env.sender))
    except FOLD_ERRORS as error:
        return refusal_text(error)
    return None


def kind_refusal(s: PublicState, env: Envelope) -> str | None:
    """The check of the entry's own kind (a move's against the rules, as the fold applies it).
    The content of deck messages is the deck's to check (``HandDeck.refusal``)."""
    seat = s.seat_of(env.sender)
    try:
        if env.kind == "move":
            dealing.check_move(s, env, seat)
        elif env.kind != "hello":
            ENTRIES[env.kind][0](s, env, seat)
    except FOLD_ERRORS as error:
        return refusal_text(error)
    return None


def refusal_text(error: Exception) -> str:
    """What a sequencer tells an envelope's author when a check refuses it."""
    if isinstance(error, ProtocolError):
        return error.reason
    if isinstance(error, TableEnded):
        return error.refusal
    return str(error)
