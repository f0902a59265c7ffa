"""The host's word is never evidence (protocol/SPEC.md §7, "Witnesses").

A ``timeout`` the host appends for another listening seat, and a ``catch`` of a Page One call,
are claims about a seat that only the other peers can confirm: each opens a *witness round*.
Every seat still in the game that listens (has an endpoint), but the host and the seats the round
is about, owes one ``witness`` entry per claim, carrying what it holds of the seat the claim is
about (``heard``): that seat's signed sign of life from after the claim (it folded the claim and
was still there), its signed envelope of the step the table waited for (never logged), or, for a
catch, the caller's signed Page One call it held for a second or more before it folded the catch.
While a round is open the log takes only witnesses, further timeouts, byes and chat. When every
witness is in, each claim in turn stands or falls:

- a ``timeout`` that a witness disproves changes nothing (nobody is named; the table keeps
  waiting for what it waited for); one that stands does what a timeout always did, except that a
  seat whose seed reveal was due is named a cheater only if at least one witness confirmed it
  (with no witness it leaves as a leaver: the host's word alone names nobody);
- a ``catch`` waits for its witnesses (its catcher among them, unless it is the host) before
  the game takes it; if at least half of them held the caught seat's call first, the call
  counts instead, and nobody is named (their word is no evidence against the host).

This module knows the round and what disproves a claim; ``leaving`` judges (a claim that stands
is a leave).
"""

from __future__ import annotations

from ...crypto.envelope import Envelope, open_envelope
from ...crypto.identity import fingerprint
from ...crypto.statements import open_statement
from ...wire.codec import ProtocolError
from ...wire.kinds import KIND_RULES, EntryKind
from ..common import MustRefuse
from ..deckcheck import check_reveal
from .claims import Claim
from .duties import Duty
from .state import PublicState

HELD_FOR = 1.0  # a witness counts a call it held at least this long before the catch


def listening(s: PublicState, seat: int) -> bool:
    """A seat that can hear the others on the mesh, and be heard: it has an endpoint."""
    return 0 <= seat < len(s.keys) and bool(s.endpoints.get(s.keys[seat]))


def witnesses_for(s: PublicState, about: set[int]) -> set[int]:
    """The seats that witness a claim about ``about``: every listening seat still in the game
    but the host's and theirs. A seat the host says is away witnesses too (it answers once it
    is back, or it leaves by a claim of its own that stands): the host's word removes no
    witness from a round."""
    return {seat for seat in s.active if listening(s, seat) and seat not in about
            and s.keys[seat] != s.host_key}


def open_claim(s: PublicState, env: Envelope, seat: int, reveal: bool,
               owed: Duty | None = None) -> Claim:
    """A claim about ``seat`` enters the round (opened if none is). ``owed``: the kind of the
    step of ``seat``'s the table waited for, which only that step disproves."""
    # A seat a later claim is about still witnesses the earlier ones, and they it: were the
    # seats a claim is about struck from the round, a host claiming the victim and every
    # witness at once would leave each claim with no witness, and every one would stand.
    claim = Claim(len(s.log) - 1, seat, env, reveal, owed, witnesses_for(s, {seat}))
    if s.chain is not None and 0 <= seat < len(s.keys):
        claim.seq_then = s.chain.next_seq(s.keys[seat])
        claim.floor_then = s.chain.last_prev(s.keys[seat])
    s.claims.append(claim)
    return claim


def check_during_round(s: PublicState, kind: str) -> None:
    """While witnesses are due, the log takes nothing that moves the table on (only the kinds
    whose row says ``during_round``)."""
    if s.claims and not KIND_RULES[EntryKind(kind)].during_round:
        raise MustRefuse("the table waits for the witnesses of the host's claim", kind,
                         s.host_seat)


def check_witness(s: PublicState, env: Envelope, seat: int) -> None:
    claim = next((c for c in s.claims if c.position == env.data["at"]), None)
    if claim is None or claim.seat != env.data["seat"]:
        raise MustRefuse("that claim has no open witness round", EntryKind.WITNESS,
                         s.host_seat)
    if seat not in claim.due or seat in claim.heard:
        raise ProtocolError("a witness answers a claim once, and only a witness it waits for",
                            fingerprint(env.sender))


def disproof(s: PublicState, claim: Claim, raw: bytes) -> str:
    """What in ``raw`` (a witness's ``heard``) shows the claim false: "" if nothing does."""
    if not raw:
        return ""
    key = s.keys[claim.seat]
    try:
        alive = open_statement(raw, "alive")
    except ProtocolError:
        alive = None
    if alive is not None:
        if alive.sender != key or alive.data["table"] != s.table_id or claim.owed:
            return ""
        for index, head in ((alive.data["index"], alive.data["head"]),
                            (alive.data.get("read", -1), alive.data.get("read_head", b""))):
            # what it folded, or what a receipt of the host's it was handed names (the head
            # after the claim could not be known before it, wherever the seat read it)
            if (index > claim.position and s.chain is not None
                    and s.chain.position(head) == index):
                return f"signed sign of life from after it read that entry (at entry {index})"
        return ""
    env = unlogged_envelope(s, raw, key) or _step_since_the_claim(s, claim, raw, key)
    if env is None:
        return ""
    if claim.reveal:
        return _reveal_disproof(s, claim, env)
    # a seat the table waits for shows that step, and one every peer would take: another
    # message of its (a chat sent to the witnesses alone, a pass that does not check out)
    # would let a seat that withholds its step stall the table; so would, for any claim, a
    # step the log refuses (a second back, a move the rules refuse), shown again and again
    if claim.owed is not None and env.kind != claim.owed.kind:
        return ""
    if deck_refuses(s, env) or s.step_refusal(env) is not None:
        return ""
    return f"signed {env.kind} message, which the host never logged"


def deck_refuses(s: PublicState, env: Envelope) -> bool:
    """A deck step (a pass, keys) whose content every peer's deck would refuse."""
    return KIND_RULES[env.kind].deck_step and (s.crypto is None or s.crypto.refusal(
        env.kind, s.seat_of(env.sender), env.data) is not None)


def _reveal_disproof(s: PublicState, claim: Claim, env: Envelope) -> str:
    """Its seed reveal, which opens its commitment; or a message of its sealed before the hand
    ended, which the host held: a peer seals one message at a time, so it could not reveal."""
    assert s.chain is not None
    if env.kind == EntryKind.SEED_REVEAL and s.crypto is not None:
        try:
            check_reveal(s.crypto, claim.seat, env.data["seed"], proven=True, rederive=False)
        except Exception:  # a seed that does not open its commitment disproves nothing
            return ""
        return "signed seed reveal for this hand, which the host never logged"
    sealed_at = s.chain.position(env.prev)
    if sealed_at is None or not 0 <= sealed_at <= s.reveals_due_at:
        return ""
    if env.kind == EntryKind.BACK and s.step_refusal(env) is not None:
        # a back the log would refuse (its seat is not away) was never the host's to log: a
        # seat that showed one would disprove every claim about its reveal, and the table would
        # wait for good. Only the seat's own back ends its away, so an honest seat's held back
        # is one the log would still take.
        return ""
    return (f"signed {env.kind} message, sealed before the hand ended, which the host never "
            "logged (held, it kept that seat from revealing)")


def knew_reveal_due(s: PublicState, claim: Claim, raw: bytes) -> bool:
    """``raw`` is the claimed seat's sign of life from after the entry that made its seed
    reveal due, and after its own newest entry: it read that its reveal was due, and where its
    reveal had to go (a host that cut it off before it could names nobody by timing it out; nor
    does one that logged a message of the seat's it held, taking the number the seat's reveal
    was sealed at, and cut it off before it read that)."""
    try:
        alive = open_statement(raw, "alive")
    except ProtocolError:
        return False
    index = alive.data["index"]
    return (alive.sender == s.keys[claim.seat] and alive.data["table"] == s.table_id
            and 0 <= s.reveals_due_at < index and s.chain is not None
            and s.last_entry_at.get(claim.seat, -1) < index
            and s.chain.position(alive.data["head"]) == index)


def _envelope_of(s: PublicState, raw: bytes, key: bytes, seq: int) -> Envelope | None:
    """``raw`` as ``key``'s envelope for this table and hand at sequence number ``seq``."""
    try:
        env = open_envelope(raw)
    except ProtocolError:
        return None
    return env if _seats_at(s, env, key, seq) else None


def _seats_at(s: PublicState, env: Envelope, key: bytes, seq: int) -> bool:
    return env.sender == key and env.table == s.table_id and env.hand == s.hand and env.seq == seq


def unlogged_envelope(s: PublicState, raw: bytes, key: bytes) -> Envelope | None:
    """``raw`` as ``key``'s envelope for this table and hand at its next sequence number (so
    the host never logged it), or None."""
    if s.chain is None:
        return None
    env = _envelope_of(s, raw, key, s.chain.next_seq(key))
    if env is None:
        return None
    try:  # sealed against a head of this log: one the host could have logged next
        s.chain.check(env.raw, env)
    except ProtocolError:
        return None
    return env


def note_discharge(s: PublicState, env: Envelope, seat: int) -> None:
    """``seat``'s entry, folded while a claim about it waits: it discharges the claim if it is
    the step the claim says the seat did not take (for a claim about a move: any entry of it)."""
    for claim in s.claims:
        if claim.seat != seat:
            continue
        if s.chain is not None:
            claim.later.append((len(s.log) - 1, s.chain.last_prev(env.sender)))
        if (claim.kind == "timeout" and claim.discharged < 0 and env.kind != EntryKind.BYE
                and (claim.owed is None or env.kind == claim.owed.kind)):
            claim.discharged = len(s.log) - 1


def _step_since_the_claim(s: PublicState, claim: Claim, raw: bytes,
                          key: bytes) -> Envelope | None:
    """``raw`` as ``key``'s envelope sealed against a head of this log, at or after the claim,
    at which it was the seat's next: the host could have logged it there. Its author may have
    signed something else at that number since, the host taking that instead: a witness of
    another claim, or the ``back`` of a new connection when the host dropped the old one (so a
    host cannot void what the witnesses hold by logging the seat's return before them)."""
    try:
        env = open_envelope(raw)
    except ProtocolError:
        return None
    at = s.chain.position(env.prev) if s.chain is not None else None
    if at is None or at < claim.floor_then:
        return None
    if any(s.log[index] == raw for index, _ in claim.later):
        return None  # logged after all
    before = [prev for index, prev in claim.later if index < at]
    if before and at < before[-1]:  # older than the head its last envelope then extended
        return None
    if _number_taken(s, claim.later[len(before):len(before) + 1]):
        return None
    return env if _seats_at(s, env, key, claim.seq_then + len(before)) else None


def _number_taken(s: PublicState, taken: list[tuple[int, int]]) -> bool:
    """Did the log give that number to an envelope of the seat's that is neither a witness nor
    a ``back`` (the two a host may log in its place, below)? Then the one held can never be
    logged: a seat that shows the others its step and hands the host a chat line at the same
    number would have each claim about it fall while the table waits for that step for good."""
    if not taken:
        return False
    kind = open_envelope(s.log[taken[0][0]]).kind
    return kind not in (EntryKind.WITNESS, EntryKind.BACK)


def is_call(s: PublicState, raw: bytes, key: bytes) -> bool:
    env = unlogged_envelope(s, raw, key)
    return env is not None and env.kind == EntryKind.MOVE and env.data["kind"] == "call"


def held_call(s: PublicState, claim: Claim, raw: bytes) -> bool:
    """``raw`` as the caught seat's ``call`` at its next sequence number when the catch was
    logged, sealed against a head of this log from before the catch (the host could have
    logged it instead), and never logged: what the seat signs at that number later (a witness
    of another claim in the round, once the host refused the call) does not void it."""
    try:
        env = open_envelope(raw)
    except ProtocolError:
        return False
    at = s.chain.position(env.prev) if s.chain is not None else None
    return (at is not None and claim.floor_then <= at <= claim.position
            and _seats_at(s, env, s.keys[claim.seat], claim.seq_then)
            and env.kind == EntryKind.MOVE and env.data["kind"] == "call"
            and not any(s.log[index] == raw for index, _ in claim.later))


def claimed_seats(s: PublicState) -> set[int]:
    return {c.seat for c in s.claims}


def timeout_claim(s: PublicState, env: Envelope) -> bool:
    """Is this ``timeout`` a claim to witness (True), or one the host may make alone?"""
    seat = env.data["seat"]
    return (s.game is not None and not s.game_over and seat in s.active
            and s.keys[seat] != s.host_key and listening(s, seat))
