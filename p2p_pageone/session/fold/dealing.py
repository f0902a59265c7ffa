"""Entries of a hand: seed commitments, shuffle and lock passes, keys, moves, seed reveals. Each
kind has its check (``check_*``: raises, changes nothing; the sequencer's admission asks it too)
and its effect (``on_*``), which verifies what the entry carries as it records it: a bad pass,
key or card names its author (``DeckError``)."""

from __future__ import annotations

from ...crypto.deck import Pass
from ...crypto.envelope import Envelope
from ...crypto.identity import fingerprint
from ...engine.moves import Catch, IllegalMove, Play
from ...wire.codec import ProtocolError
from ...wire.kinds import EntryKind
from ..common import MustRefuse, TableEnded
from ..deckcheck import Unproven, check_reveal
from ..hand import HandDeck
from ..moves import move_from
from .queries import deck_of, game_of, hand_over
from .state import Entries, PublicState
from .witness import listening, open_claim, witnesses_for


def in_hand(s: PublicState, seat: int, env: Envelope) -> None:
    if seat not in s.active:
        raise ProtocolError(f"a {env.kind} message from a seat no longer in the game",
                            fingerprint(env.sender))


def check_seed_commit(s: PublicState, env: Envelope, seat: int) -> None:
    if seat in deck_of(s).logged_commits:
        raise ProtocolError("committed twice to a hand seed", fingerprint(env.sender))
    in_hand(s, seat, env)


def on_seed_commit(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    deck_of(s).commit(seat, env.data["commit"])


def check_pass(s: PublicState, env: Envelope, seat: int) -> None:
    refusal = deck_of(s).wrong_round(env.kind, env.data["deck"])
    if refusal:
        raise ProtocolError(refusal, fingerprint(env.sender))
    in_hand(s, seat, env)


def on_pass(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    crypto = deck_of(s)
    given = Pass.from_fields(env.data)
    crypto.receive_pass(env.kind, seat, given, verify_proof=not s.defer_proofs)
    if s.defer_proofs:
        s.unproven.append(Unproven(len(s.log) - 1, s.hand, seat, env.kind,
                                   crypto.record[crypto.pending_round], crypto.index(seat),
                                   proof=given.proof))


def check_keys(s: PublicState, env: Envelope, seat: int) -> None:
    deck_of(s)
    in_hand(s, seat, env)


def on_keys(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    crypto, label = deck_of(s), env.data["deck"]
    try:
        checked = crypto.receive_keys(label, seat, env.data["positions"], env.data["keys"],
                                      verify=not s.defer_proofs)
        defer_keys(s, crypto, label, seat, checked)
    except KeyError as error:
        raise ProtocolError(f"keys for an unknown position: {error}",
                            fingerprint(env.sender)) from None


def defer_keys(s: PublicState, crypto: HandDeck, label: str, seat: int,
               checked: list[tuple[int, int]]) -> None:
    if s.defer_proofs:
        s.unproven.append(Unproven(len(s.log) - 1, s.hand, seat, "keys", crypto.record[label],
                                   crypto.index(seat), keys=tuple(checked)))


def check_move_now(s: PublicState, env: Envelope, seat: int) -> None:
    """A move is possible now: the game runs and the hand is in play."""
    game = s.game
    if game is None or game.over or game.to_reveal or s.crypto is None or hand_over(s):
        raise refused_move(s, env, seat, "made a move while no move is possible",
                           "no move is possible now")


def check_move(s: PublicState, env: Envelope, seat: int) -> None:
    """A move the rules allow now, as far as the public state tells (a hidden hand's renege is
    for its owner's peer live, and the audit after the reveal). The fold checks the rules when
    it applies the move, after the keys of the cards it shows."""
    check_move_now(s, env, seat)
    move = move_from(seat, env.data)
    try:
        game_of(s).deal.verify(move)
    except IllegalMove as error:
        raise refused_move(s, env, seat, f"made a move the rules refuse: {error}",
                           str(error)) from None
    if isinstance(move, Play) and not _keys_logged(s, move, seat):
        # its player may have opened it from keys sent to it directly: a sequencer holds the
        # play until they are logged (every way in, a relay too), so a log that holds it first
        # is the host's doing
        raise MustRefuse("a play whose card's keys are not all in the log yet", EntryKind.MOVE,
                         s.host_seat)


def _keys_logged(s: PublicState, move: Play, seat: int) -> bool:
    crypto = deck_of(s)
    try:
        return all(crypto.keys_complete(slot, but=seat) for slot in move.slots)
    except KeyError:  # a position that is not in the deck: the fold names the player for it
        return True


def refused_move(s: PublicState, env: Envelope, seat: int, fault: str,
                 refusal: str) -> TableEnded:
    """A move the rules refuse where it stands in the log. Sealed against a head from before the
    game last changed, it may have been legal there (a catch while the miss was open, a play in
    its turn): the sequencer must refuse it, and a host that logs it is to blame, not its
    author. Sealed against the game it meets, it is its author's."""
    sealed_at = s.chain.position(env.prev) if s.chain is not None else None
    if sealed_at is None or sealed_at <= s.game_moved_at:
        return MustRefuse(refusal, EntryKind.MOVE, s.host_seat)
    return TableEnded(fault, seat, len(s.log) - 1, refusal=refusal, step="move")


def on_move(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    game, crypto = game_of(s), deck_of(s)
    move = move_from(seat, env.data)
    if isinstance(move, Play) and len(move.cards) != len(move.slots):
        raise ProtocolError("a play must claim one card per position", fingerprint(env.sender))
    if isinstance(move, Play):
        for slot, card, key in zip(move.slots, move.cards, env.data["keys"], strict=True):
            try:
                if not crypto.keys_complete(slot, but=seat):  # its player may have opened it
                    # from keys sent to it directly: a sequencer holds the play until they are
                    # logged, so a log that holds it first is the host's doing
                    raise MustRefuse("a play whose card's keys are not all in the log yet",
                                     "move", s.host_seat)
                checked = crypto.check_shown(slot, seat, key, card, verify=not s.defer_proofs)
                defer_keys(s, crypto, crypto.locate(slot)[0], seat, checked)
            except KeyError:
                raise TableEnded(f"played position {slot}, which is not in its hand",
                                 seat, len(s.log) - 1, step="card shown") from None
    # did the host hold a call? The witnesses say, the catcher among them (but the host): with
    # it struck, a host and one friend at four seats were all the witnesses of an honest catch
    witnessed = isinstance(move, Catch) and listening(s, move.target) and bool(
        witnesses_for(s, {move.target}))
    try:
        if witnessed:
            game.deal.verify(move)
        else:
            s._apply_move(game, move)
    except IllegalMove as error:
        raise refused_move(s, env, seat, f"made a move the rules refuse: {error}",
                           str(error)) from None
    if isinstance(move, Catch) and witnessed:  # the game takes it once the round is judged
        claim = open_claim(s, env, move.target, False)
        claim.catch, claim.hand = move, s.hand
        s._move_logged(move)
        s._claimed(claim, now)
        return
    if isinstance(move, Play):
        crypto.shown.update(move.slots)
    s.hand_moves.append((len(s.log) - 1, move))


def check_seed_reveal(s: PublicState, env: Envelope, seat: int) -> None:
    if not hand_over(s):  # every value is proven on receipt: nothing honest stops a hand
        raise TableEnded(f"relayed a seed reveal from {s.names[seat]} before the hand was over: "
                         "the sequencer must refuse it", s.host_seat,
                         refusal="a hand seed is revealed only once the hand is over",
                         step="seed reveal")
    in_hand(s, seat, env)


def on_seed_reveal(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    if not s._own_reveal(seat, env.data["seed"]):
        check_reveal(deck_of(s), seat, env.data["seed"], proven=not s.defer_proofs,
                     rederive=s.rederive)
    if s.defer_proofs:  # every pass, commitment and key of the seat in this hand re-derived
        s.unproven = [u for u in s.unproven if (u.hand, u.seat) != (s.hand, seat)]
    s.seed_reveals[seat] = env.data["seed"]


ENTRIES: Entries = {
    EntryKind.SEED_COMMIT: (check_seed_commit, on_seed_commit),
    EntryKind.SHUFFLE: (check_pass, on_pass),
    EntryKind.LOCK: (check_pass, on_pass),
    EntryKind.KEYS: (check_keys, on_keys),
    EntryKind.MOVE: (check_move_now, on_move),
    EntryKind.SEED_REVEAL: (check_seed_reveal, on_seed_reveal),
}
