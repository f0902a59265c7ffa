"""The log over the mesh (protocol/SPEC.md §7, "The log from the others"): a seat the host
stops sending the log to is still served by the listening seats.

Every listening seat reads the others' signs of life (their log length and head). One whose
length stays behind ours for ``SYNC_AFTER`` s gets our entries from there, as ``entry`` frames
on the mesh, a few at a time. A seat takes such entries only as far as the host has receipted
them: up to the head that a later entry of the host's own (in the same run) names as its
``prev``, that entry included when its ``prev`` is the head right before it. The host signed
that order, so no peer can show it an order the host did not choose;
an order the host signed two ways is the host's fork. The host's own stream, when it comes, is
the same entries again: they are skipped.

The host's own stream numbers its entries too (``entry`` frames): an entry beyond our log's end
(the host left a gap, as a host that withholds entries from one seat does) is not folded out of
place; it waits in ``host_ahead`` until the gap is filled from the mesh, and it receipts what
fills it like any entry ahead.
"""

from __future__ import annotations

from ..crypto.envelope import extend, open_envelope
from ..crypto.statements import open_statement
from ..wire.codec import ProtocolError, pack, unpack
from ..wire.messages import validate_control
from .common import TableEnded
from .fold.lost import needed
from .fold.obligations import BOUNDS
from .player import PlayerState

SYNC_AFTER = 2.0  # a seat whose sign of life stays this long behind ours gets our entries
BATCH = 24  # entries sent to one seat at a time (once per sign of life)
OFFERED = 96  # entries a seat keeps ahead of its log, waiting for the host's receipt
assert BOUNDS.relay_after > SYNC_AFTER


def entry_frame(index: int, raw: bytes) -> bytes:
    return pack({"control": "entry", "index": index, "raw": raw})


def serve_laggards(s: PlayerState, now: float) -> None:
    """Our entries to each listening seat whose sign of life lags ours for ``SYNC_AFTER`` s."""
    mesh = s.mesh
    if (s.chain is None or s.game is None or s.ended or s.is_host or not s.attachment.log_read
            or not s.attachment.endpoint):
        return
    length = len(s.log)
    for key, (index, _) in list(mesh.alive.items()):
        seat = s.seat_of(key)
        endpoint = s.endpoints.get(key, "")
        if seat not in s.active or not endpoint or key == s.host_key or index >= length:
            mesh.lag_since.pop(key, None)
            continue
        since = mesh.lag_since.setdefault(key, (index, now))
        if since[0] != index:
            mesh.lag_since[key] = (index, now)
            continue
        if now - since[1] < SYNC_AFTER or now - mesh.served_at.get(key, -1e9) < BOUNDS.alive_every:
            continue
        mesh.served_at[key] = now
        s.outbox.direct_out += [(endpoint, entry_frame(i, s.log[i]))
                                for i in range(index, min(length, index + BATCH))]


def serving(s: PlayerState, now: float) -> bool:
    """A listening seat that still talks to us lags our log: we serve it (``serve_laggards``)."""
    heard = s.mesh.heard_from
    return any(now - heard.get(key, -1e9) < SYNC_AFTER + BOUNDS.relay_after
               and index < len(s.log) for key, (index, _) in s.mesh.alive.items()
               if key != s.host_key and s.seat_of(key) in s.active)


def withheld_from_others(s: PlayerState, now: float, limit: float) -> list[int]:
    """The listening seats (not the host) that still talk to us and whose signs of life have
    stayed, for more than ``limit`` s, at one length behind our log, at its head there: entries
    the host sent us and neither sent them nor receipted (so the mesh cannot serve them). [] if
    they and we are too few to make a majority: a host that withholds entries from two seats
    has each wait on the other's sign of life for good, and only the seats it serves can tell. Only
    where too few seats hold the run to serve it to them by their signs of life (``_attested``):
    else they are served, and one that still lags is not withheld from by the host."""
    mesh, length = s.mesh, len(s.log)
    lagging = []
    for key, (index, raw) in mesh.alive.items():
        seat = s.seat_of(key)
        since = mesh.lag_since.get(key)
        if (key == s.host_key or seat not in s.active or not s.endpoints.get(key)
                or since is None or since[0] != index or now - since[1] <= limit
                or now - mesh.heard_from.get(key, -1e9) > SYNC_AFTER + BOUNDS.relay_after
                or s.chain is None or not 0 < index < length
                or s.chain.position(_head_of(raw)) != index):
            continue
        lagging.append(seat)
    seats = [seat for seat in s.active if s.keys[seat] != s.host_key
             and s.endpoints.get(s.keys[seat])]  # the listening seats but the host
    attest = (len(seats) - 1) // 2 + 1  # the signs of life that serve a seat the run (_attested)
    if len(seats) - len(lagging) >= attest or len(lagging) + 1 < needed(s):
        return []  # the others can serve them; or a takeover is out of reach
    return lagging


def from_host(s: PlayerState, index: int, raw: bytes, now: float) -> bool:
    """The host's entry ``raw`` at ``index`` of its log: True if it is our log's next entry (to
    fold now). One we hold already is dropped (a different one is the host's fork: ``TableEnded``
    names it); one beyond our log's end waits for the gap to be filled. On a new connection,
    where the host sends its log again, entries we hold that it skips are no fault (a host may
    withhold what a seat has from the mesh): the ones it sends are checked."""
    s.mesh.host_entry_at = now
    at = s.attachment
    checking = at.checked < at.known
    expected = at.checked if checking else len(s.log)
    if index == expected:
        return True
    if checking and index > expected:  # sent again, it skips entries we hold: no history
        if index < at.known and raw == s.log[index]:  # of its own, so nothing to check there
            at.checked = index + 1
            return False
        if index >= at.known:  # it skipped the rest of what we hold: its new entries follow
            at.checked, checking, expected = at.known, False, len(s.log)
    if index < len(s.log) and (not checking or index < expected):  # sent twice
        if raw != s.log[index]:
            raise log_differs(s, raw, f"sent entry {index} of its log twice, two different "
                              "ways (a fork)")
        return False
    if index > expected and not checking and index < len(s.log) + OFFERED:
        s.mesh.host_ahead[index], s.mesh.ahead_of = raw, s.host_key
        return False
    raise ProtocolError(f"the host sent entry {index} where entry {expected} was due")


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
    """The host's entry at our log's end that waited for a gap to be filled, or b""."""
    ahead = _ahead(s)
    for old in [i for i in ahead if i < len(s.log)]:
        del ahead[old]
    return ahead.pop(len(s.log), b"")


def offered(s: PlayerState, index: int, raw: bytes) -> None:
    """A peer's ``entry`` frame: kept if it lies ahead of our log, within reach."""
    length = len(s.log)
    if length <= index < length + OFFERED:
        s.mesh.offered[index] = raw
    for old in [i for i in s.mesh.offered if i < length]:
        del s.mesh.offered[old]


def receipted(s: PlayerState, now: float) -> list[bytes]:
    """The run of offered entries from our log's end that the host's own entries receipt, or
    that every other listening seat signed it holds (its sign of life: that length, that head)."""
    if s.chain is None:
        return []
    run, heads, at = [], [s.chain.head], len(s.log)
    ahead = _ahead(s)
    while at in ahead or at in s.mesh.offered:
        run.append(ahead.get(at) or s.mesh.offered[at])
        heads.append(extend(heads[-1], run[-1]))
        at += 1
    upto = 0
    for position, raw in enumerate(run):
        try:
            env = open_envelope(raw)
        except ProtocolError:
            break
        if env.sender == s.host_key and env.prev in heads[: position + 1]:
            # it receipts what comes before its prev; in its place, it is its own receipt
            upto = max(upto, position + 1 if env.prev == heads[position]
                       else heads.index(env.prev))
    return run[:max(upto, _attested(s, heads, now))]


def _attested(s: PlayerState, heads: list[bytes], now: float) -> int:
    """How far into the run more than half of the other listening seats in the game (not the
    host) have signed, in their newest sign of life, that their log reaches with the same head:
    the table waits at the run's end (the host's receipt comes only after our own step). Only
    once the host has sent us no entry for ``BOUNDS.relay_after`` s. With the host dishonest, a
    coalition of at most half the table holds no such majority: it cannot show us an order."""
    if now - s.mesh.host_entry_at < BOUNDS.relay_after:
        return 0
    base, reach = len(s.log), len(heads) - 1
    others = [seat for seat in s.active if seat != s.me and s.keys[seat] != s.host_key
              and s.endpoints.get(s.keys[seat])]
    agree = []
    for seat in others:
        index, raw = s.mesh.alive.get(s.keys[seat], (-1, b""))
        if base < index <= base + reach and heads[index - base] == _head_of(raw):
            agree.append(index - base)
    needed = len(others) // 2 + 1
    return sorted(agree, reverse=True)[needed - 1] if others and len(agree) >= needed else 0


def _head_of(raw: bytes) -> bytes:
    try:
        head: bytes = open_statement(raw, "alive").data["head"]
    except ProtocolError:
        return b""
    return head


def taken_from_host(s: PlayerState, raw: bytes, now: float) -> bool:
    """``raw`` from the host's stream is an entry we already took from the mesh: skip it."""
    s.mesh.host_entry_at = now
    skip = s.mesh.skip
    if not skip or raw not in skip:
        return False
    while skip and skip.pop(0) != raw:
        pass
    return True


def entry_in(raw: bytes) -> tuple[int, bytes] | None:
    """``raw`` as an ``entry`` frame of the mesh: (index, entry), or None if it is not one."""
    try:
        value = unpack(raw)
        if not isinstance(value, dict):
            return None
        validate_control(value, ("entry",))
    except ProtocolError:
        return None
    return value["index"], value["raw"]
