"""A peer on the mesh, as a witness (protocol/SPEC.md §7, "Witnesses").

Every listening seat sends the others its signed sign of life (``alive``: the entries it has
folded and its head then) every second, and at once when it reads a claim the host made about
it; its seed reveals and Page One calls go to them too. What a peer holds of the others is what
it answers a witness round with (``fold/witness.py``): the claimed seat's sign of life from after
the claim, its envelope the host never logged, or, for a catch, the call it held first.
"""

from __future__ import annotations

from typing import Any

from ..crypto.envelope import Envelope, open_envelope, seal
from ..crypto.statements import open_statement, seal_statement
from ..wire.codec import ProtocolError, unpack
from ..wire.kinds import KIND_RULES, EntryKind
from .common import Event
from .fold.apply import entry_refusal
from .fold.claims import Claim
from .fold.obligations import BOUNDS, Owed, claimed_of, discharges, owed
from .fold.witness import HELD_FOR, deck_refuses, disproof, held_call, is_call, listening
from .player import MeshMemory, PlayerState

ALIVE_EVERY = BOUNDS.alive_every  # seconds between two signs of life on the mesh
RELAY_AFTER = BOUNDS.relay_after  # an envelope the host has not logged this long: the mesh
CATCH_UP = BOUNDS.catch_up  # how long a witness waits at most for a claimed seat catching up
GRACE = BOUNDS.witness_grace  # how long a witness waits for what disproves a claim before it
# answers (the seat may first have to reconnect, or share its step after RELAY_AFTER)
KEPT = 8  # envelopes kept per peer


def peers_to_tell(s: PlayerState) -> list[str]:
    """The endpoints of the other listening seats still in the game, but the host's."""
    if not s.attachment.endpoint or s.is_host or s.game is None or s.me not in s.active:
        return []
    return [s.endpoints[s.keys[seat]] for seat in s.active
            if seat != s.me and listening(s, seat) and s.keys[seat] != s.host_key]


def tell_all(s: PlayerState, raw: bytes) -> None:
    s.outbox.direct_out += [(endpoint, raw) for endpoint in peers_to_tell(s)]


def send_alive(s: PlayerState, now: float, at_once: bool = False) -> None:
    """Our sign of life to the others, every ``ALIVE_EVERY`` s (``at_once``: now)."""
    mesh = s.mesh
    if s.chain is None or s.ended or (  # after the game too: a seat behind takes the end
            not at_once and now - mesh.alive_sent < ALIVE_EVERY):
        return
    endpoints = peers_to_tell(s)
    if not endpoints:
        return
    mesh.alive_sent = now
    data: dict[str, Any] = {"table": s.table_id, "index": len(s.log), "head": s.chain.head}
    read = read_ahead(s)
    if read is not None:
        data["read"], data["read_head"] = read
    raw = seal_statement(s.identity, "alive", data)
    s.outbox.direct_out += [(endpoint, raw) for endpoint in endpoints]


def read_ahead(s: PlayerState) -> tuple[int, bytes] | None:
    """The newest (count, head) beyond our log that a receipt of our host's we hold names: a
    seat the host cut off from its stream, served the log by the others, shows with it that it
    read a claim about it before it could fold that far (review helper-44)."""
    best = s.mesh.read
    if s.mesh.pending:
        count = max(s.mesh.pending)
        if count > best[0]:
            best = (count, s.mesh.pending[count][1])
    return best if best[0] > len(s.log) else None


def keep_read(s: PlayerState, raw: bytes, now: float) -> None:
    """A receipt of our host's a peer hands us alone: how far its log goes, kept to say we
    read that far (``read_ahead``), and said at once."""
    try:
        receipt = open_statement(raw, "receipt")
    except ProtocolError:
        return
    count = receipt.data["index"]
    if (receipt.sender == s.host_key and receipt.data["table"] == s.table_id
            and count > max(len(s.log), s.mesh.read[0])):
        s.mesh.read = (count, receipt.data["head"])
        send_alive(s, now, at_once=True)


def to_mesh(s: PlayerState, raw: bytes, kind: EntryKind, data: dict[str, Any]) -> None:
    """Our seed reveal and our Page One call go to every listening peer as well as the host;
    so does all we seal while a claim of the host's about us waits for its witnesses."""
    if (kind == EntryKind.SEED_REVEAL or (kind == EntryKind.MOVE and data.get("kind") == "call")
            or any(claim.seat == s.me for claim in s.claims)):
        tell_all(s, raw)


def receive(s: PlayerState, raw: bytes, now: float) -> Envelope | None:
    """A frame from a peer on the mesh: a sign of life is kept (the newest per peer), an
    envelope is kept and returned (a ``keys`` one also opens our cards sooner)."""
    try:
        value = unpack(raw)
    except ProtocolError:
        return None
    if isinstance(value, list) and len(value) == 4:
        if value[0] == "receipt":
            keep_read(s, raw, now)
        else:
            _keep_alive(s, raw, now)
        return None
    try:
        env = open_envelope(raw)
    except ProtocolError:
        return None
    if env.table != s.table_id or s.seat_of(env.sender) not in s.active:
        return None
    kept = s.mesh.held.setdefault(env.sender, [])
    if any(held.raw == raw for _, held in kept):  # the first time we had it is what counts
        return env
    kept.append((now, env))
    if len(kept) > KEPT:  # the lowest number goes (its newest copy): another seat can replay
        # this one's old envelopes to us, but never sign its next, so no flood of them pushes
        # out what bears on a claim about it
        del kept[min(range(len(kept)), key=lambda i: (kept[i][1].hand, kept[i][1].seq, -i))]
    if _relays_at_once(s, env):
        # a Page One call goes on to the host at once (its caller's link to the host may be
        # slow, or the caller sent it to the others only): one for each number of its
        # author's (no flood of calls through us)
        s.mesh.relayed[env.raw] = now
        s.mesh.calls_relayed.add((env.sender, env.seq))
        s.outbox.relay_out.append(env.raw)
    return env


def _relays_at_once(s: PlayerState, env: Envelope) -> bool:
    return (_may_relay(s) and (env.sender, env.seq) not in s.mesh.calls_relayed
            and is_call(s, env.raw, env.sender))


def _may_relay(s: PlayerState) -> bool:
    """Do we hand others' envelopes to our host (a seat of its table, attached, not the host)?"""
    attached = s.attachment
    return not (s.chain is None or not attached.log_read or attached.dropped
                or attached.via_successor or s.is_host)


def _keep_alive(s: PlayerState, raw: bytes, now: float) -> None:
    try:
        alive = open_statement(raw, "alive")
    except ProtocolError:
        return
    mesh = s.mesh
    if alive.data["table"] != s.table_id or s.seat_of(alive.sender) not in s.active:
        return
    if alive.sender != s.identity.public:
        mesh.heard_from[alive.sender] = now
    known = mesh.alive.get(alive.sender)
    index = alive.data["index"]
    read_more = known is not None and index == known[0] and (
        alive.data.get("read", 0) > _read_of(known[1]))
    if known is None or index > known[0] or read_more:  # (a longer log in it is that seat's
        mesh.alive[alive.sender] = (index, raw)  # word: logsync.offered counts only the
        mesh.alive_head[alive.sender] = alive.data["head"]  # host's receipt of one)
        if known is None or index > known[0]:
            mesh.grew_at[alive.sender] = now


def _read_of(raw: bytes) -> int:
    try:
        read: int = open_statement(raw, "alive").data.get("read", 0)
    except ProtocolError:
        return 0
    return read


def claimed(s: PlayerState, claim: Claim, now: float) -> None:
    """We read a claim the host made: about us, we tell the others at once that we are here,
    and hand them our step the host has not logged; as a witness of a catch, we note the call
    we held long enough before it (since we received it: a host that cut us off as the call
    came kept us from handing it on, which proves nothing against the caller)."""
    mesh = s.mesh
    mesh.read_at[claim.position] = now
    if claim.seat == s.me:
        send_alive(s, now, at_once=True)
        if s.in_flight and s.in_flight != mesh.shared:  # the step the host says we never sent
            mesh.shared = s.in_flight
            tell_all(s, s.in_flight)
    if claim.kind == "catch" and s.me in claim.due:
        calls = [env.raw for at, env in mesh.held.get(s.keys[claim.seat], [])
                 if at <= now - HELD_FOR and held_call(s, claim, env.raw)]
        if calls:
            mesh.first_call[claim.position] = calls[-1]


def witness_intent(s: PlayerState, now: float) -> tuple[EntryKind, dict[str, Any]] | None:
    """Our witness entry for the first claim of the round that waits for us, once we know what
    to say: at once if we hold what disproves it (or for a catch), else after ``GRACE``."""
    mesh = s.mesh
    for claim in s.claims:
        if s.me not in claim.due or s.me in claim.heard:
            continue
        heard = b""
        if claim.kind == "catch":
            heard = mesh.first_call.get(claim.position, b"")
        else:
            heard = _disproving(s, claim, mesh)
            if (not heard and claim.discharged < 0  # the log shows its step: at once
                    and _waiting(s, claim, now - mesh.read_at.get(claim.position, now), now)):
                return None
            if not heard and claim.reveal:  # its newest sign of life: did it know?
                heard = mesh.alive.get(s.keys[claim.seat], (0, b""))[1]
        return EntryKind.WITNESS, {"seat": claim.seat, "at": claim.position, "heard": heard}
    return None


def _waiting(s: PlayerState, claim: Claim, read_for: float, now: float) -> bool:
    """Do we wait before we answer a claim with nothing? ``GRACE`` for what disproves it, and
    up to ``CATCH_UP`` while the claimed seat, still talking to us, catches up with the log
    toward the claim (we serve it: ``logsync.serve_laggards``). Else a host that withheld a
    seat's log, then logged a few hundred lines of chat of its own before a claim about it, had
    the seat read the claim too late (review helper-43)."""
    if read_for < GRACE:
        return True
    key = s.keys[claim.seat]
    index = s.mesh.alive.get(key, (0, b""))[0]
    recent = BOUNDS.relay_after  # a sign of life every second; a served batch takes a moment
    return (read_for < CATCH_UP and index <= claim.position
            and now - s.mesh.heard_from.get(key, -1e9) < recent
            and now - s.mesh.grew_at.get(key, -1e9) < recent)


def witness_owed_since(s: PlayerState, seat: int) -> float | None:
    """When we read the claim whose witness ``seat`` owes first (None: it owes none). A
    witness is owed from then: a claim need not move the table on (one about a seat the
    witnesses disproved before does not), so the table's last progress may be much older."""
    for claim in s.claims:
        if seat in claim.due and seat not in claim.heard:
            return s.mesh.read_at.get(claim.position)
    return None


def _disproving(s: PlayerState, claim: Claim, mesh: MeshMemory) -> bytes:
    key = s.keys[claim.seat]
    candidates = [env.raw for _, env in reversed(mesh.held.get(key, []))]
    alive = mesh.alive.get(key)
    if alive is not None:
        candidates.insert(0, alive[1])
    return next((raw for raw in candidates if disproof(s, claim, raw)), b"")


def own_disproof(s: PlayerState, claim: Claim) -> str:
    """A claim that we refused to reveal, though our reveal went out: we do not accept it."""
    if claim.seat != s.me or not claim.reveal:
        return ""
    if not any(sent.kind == EntryKind.SEED_REVEAL for sent in s.outbox.pipe):
        return ""
    return ("timed us out for not revealing our hand seed, which we revealed (our signed "
            "reveal went to the host and to every listening peer): this pageone does not "
            "accept the claim")


def hand_over(s: PlayerState, now: float) -> None:
    """Our envelope the host has neither logged nor refused for ``RELAY_AFTER`` s goes to the
    other listening peers; an envelope of another seat that a peer sent us, still not logged
    after as long, we hand to the host ourselves (``relay_out``): a seat the host does not hear
    is heard through the others, and one the host ignores is seen to be ignored."""
    mesh = s.mesh
    raw = s.in_flight
    if raw != mesh.stuck_since[0]:
        mesh.stuck_since = (raw, now)
    elif raw and now - mesh.stuck_since[1] >= RELAY_AFTER:
        if raw != mesh.shared:
            mesh.shared = raw
            tell_all(s, raw)
        _give_up_chat(s, now)
        _give_up_for_what_we_owe(s, now)
    elif raw and blocks_what_we_owe(s) and refused_by_our_fold(s):
        # a claim about us waits for another step, and the round keeps what we have out from
        # the log: a host that withholds its refusal must not hold our step back meanwhile
        _give_up(s, now)
    if not _may_relay(s):
        return
    assert s.chain is not None
    for key, kept in mesh.held.items():  # one of each author a window, its newest (SPEC §7)
        if any(now - mesh.relayed.get(env.raw, -1e9) < RELAY_AFTER for _, env in kept):
            continue
        due = [env for at, env in kept if now - at >= RELAY_AFTER and env.hand == s.hand
               and env.seq == s.chain.next_seq(key) and KIND_RULES[env.kind].relayed]
        if due:
            mesh.relayed[due[-1].raw] = now
            s.outbox.relay_out.append(due[-1].raw)
    if len(mesh.relayed) > 4 * KEPT:  # forget what is no longer kept
        kept_now = {env.raw for kept in mesh.held.values() for _, env in kept}
        mesh.relayed = {raw: at for raw, at in mesh.relayed.items() if raw in kept_now}


def censored(s: PlayerState, now: float, limit: float) -> str:
    """Another seat's envelope we hold, handed to the host and still not in the log ``limit``
    s after it came: what it is ("" if none). The host is then not serving that seat."""
    if s.chain is None or s.game is None or s.game_over or s.claims:
        return ""  # while a witness round is open the log cannot take it
    for key, kept in s.mesh.held.items():
        seat = s.seat_of(key)
        for at, env in kept:
            if now - at <= limit or env.raw not in s.mesh.relayed:
                continue
            if (env.hand == s.hand and env.seq == s.chain.next_seq(key) and seat in s.active
                    and _admissible(s, env)):
                return f"{s.names[seat]}'s {env.kind} message"
    return ""


def _admissible(s: PlayerState, env: Envelope) -> bool:
    """Would our own fold take ``env`` as the log's next entry? A host that drops one it would
    not is right to: a seat that hands the others what no peer takes is not being censored."""
    return entry_refusal(s, env) is None and not deck_refuses(s, env)


def _give_up_for_what_we_owe(s: PlayerState, now: float) -> None:
    """The table waits for a step of ours, and nothing we have out takes it, nor can the log
    take it any more (our own fold refuses it now: a catch that lost its race while our turn
    is owed, a move while our witness is owed and the round is open): an honest host refuses
    such an envelope at once, and its refusal has not come for ``RELAY_AFTER`` s. A host that
    withholds refusals would keep our step from ever being sealed, and have us timed out for
    it: what is out is given up (taken as refused), so our step can go. What the log could
    still take (another seat may yet hand it to the host) is kept, unless a claim about us
    waits for a step it is not: the witnesses weigh that step alone. Our ``back`` is kept: a
    new host holds it until its ``takeover`` is in (up to its gathering time), and our fold,
    which lacks that entry, refuses it meanwhile; given up, the step sealed in its place
    would keep us from sealing it again on the new host's second welcome."""
    at = s.attachment
    if (s.game is None or at.dropped or not s.outbox.pipe
            or (s.in_flight == at.back_sent and not at.log_read)):
        return
    if blocks_what_we_owe(s, claimed_only=False):
        _give_up(s, now)


def _give_up(s: PlayerState, now: float) -> None:
    """What we have out is taken as refused, and our next step sealed."""
    s.outbox.pipe = []
    s.flush(now)


def blocks_what_we_owe(s: PlayerState, claimed_only: bool = True) -> bool:
    """What we have out takes no step the table waits on us for, and (a claim about us waits
    for its step; or, unless ``claimed_only``, the log can no longer take it either) it must
    make way for that step."""
    pipe = s.outbox.pipe
    claimed = [Owed(s.me, duty) for duty in claimed_of(s, s.me)]
    if pipe and claimed:  # the witnesses weigh the claimed step alone: another we owe waits
        return not any(discharges(o, sent.kind, sent.data) for o in claimed for sent in pipe)
    ours = [o for o in owed(s) if o.seat == s.me]
    if not pipe or not ours or any(discharges(o, sent.kind, sent.data)
                                   for o in ours for sent in pipe):
        return False
    return not claimed_only and refused_by_our_fold(s)


def refused_by_our_fold(s: PlayerState) -> bool:
    """Our own fold refuses every envelope we have out, so the log cannot take it now."""
    return all(entry_refusal(s, open_envelope(sent.raw, own=True)) is not None
               for sent in s.outbox.pipe)


def _give_up_chat(s: PlayerState, now: float) -> None:
    """Our chat line the host has held for ``RELAY_AFTER`` s in a running game is given up:
    a peer seals one message at a time, and a line held so would keep our next step (our keys,
    our reveal) from ever being sealed. If the host logs it after all, the step sealed in its
    place is refused and sealed again."""
    pipe = s.outbox.pipe
    if (s.game is None or s.game_over or s.attachment.dropped or len(pipe) != 1
            or pipe[0].kind is None or not KIND_RULES[pipe[0].kind].chat):
        return
    pipe.pop(0)
    s.events.append(Event("refused", "the host has not logged your chat line for "
                          f"{RELAY_AFTER:.0f} s: it is given up, so the game can go on"))
    s.flush(now)


def farewell(s: PlayerState) -> None:
    """We end for the host's fault, or lost it: our ``bye``, to the host and to every
    listening peer, so that the table does not wait for us. A host that will not log it is
    seen not to serve the table (the others hand it over and give up on the host)."""
    chain = s.chain
    if (chain is None or s.game is None or s.game_over or s.me not in s.active
            or any(sent.kind == EntryKind.BYE for sent in s.outbox.pipe)):
        return
    # sealed against the oldest head it may extend: the log the host sent us may have forked
    # from the others' after it, and the others must be able to take the bye. Twice if
    # envelopes of ours are out: in their place (never logged), and behind them (logged
    # without our knowing): whichever fits the log is taken, the other is refused.
    key, pipe = s.identity.public, s.outbox.pipe
    behind = open_envelope(pipe[-1].raw, own=True).prev if pipe else b""
    places = [(chain.next_seq(key), chain.earliest_head(key)),
              (chain.next_seq(key) + len(pipe), behind or chain.earliest_head(key))]
    for seq, prev in places[: 2 if pipe else 1]:
        raw = seal(s.identity, s.table_id, s.hand, seq, prev, EntryKind.BYE,
                   {"reason": "this pageone found a fault of the host's and left"})
        s.outbox.outgoing.append(raw)
        tell_all(s, raw)
