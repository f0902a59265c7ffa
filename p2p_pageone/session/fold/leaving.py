"""Entries by which a seat leaves or the hand closes: the signed log head at a hand's end, a
timeout, an expel with its evidence, a bye; and what leaving does (RULINGS Q14: the hand is void
and the game goes on without the seat if it can). Checks (``check_*``) raise and change nothing;
effects (``on_*``) fold the entry.

A ``head`` carries the number of log entries when the hand ended and the log head after them.
Its ``prev`` is a head of this log (the chain checked it), so up to there its signer holds this
very log: a value that differs is a fork the sequencer made if that ``prev`` is older than the
hand's end (the histories differ only where the sequencer ordered them), and else a head its
signer never reached (SPEC §7, "Signed order").
"""

from __future__ import annotations

from ...crypto.envelope import Envelope, open_envelope
from ...crypto.identity import fingerprint
from ...engine.moves import Call, IllegalMove, Move
from ...wire.codec import ProtocolError
from ...wire.kinds import KIND_RULES, EntryKind
from ..common import Event, MustRefuse, TableClosed, TableEnded
from . import witness
from .claims import Claim, awaited
from .dealing import in_hand
from .lost import HANDOVER, may_hand_over, note_listening
from .obligations import lapse_witness_duties, timeout_duty
from .queries import deck_of, reveal_due
from .rounds import game_over, heads_agree, start_hand
from .state import Entries, PublicState, nothing

NOT_THE_HEAD = "that is not the head this log reached at the end of the hand"


def check_head(s: PublicState, env: Envelope, seat: int) -> None:
    """Raise unless ``env`` (a ``head`` from ``seat``) is due and equals this log's own."""
    in_hand(s, seat, env)
    if s.hand_end is None or seat in s.heads:
        raise ProtocolError("a log head is signed once, at the end of a hand",
                            fingerprint(env.sender))
    assert s.chain is not None
    index, head = s.hand_end
    if (env.data["index"], env.data["head"]) == (index, head):
        return
    claim = f"entry {env.data['index']}, head {env.data['head'].hex()[:16]}"
    mine = f"entry {index}, head {head.hex()[:16]}"
    seen = s.chain.position(env.prev)
    if seen is not None and seen < index:
        raise TableEnded(f"showed {s.names[seat]} another table: at the end of hand {s.hand} "
                         f"it signed the log head as {claim}, this log's is {mine}; only the "
                         "sequencer orders the log", s.host_seat, refusal=NOT_THE_HEAD,
                         step="log head")
    raise TableEnded(f"signed a log head it never reached at the end of hand {s.hand} "
                     f"({claim}; it had seen this log up to entry {seen}, whose head at the end "
                     f"of the hand is {mine})", seat, refusal=NOT_THE_HEAD, step="log head")


def on_head(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    """A seat signs the log head it reached at the end of the hand (SPEC §7, "Signed order")."""
    s.heads[seat] = env.data["head"]
    heads_agree(s)


def check_timeout(s: PublicState, env: Envelope, seat: int) -> None:
    """A seat already in the round's claims is not timed out twice; nobody is once the game is
    over."""
    if env.data["seat"] in witness.claimed_seats(s):
        raise MustRefuse("that seat's timeout already waits for its witnesses",
                                 EntryKind.TIMEOUT, s.host_seat)
    if s.game is not None and env.data["seat"] not in s.active:  # the host's slip, not the seat's
        raise MustRefuse("that seat is no longer in the game", EntryKind.TIMEOUT, s.host_seat)
    if s.game is not None and s.game_over:  # it would void the last hand after the standings
        raise MustRefuse("the game is over: nobody owes the table anything", EntryKind.TIMEOUT,
                         s.host_seat)


def on_timeout(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    silent = env.data["seat"]
    if witness.timeout_claim(s, env):  # another listening seat: the others witness it
        reveal = reveal_due(s, silent)
        claim = witness.open_claim(s, env, silent, reveal, owed=timeout_duty(s, silent, reveal))
        s._claimed(claim, now)
        close_round(s)
        return
    if 0 <= silent < len(s.keys) and s.keys[silent] == s.host_key:  # no sequencer, no table
        raise TableClosed(f"timed itself out (the table waited for {env.data['waited_for']}): "
                          "there is no sequencer left", silent)
    if reveal_due(s, silent):  # nobody could witness it: the host's word names nobody
        leave(s, silent, unconfirmed_reveal(s))
        return
    leave(s, env.data["seat"], f"went silent while the table waited for "
           f"{env.data['waited_for']}")


def check_expel(s: PublicState, env: Envelope, seat: int) -> None:
    """The sequencer refused a deck message and shows it: every peer checks the evidence itself
    (signed by the expelled seat, for this hand, and refused by the same checks: ``on_expel``).
    Evidence that does not check out names the host."""
    culprit = env.data["seat"]
    deck_of(s)
    try:
        evidence = open_envelope(env.data["evidence"])
    except ProtocolError:
        raise TableEnded("expelled a peer with evidence that is not a signed message",
                         seat) from None
    assert s.chain is not None
    if (culprit not in s.active or culprit >= len(s.keys) or evidence.sender != s.keys[culprit]
            or evidence.table != s.table_id or evidence.hand != s.hand
            or evidence.seq != s.chain.next_seq(evidence.sender)  # refused, so never logged
            or not KIND_RULES[evidence.kind].deck_evidence):
        raise TableEnded("expelled a peer with evidence that is not that peer's refused deck "
                         "message in this hand", seat)
    try:  # sealed against a head of this log: else the host showed that peer another table
        s.chain.check(evidence.raw, evidence)
    except ProtocolError:
        raise TableEnded("expelled a peer with evidence sealed against a head this log never "
                         "had: the host showed that peer another table (a fork)", seat) from None


def on_expel(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    """The deck's checks run on the evidence here, once: if it checks out, the host is named;
    else the hand is void without that seat."""
    culprit = env.data["seat"]
    evidence = open_envelope(env.data["evidence"])
    refusal = deck_of(s).refusal(evidence.kind, culprit, evidence.data)
    if refusal is None:
        raise TableEnded(f"expelled {s.names[culprit]} for a {evidence.kind} message that "
                         "checks out", seat)
    leave(s, culprit, f"sent a {evidence.kind} message every peer refuses ({refusal})")


def on_bye(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    if reveal_due(s, seat) and not _sealed_before_the_end(s, env):
        # leaving instead of revealing hides the cards that check its moves
        raise TableEnded(refused_reveal(s, seat), seat, step="seed reveal")
    if (env.sender == s.host_key and env.data["reason"] == HANDOVER and may_hand_over(s)
            and seat != s.me):
        s.handed_over = len(s.log) - 1  # its own signed word that it is gone: the successor
        s.events.append(Event("handover", f"{s.names[seat]}'s machine (the host) cannot write "
                              "its log: it hands the table over to the next seat",
                              {"seat": seat, "position": len(s.log) - 1}))
        return
    if env.sender == s.host_key and not s.game_over:  # no sequencer, no table
        reason = env.data["reason"]
        raise TableClosed("closed the table" + (f" ({reason})" if reason and reason !=
                                                "the host closed the table" else ""), seat)
    if not s.game_over:
        leave(s, seat, f"left the table: {env.data['reason']}")


def _sealed_before_the_end(s: PublicState, env: Envelope) -> bool:
    """A ``bye`` sealed against a head from before the entry that ended the hand: its author
    left before it could know its reveal was due (a host that showed it another end, say), as a
    seat that went silent then; the hand is void and nobody is named."""
    sealed_at = s.chain.position(env.prev) if s.chain is not None else None
    return sealed_at is not None and 0 <= sealed_at <= s.reveals_due_at


def refused_reveal(s: PublicState, seat: int) -> str:
    """A peer silent after the play instead of revealing its seed: a cheat, not a leaver."""
    moves = [at for at, move in s.hand_moves if move.seat == seat]
    unchecked = (f"its moves at entries {', '.join(map(str, moves))} cannot be checked"
                 if moves else "its hidden cards cannot be checked")
    return (f"refused to reveal its hand seed after hand {s.hand} was played: {unchecked}; "
            "the table treats this as cheating, not as leaving")


def unconfirmed_reveal(s: PublicState) -> str:
    """Why a seat leaves that the host alone says did not reveal: the hand is void, nobody named."""
    return (f"did not reveal its hand seed in time (the host says so; no other peer could "
            f"confirm that it knew its reveal was due): hand {s.hand} cannot be checked and is "
            "void")


def leave(s: PublicState, seat: int, why: str, restart: bool = True) -> None:
    """RULINGS Q14: the hand is voided and the game goes on without ``seat`` if it can.
    ``restart`` False: several seats leave at once, and the caller starts the next hand."""
    game = s.game
    if game is None and 0 <= seat < len(s.keys):
        leave_lobby(s, seat, why)
        return
    if game is None or not 0 <= seat < s.seat_count or seat not in s.active:
        raise TableEnded(why, seat)
    if seat == s.me:
        raise TableEnded(f"{why}; the table goes on without us", seat)
    if len(s.active) <= 2 and not (game.over and s.hand_end is not None):
        raise TableClosed(why, seat)
    note_listening(s)
    s.active.remove(seat)
    s.away.pop(seat, None)
    if s.claims:
        forget_witness(s, seat)
    name, over = s.names[seat], game.over
    game.leave(seat)
    if s.hand_end is not None:  # between two hands, or after the last: the hand played stands
        s.heads.pop(seat, None)
        s.events.append(Event("left", f"{name} (seat {seat}) {why}" + (
            "" if over else f": the game goes on without {name}"), {
                "seat": seat, "hand": s.hand, "why": why, "position": len(s.log) - 1}))
        if restart:
            heads_agree(s)
        return
    s.events.append(Event("left", f"{name} (seat {seat}) {why}: hand {s.hand} is void and the "
                          f"game goes on without {name}",
                          {"seat": seat, "hand": s.hand, "why": why, "position": len(s.log) - 1}))
    if game.over:
        game_over(s)
    elif restart:
        start_hand(s)


def leave_lobby(s: PublicState, seat: int, why: str) -> None:
    """Before the game, a leaver frees its seat and the table waits for another player. The
    coin toss starts again with whoever sits: fresh commitments from everyone."""
    if s.keys[seat] == s.host_key:
        raise TableEnded(why, seat)
    s._left_lobby(seat, why)
    name, key = s.names.pop(seat), s.keys.pop(seat)
    assert s.chain is not None
    s.chain.leave(key)
    s.me = s.seat_of(s.own_key)
    s.ready.clear()
    s.coin_commits.clear()
    s.coin_nonces.clear()
    missing = s.seat_count - len(s.keys)
    s.events.append(Event("left", f"{name} {why}: the seat is free again; waiting for "
                          f"{missing} more player{'s' if missing > 1 else ''}",
                          {"seat": seat, "hand": 0, "why": why, "position": len(s.log) - 1}))


# --- witness rounds (fold/witness.py): a claim that stands is a leave ------------------------

def on_witness(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    claim = next(c for c in s.claims if c.position == env.data["at"])
    if _answer(s, claim, seat, env.data["heard"]):
        _answer_shown(s, claim.seat, env.data["heard"])
    close_round(s)


def _answer(s: PublicState, claim: Claim, seat: int, heard: bytes) -> str:
    """``seat``'s witness of ``claim`` is in: what in it disproves a timeout ("" if nothing, or
    for a catch, which ``judge_catch`` weighs)."""
    claim.heard[seat] = heard
    if claim.kind == "catch":
        return ""
    claim.disproved[seat] = witness.disproof(s, claim, heard)
    return claim.disproved[seat]


def _answer_shown(s: PublicState, seat: int, raw: bytes) -> None:
    """A claim about ``seat`` fell on its own signed witness of another claim, which a witness
    held: that is its answer there, logged or not. Else a seat that shows the others its witness
    and hands the host a chat line at the same number has every claim about it fall while the
    round waits for an answer the log can never take (review: one dishonest seat, the host
    honest, held a catch's round open until the honest seats left their host)."""
    try:
        env = open_envelope(raw)
    except ProtocolError:
        return
    if env.kind != EntryKind.WITNESS or env.sender != s.keys[seat]:
        return
    owed = next((c for c in s.claims if c.position == env.data["at"]
                 and c.seat == env.data["seat"] and seat in c.due and seat not in c.heard), None)
    if owed is not None:
        _answer(s, owed, seat, env.data["heard"])


def forget_witness(s: PublicState, seat: int) -> None:
    """``seat`` left the game: no claim waits for its witness any more, and one about it has
    nothing left to judge (else its witnesses stay owed, and a seat whose witness the host
    swallows is timed out for it again in the next hand, where what it sealed counts no more)."""
    s.claims[:] = [claim for claim in s.claims if claim.seat != seat]
    for claim in s.claims:
        claim.due.discard(seat)
        claim.heard.pop(seat, None)
        claim.disproved.pop(seat, None)
    lapse_witness_duties(s.claims)
    close_round(s)


def close_round(s: PublicState) -> None:
    """A claim whose witnesses are all in stands or falls, the oldest first; one that stands
    may complete another (the seat it removes owed a witness there). The round lasts while
    any claim waits."""
    while True:
        claim = next((c for c in s.claims if not awaited(s.claims, c, s.seat_count)), None)
        if claim is None:
            return
        s.claims.remove(claim)
        lapse_witness_duties(s.claims)
        if claim.kind == "catch":
            judge_catch(s, claim)
        else:
            judge_timeout(s, claim)


def judge_timeout(s: PublicState, claim: Claim) -> None:
    seat = claim.seat
    if seat not in s.active:
        return
    proof = next(((w, why) for w, why in sorted(claim.disproved.items()) if why), None)
    name = s.names[seat]
    if proof is None and claim.discharged >= 0:  # the log shows it: no witness needed
        proof = (seat, f"entry {claim.discharged}, in the log after the claim, is {name}'s "
                 "own step")
    if proof is not None:
        by, why = proof
        s.refuted.append(seat)
        s.events.append(Event("refuted", f"the host timed {name} out at entry {claim.position} "
                              f"(waiting for {claim.env.data['waited_for']}), but "
                              + (f"{why}" if by == seat else f"{s.names[by]} holds {name}'s {why}")
                              + ": the claim changes nothing "
                              "and nobody is named",
                              {"seat": seat, "position": claim.position, "witness": by}))
        return
    if claim.reveal and reveal_due(s, seat):
        # confirmed: no witness holds its reveal, and one holds its word that it read the end
        # of the hand (its seed was due, and it knew)
        # a seat kept away (no connection the host took back) can seal nothing: it knew, but
        # could not reveal, so it leaves as a leaver does
        if seat not in s.away and any(witness.knew_reveal_due(s, claim, raw)
                                      for raw in claim.heard.values()):
            own = s._own_disproof(claim)
            if own:
                raise TableEnded(own, s.host_seat)
            raise TableEnded(refused_reveal(s, seat), seat, step="seed reveal")
        leave(s, seat, unconfirmed_reveal(s))
        return
    leave(s, seat, f"went silent while the table waited for {claim.env.data['waited_for']}")


def judge_catch(s: PublicState, claim: Claim) -> None:
    """The game takes the catch now, unless at least half of its witnesses held the caught
    seat's call first: then that call counts instead. Whether the host held the call or the
    call lost a race on a slow link, nobody can prove (the witnesses' word is no evidence of
    the host's), so nobody is named; and a host that holds a call gains no catch by it."""
    move = claim.catch
    if move is None or claim.hand != s.hand or claim.seat not in s.active:
        return  # a void hand, or a seat that left: there is nothing left to catch
    held = sorted(w for w, raw in claim.heard.items() if raw and witness.held_call(s, claim, raw))
    counted: Move = move
    if held and 2 * len(held) >= len(claim.due):
        counted = Call(claim.seat)
        s.void_catches.append(claim.env.raw)
        name = s.names[claim.seat]
        s.events.append(Event("refuted", f"{s.names[move.seat]} caught {name} at entry "
                              f"{claim.position}, but {', '.join(s.names[w] for w in held)} "
                              f"had {name}'s Page One call {witness.HELD_FOR:.0f} s or more "
                              "before the catch was logged: the call counts, not the catch, "
                              "and nobody is named",
                              {"seat": claim.seat, "position": claim.position,
                               "witness": held[0]}))
    take_held_move(s, claim, counted)


def take_held_move(s: PublicState, claim: Claim, move: Move) -> None:
    """The game takes ``move`` for the catch the claim held, at the catch's place."""
    if s.game is None or claim.hand != s.hand:
        return
    try:
        s._apply_move(s.game, move)
    except IllegalMove:
        return  # (a seat that left in the round ended the deal or the game meanwhile)
    s.hand_moves.append((claim.position, move))


ENTRIES: Entries = {
    EntryKind.HEAD: (check_head, on_head),
    EntryKind.TIMEOUT: (check_timeout, on_timeout),
    EntryKind.WITNESS: (witness.check_witness, on_witness),
    EntryKind.EXPEL: (check_expel, on_expel),
    EntryKind.BYE: (nothing, on_bye),
}
