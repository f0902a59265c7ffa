"""One log entry into the public state: its checks, then its effect (SPEC.md §7).

Every kind of entry has one check, raising and changing nothing, and one effect; the fold runs
both, and the sequencer's admission asks the same checks (``entry_refusal``) before it appends,
so the two cannot drift apart.
"""

from __future__ import annotations

from ...crypto.deck import DeckError
from ...crypto.envelope import ChainVerifier, Envelope, open_envelope
from ...crypto.identity import fingerprint
from ...engine.moves import ChanceError, IllegalMove
from ...engine.settings import SettingError
from ...wire.codec import ProtocolError
from ...wire.kinds import KIND_RULES, EntryKind, Signer
from ..common import MustRefuse, TableEnded
from . import dealing, leaving, lobby, obligations, presence, witness
from .state import IDLE_RUN, Check, Effect, Entries, PublicState, no_effect, nothing

__all__ = ["ENTRIES", "FOLD_ERRORS", "Check", "Effect", "apply_entry", "check_common",
           "entry_refusal", "kind_refusal", "order_refusal", "refusal_text"]

FOLD_ERRORS = (TableEnded, DeckError, ProtocolError, IllegalMove, ChanceError, SettingError)
# Each entry module's kinds, and the kinds of earlier versions (refused by ``check_common``).
ENTRIES: Entries = {**lobby.ENTRIES, **dealing.ENTRIES, **leaving.ENTRIES, **presence.ENTRIES,
                    **{kind: (nothing, no_effect) for kind, row in KIND_RULES.items()
                       if not row.logged}}
assert set(ENTRIES) == set(EntryKind), "every entry kind has its check and its effect"


def check_common(s: PublicState, env: Envelope, seat: int) -> None:
    """What every entry is checked for once the chain took it: who may send its kind (its row
    in ``wire.kinds.KIND_RULES``)."""
    kind, author = env.kind, fingerprint(env.sender)
    row = KIND_RULES[kind]
    if not row.logged:
        raise ProtocolError(f"{kind} messages are not part of this protocol version's log",
                            author)
    if row.signer is Signer.HOST and env.sender != s.host_key:
        raise ProtocolError(f"only the host may send {kind}", author)
    if row.signer is Signer.SEAT and seat < 0:
        raise ProtocolError(f"a {kind} message from someone not seated", author)
    if s.game is None or seat < 0 or row.signer is Signer.SUCCESSOR:
        return
    if row.chat and s.idle_run_full():  # (state.IDLE_RUN says why)
        raise MustRefuse(f"the chat is full: at most {IDLE_RUN} lines in a row while the game "
                         "runs; say it again once the game moves on", kind, s.host_seat)
    witness.check_during_round(s, kind)
    if row.in_hand:  # the hand's own kinds check that the seat is still in the game
        return
    if seat not in s.active:
        raise MustRefuse("that seat has left the game", kind, s.host_seat)
    if seat in s.away and not row.while_away:  # a seat the host says is away may also leave
        # for good, or answer as a witness (the host's word removes no witness from a round)
        raise MustRefuse("that seat is away: its first message on its return is back", kind,
                         s.host_seat)


def apply_entry(s: PublicState, raw: bytes, now: float, env: Envelope | None = None) -> None:
    """``env``: the envelope already opened (and its signature checked) from these bytes.

    The entry goes into ``s.log`` first: a log keeps what the sequencer relayed, the faulty
    entry included, as evidence."""
    s.log.append(raw)
    env = env or open_envelope(raw)
    if s.chain is None:
        if env.kind != EntryKind.TABLE:
            raise TableEnded("the log does not start with the table's description")
        s.table_id = env.table
        s.chain = ChainVerifier(env.table, [env.sender])
        s.host_key = env.sender
    elif KIND_RULES[env.kind].signer is Signer.NEWCOMER:
        lobby.check_hello(s, env, -1)
        s.chain.admit(env.sender)
    s.author, s.folded_kind = s.seat_of(env.sender), env.kind
    s.chain.accept(raw, env)
    check, effect = ENTRIES[env.kind]
    check_common(s, env, s.author)
    check(s, env, s.author)
    witness.note_discharge(s, env, s.author)
    s.last_entry_at[s.author] = len(s.log) - 1
    effect(s, env, s.author, now)
    s.count_idle(env.kind)
    obligations.forget_returns_discharged(s)


def entry_refusal(s: PublicState, env: Envelope) -> str | None:
    """Why the fold would refuse ``env`` as the log's next entry (None: it would take it),
    changing nothing: ``order_refusal`` then ``kind_refusal``."""
    return order_refusal(s, env) or kind_refusal(s, env)


def order_refusal(s: PublicState, env: Envelope) -> str | None:
    """The checks every entry gets: its place in the chain, and who may send its kind."""
    try:
        if KIND_RULES[env.kind].signer is Signer.NEWCOMER:
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
        if env.kind == EntryKind.MOVE:  # as the fold applies it, not only whether it may now
            dealing.check_move(s, env, seat)
        elif KIND_RULES[env.kind].signer is not Signer.NEWCOMER:
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
