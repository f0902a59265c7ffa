"""The log over the mesh (protocol/SPEC.md §7, "The log from the others"): a seat the host
stops sending the log to is still served by the listening seats.

Every listening seat reads the others' signs of life (their log length and head). One whose
length stays behind ours for ``SYNC_AFTER`` s gets our entries from there, as ``entry`` frames
on the mesh, a few at a time. A seat takes such entries only as far as the host receipted them
(its ``receipt``, or the ``prev`` of a later entry of its own): no peer can show it an order the
host did not sign; one signed two ways is the host's fork. The host's stream then skips them.

The host's own stream numbers its entries too (``entry`` frames): an entry beyond our log's end
(the host left a gap, as a host that withholds entries from one seat does) is not folded out of
place; it waits in ``host_ahead`` until the gap is filled from the mesh, and it receipts what
fills it like any entry ahead.
"""

from __future__ import annotations

from ..crypto.envelope import extend, open_envelope
from ..crypto.statements import open_statement
from ..wire.codec import ProtocolError, pack, unpack
from ..wire.kinds import EntryKind
from ..wire.messages import validate_control
from .common import TableEnded
from .fold.obligations import BOUNDS
from .player import PlayerState
from .receipts import keep_highest, receipt_refusal, receipted_head

SYNC_AFTER = 2.0  # a seat whose sign of life stays this long behind ours gets our entries
BATCH = 24  # entries sent to one seat at a time (once per sign of life)
OFFERED = 96  # entries a seat keeps ahead of its log, waiting for the host's receipt
assert BOUNDS.relay_after > SYNC_AFTER


class NotServing(ProtocolError):
    """The host sent us an entry without its receipt: it does not serve the table (we leave
    it as when it stops sending us the log, signing that we lost it)."""


def entry_frame(index: int, raw: bytes, receipt: bytes = b"") -> bytes:
    value: dict[str, object] = {"control": "entry", "index": index, "raw": raw}
    if receipt:
        value["receipt"] = receipt
    return pack(value)


def serve_laggards(s: PlayerState, now: float) -> None:
    """Our entries to each listening seat whose sign of life lags ours for ``SYNC_AFTER`` s; to
    one a claim is about, at once and as far as it keeps entries ahead (it must read the claim)."""
    mesh = s.mesh
    if (s.chain is None or s.game is None or s.ended or s.is_host or not s.attachment.log_read
            or not s.attachment.endpoint):
        return
    length, receipts = len(s.log), mesh.receipts
    claimed = {s.keys[c.seat] for c in s.claims if c.kind != "catch" and c.seat < len(s.keys)}
    for key, (index, _) in list(mesh.alive.items()):
        seat = s.seat_of(key)
        endpoint = s.endpoints.get(key, "")
        if seat not in s.active or not endpoint or key == s.host_key or index > length:
            mesh.lag_since.pop(key, None)
            continue
        since = mesh.lag_since.setdefault(key, (index, now))
        if since[0] != index:
            mesh.lag_since[key] = since = (index, now)
        wait = 0.0 if key in claimed else SYNC_AFTER
        if now - since[1] < wait or now - mesh.served_at.get(key, -1e9) < BOUNDS.alive_every:
            continue
        parted = _parted(s, index, mesh.alive_head.get(key, b""))
        if index == length and not parted:
            continue
        mesh.served_at[key] = now
        first = _receipted_before(s, index) if parted else index  # with a receipt that
        # shows where it parted from us
        end = index + (OFFERED if key in claimed else BATCH)
        s.outbox.direct_out += [(endpoint, entry_frame(i, s.log[i], receipts.get(i + 1, b"")))
                                for i in range(first, min(length, end))]
        if key in claimed and length in receipts:  # it may read the claim before it folds it
            s.outbox.direct_out.append((endpoint, receipts[length]))
        s.outbox.direct_out += [(endpoint, frame) for frame in _held_ahead(s, end)]


def _held_ahead(s: PlayerState, end: int) -> list[bytes]:
    """The entries we hold ahead of our log, before ``end``, as ``entry`` frames with the
    receipts we hold for them: a seat we serve takes our log as far as we took it (an entry of
    the host's own there receipts what comes before its ``prev``), and no further."""
    frames, at, ahead, mesh = [], len(s.log), _ahead(s), s.mesh
    while at < end and (raw := ahead.get(at) or mesh.offered.get(at)):
        frames.append(entry_frame(at, raw, mesh.pending.get(at + 1, (b"", b""))[0]))
        at += 1
    return frames


def _receipted_before(s: PlayerState, index: int) -> int:
    """The newest entry before ``index`` whose receipt we hold (the host's, for the log up to
    and including it), at most ``BATCH`` back; else the entry right before ``index``."""
    receipts = s.mesh.receipts
    return next((count - 1 for count in range(index, max(0, index - BATCH), -1)
                 if count in receipts), index - 1)


def _parted(s: PlayerState, index: int, head: bytes) -> bool:
    """Does a seat's sign of life name another ``head`` for a log of ``index`` entries than
    ours: the host showed one of us a history of its own?"""
    ours = s.chain.head_at(index) if s.chain is not None and index > 0 else None
    return ours is not None and head != ours


def serving(s: PlayerState, now: float) -> bool:
    """A listening seat that still talks to us lags our log: we serve it (``serve_laggards``)."""
    heard = s.mesh.heard_from
    return any(now - heard.get(key, -1e9) < SYNC_AFTER + BOUNDS.relay_after
               and index < len(s.log) for key, (index, _) in s.mesh.alive.items()
               if key != s.host_key and s.seat_of(key) in s.active)


def from_host(s: PlayerState, index: int, raw: bytes, now: float, receipt: bytes = b"",
              host: bytes = b"") -> bool:
    """The host's entry ``raw`` at ``index`` of its log: True if it is our log's next entry (to
    fold now). One we hold already is dropped (a different one is the host's fork: ``TableEnded``
    names it); one beyond our log's end waits for the gap to be filled. On a new connection,
    where the host sends its log again, entries we hold that it skips are no fault (a host may
    withhold what a seat has from the mesh): the ones it sends are checked."""
    s.mesh.host_entry_at = now
    at = s.attachment
    checking = at.checked < at.known
    expected = at.checked if checking else len(s.log)
    if checking and index > expected:  # sent again, it skips entries we hold: no history
        if index < at.known:  # of its own, so nothing to check there
            if raw != s.log[index]:
                raise log_differs(s, raw, f"sent entry {index} of its log again, another "
                                  "way than before (a fork)")
            at.checked = index + 1
            return False
        at.checked, checking, expected = at.known, False, len(s.log)  # it skipped the rest
    if index == expected:  # of what we hold: its new entries follow
        if index == len(s.log):
            keep_host_receipt(s, index, raw, receipt, host or s.host_key)
        return True
    if index < len(s.log) and (not checking or index < expected):  # sent twice
        if raw != s.log[index]:
            raise log_differs(s, raw, f"sent entry {index} of its log twice, two different "
                              "ways (a fork)")
        _keep_if_ours(s, index + 1, receipt, host or s.host_key)  # (the mesh brought it first)
        return False
    if index > expected and not checking and index < len(s.log) + OFFERED:
        open_envelope(raw)  # what is no envelope never waits to shadow the mesh's entry there
        s.mesh.host_ahead[index], s.mesh.ahead_of = raw, s.host_key
        offered(s, index, b"", receipt, host, now)
        return False
    raise ProtocolError(f"the host sent entry {index} where entry {expected} was due")


def _keep_if_ours(s: PlayerState, count: int, receipt: bytes, host: bytes) -> None:
    """The host's receipt of our first ``count`` entries, kept to serve them on (a seat we
    serve takes an entry only as far as a receipt goes)."""
    head = s.chain.head_at(count) if s.chain is not None and receipt else None
    if head is not None and receipt_refusal(receipt, host, s.table_id, count, head) is None:
        keep_highest(s.mesh.receipts, count, receipt)


def log_differs(s: PlayerState, raw: bytes, fork: str) -> TableEnded:
    """Our connection's host sent ``raw`` where our log holds another entry: the end it makes.
    A new host's ``takeover`` there, or any entry from a successor we reached, is no evidence
    (we hold entries of the old host's that it never had: nobody is named); else ``fork``,
    naming our host."""
    try:
        taken_over = open_envelope(raw).kind == "takeover"
    except ProtocolError:
        taken_over = False
    if taken_over:
        return TableEnded("the new host took the table over without the last entries this "
                          "pageone had from the old host (it came back too late to hand them "
                          "over): this log ends here, and nobody is to blame")
    if s.attachment.via_successor:  # not our host's log: no evidence of anything
        return TableEnded("the peer taking the table over sent a log that differs from ours; "
                          "this pageone leaves, naming nobody")
    return TableEnded(fork, s.seat_of(s.host_key))


def _ahead(s: PlayerState) -> dict[int, bytes]:
    """The host's entries beyond a gap; those of a host the log has since left (a takeover
    taken from the others) are dropped."""
    if s.mesh.ahead_of != s.host_key:
        s.mesh.host_ahead.clear()
    return s.mesh.host_ahead


def next_from_host(s: PlayerState) -> bytes:
    """The host's entry at our log's end that waited for a gap to be filled, or b"": taken only
    with the host's receipt of its place (else it waits for one, ``receipted``)."""
    ahead = _ahead(s)
    for old in [i for i in ahead if i < len(s.log)]:
        del ahead[old]
    raw = ahead.get(len(s.log), b"")
    held = s.mesh.pending.get(len(s.log) + 1)
    if not raw or s.chain is None or held is None or held[1] != extend(s.chain.head, raw):
        return b""
    return ahead.pop(len(s.log))


def in_reach(s: PlayerState, index: int) -> bool:
    """Is ``index`` a place ahead of our log that we keep an ``entry`` frame for?"""
    return len(s.log) <= index < len(s.log) + OFFERED


def wanted(s: PlayerState, index: int, raw: bytes) -> bool:
    """Is a peer's ``entry`` frame of use: in reach, and the first for its place, or the same
    bytes again (what honest servers all send)? The listener counts the others, which replace
    an entry held there, against its flood limit."""
    return in_reach(s, index) and s.mesh.offered.get(index, raw) == raw


def offered(s: PlayerState, index: int, raw: bytes, receipt: bytes = b"",
            host: bytes = b"", now: float = 0.0) -> None:
    """A peer's ``entry`` frame (or one of the host's beyond a gap: its receipt only, signed by
    ``host``): kept if it lies ahead of our log, within reach, each part checked once, as it
    comes (a signature per frame at most), with the head the host's receipt names. A receipt of
    a log longer than any before is the host at work, serving the others (``longest``): a
    seat's own word for a longer log (its sign of life) is not, since any seat could say so."""
    length, mesh = len(s.log), s.mesh
    if in_reach(s, index):
        try:
            if raw and mesh.offered.get(index) != raw:  # the last one offered stands
                env = open_envelope(raw)
                mesh.offered[index], mesh.offered_by[index] = raw, (env.sender, env.prev)
            if receipt:
                _keep_receipt(s, index + 1, receipt, host or s.host_key, now)
        except ProtocolError:
            pass  # what does not open, or is not the host's receipt, is dropped
    elif receipt and index < length:
        _receipt_of_ours(s, index + 1, receipt, host or s.host_key)
    for old in [i for i in mesh.offered if i < length]:
        del mesh.offered[old], mesh.offered_by[old]


def _keep_receipt(s: PlayerState, count: int, receipt: bytes, host: bytes, now: float) -> None:
    """The host's receipt of its first ``count`` entries, kept until we fold that many. One
    for the same count that names another head, signed by the same host, is the host's fork:
    it signed two orders (an honest host's log only grows), and our table ends naming it."""
    mesh = s.mesh
    head = receipted_head(receipt, host, s.table_id, count)
    known = mesh.pending.get(count)
    if known is not None and known[1] != head:
        try:
            receipted_head(known[0], host, s.table_id, count)
        except ProtocolError:  # another host's (the one before a takeover): the newest stands
            known = None
        else:
            s._end(f"signed two receipts for the first {count} entries of its log, naming two "
                   "different logs (a fork)", s.seat_of(host))
            return
    if known is None:
        mesh.pending[count] = (receipt, head)
        if count > max(mesh.longest, len(s.log)):
            mesh.longest, mesh.table_moved_at = count, now


def _receipt_of_ours(s: PlayerState, count: int, receipt: bytes, host: bytes) -> None:
    """The host's receipt of its first ``count`` entries, served with one we folded already.
    Every entry we fold the host receipted (or signed in its place), so a receipt of our own
    host's that names another head there is its fork: it signed two orders for one length
    (a seat it showed a history of its own learns so from the others, who serve it the entries
    where its sign of life parts from their log), and our table ends naming it."""
    if s.chain is None or host != s.host_key:
        return
    ours = s.chain.head_at(count)
    try:
        named = receipted_head(receipt, host, s.table_id, count)
    except ProtocolError:
        return
    if ours is not None and named != ours:
        s._end(f"signed receipts of two different logs of {count} entries, the one it had us "
               "fold and another the other seats were given (a fork)", s.seat_of(host))


def receipted(s: PlayerState) -> list[bytes]:
    """The run of offered entries from our log's end as far as a receipt of the host's own
    says: a ``receipt`` statement the host signed for a head of the run (it came with an entry),
    or a later entry of the host's own whose ``prev`` is a head of the run (what comes before
    that head; never the entry itself, which may belong further on). No peer, nor any number
    of them, can show us an order the host did not sign (a seat's or many seats' word for a
    head is no receipt: they could show us one)."""
    if s.chain is None:
        return []
    run, heads, at = [], [s.chain.head], len(s.log)
    ahead, mesh = _ahead(s), s.mesh
    while options := [raw for raw in (ahead.get(at, b""), mesh.offered.get(at, b"")) if raw]:
        # the host's stream beyond a gap and a peer may offer two entries for one place: the
        # one the host's receipt names goes (else a host's junk there shadows the real one)
        held = mesh.pending.get(at + 1)
        pick = next((raw for raw in options
                     if held is not None and held[1] == extend(heads[-1], raw)), options[0])
        run.append(pick)
        heads.append(extend(heads[-1], pick))
        at += 1
    upto, base = 0, len(s.log)
    for position, raw in enumerate(run):
        sender, prev = mesh.offered_by.get(base + position, (b"", b""))
        if raw != mesh.offered.get(base + position):  # the host's, beyond a gap
            try:
                env = open_envelope(raw)
            except ProtocolError:
                break
            sender, prev = env.sender, env.prev
        if sender == s.host_key and prev in heads[: position + 1]:
            # it receipts what comes before its prev, never itself: the host seals its own
            # entries against its head, but the window for a call may hold one while other
            # entries go in first, so a seat could offer it at its prev's place
            upto = max(upto, heads.index(prev))
    for count in range(len(run), upto, -1):
        held = mesh.pending.get(base + count)
        if held is not None and held[1] == heads[count]:
            return _unless_anothers_takeover(s, run[:count], held[0])
    return _unless_anothers_takeover(s, run[:upto])


def _unless_anothers_takeover(s: PlayerState, taken: list[bytes],
                              receipt: bytes = b"") -> list[bytes]:
    """``taken``, receipted by ``receipt`` (b"": by a later entry of our host's own)."""
    if not any(b"takeover" in raw for raw in taken):
        return taken
    signer = open_statement(receipt, "receipt").sender if receipt else s.host_key
    if anothers_takeover(s, taken, signer):
        s._end(ANOTHERS_TAKEOVER, s.seat_of(signer))
        return []
    return taken


def settle(s: PlayerState) -> None:
    """The receipt that came with the entry we folded last, kept if it names our head (to
    serve along with it): receipts of the host's own, one for each entry, so that a seat we
    serve takes every batch."""
    length, pending = len(s.log), s.mesh.pending
    held = pending.pop(length, None)
    for old in [count for count in pending if count < length]:
        del pending[old]
    if held is not None and s.chain is not None and held[1] == s.chain.head:
        keep_highest(s.mesh.receipts, length, held[0])


def keep_host_receipt(s: PlayerState, index: int, raw: bytes, receipt: bytes,
                      host: bytes) -> None:
    """The host's stream brings entry ``index``, our log's next: its receipt, signed by
    ``host`` (the key that answers on this connection), must name our log with it, else
    ``NotServing`` (without it we could not serve it on to a seat the host leaves behind)."""
    if s.chain is None:
        return
    refusal = receipt_refusal(receipt, host, s.table_id, index + 1, extend(s.chain.head, raw))
    if refusal is not None:
        raise NotServing(f"did not sign the place of what it sent us ({refusal})")
    if anothers_takeover(s, [raw], host):
        raise TableEnded(ANOTHERS_TAKEOVER, s.seat_of(host))
    keep_highest(s.mesh.receipts, index + 1, receipt)


ANOTHERS_TAKEOVER = ("signed its receipt of a log that holds another seat's takeover of the "
                     "table (a host never appends one: a new host appends its own)")


def anothers_takeover(s: PlayerState, taken: list[bytes], signer: bytes) -> bool:
    """Does our present host ``signer`` receipt, among ``taken``, another seat's takeover? An
    honest host never does, so it is the host putting a takeover where it likes (before or
    after entries of its own), and we name it with its receipt; a new host's takeover comes
    with the new host's receipts."""
    if signer != s.host_key:
        return False
    for raw in taken:
        if b"takeover" not in raw:  # (no envelope opened twice on the way to the fold)
            continue
        try:
            env = open_envelope(raw)
        except ProtocolError:
            continue
        if env.kind == EntryKind.TAKEOVER and env.sender != signer:
            return True
    return False


def taken_from_host(s: PlayerState, raw: bytes, now: float) -> bool:
    """``raw`` from the host's stream is an entry we already took from the mesh: skip it."""
    s.mesh.host_entry_at = now
    skip = s.mesh.skip
    if not skip or raw not in skip:
        return False
    while skip and skip.pop(0) != raw:
        pass
    return True


def entry_in(raw: bytes) -> tuple[int, bytes, bytes] | None:
    """``raw`` as an ``entry`` frame of the mesh: (index, entry, the host's receipt or b""),
    or None if it is not one."""
    try:
        value = unpack(raw)
        if not isinstance(value, dict):
            return None
        validate_control(value, ("entry",))
    except ProtocolError:
        return None
    return value["index"], value["raw"], value.get("receipt", b"")
