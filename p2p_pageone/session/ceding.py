"""A successor next in line that cedes (protocol/SPEC.md §7, "Failover"), sans-I/O: a ``lost``
statement counts only for the successor it names, so the seat next in line that cannot gather a
majority itself gives its own to the successor after it once that one's statements and its own
make one, and from then on never takes the table over from that host: a seat that signed for a
successor after it and took over anyway is named when two logs part at the two takeovers."""

from __future__ import annotations

import contextlib

from ..wire.codec import ProtocolError
from .common import parse_endpoint
from .fold.lost import needed, open_lost
from .peer import PeerSession
from .route import Route


def statement_for(session: PeerSession, route: Route, successor: bytes, lost: bytes) -> bytes:
    """Our statement ``lost`` signed for ``successor``; b"" (an intro alone) for one after us
    in line while we may still take over ourselves."""
    if not lost or not successor:
        return b""
    if session.seat_of(successor) > session.me and route.ceded != session.host_key:
        return b""
    return session.lost_for(successor)


def cede_when_due(session: PeerSession, route: Route, holds: dict[bytes, list[bytes]],
                  listening: bool) -> None:
    """Next in line with no listener to take over with, or without a majority while a
    successor after us holds statements (``holds``, by its key) that make one with ours: we
    cede to the successors after us (``route.ceded``)."""
    s = session
    if (route.ceded == s.host_key or s.identity.public not in s.attachment.lost
            or route.next_standing(s) != s.me):
        return
    if not listening or (not s.lost_majority() and (
            out_of_reach(s, route) or any(majority_with_ours(s, key, held)
                                          for key, held in holds.items()))):
        route.ceded = s.host_key


def out_of_reach(session: PeerSession, route: Route) -> bool:
    """The seats that may still hand us their statement (every listening seat but the host's
    whose listener did not refuse us or stay unreachable in this drop, and us) are fewer than a
    majority: we can never take over, so those after us get our statement at once."""
    s = session
    reachable = 1
    for seat in s.successors():
        endpoint = parse_endpoint(s.endpoints[s.keys[seat]])
        failed = route.failed.get(endpoint, "") if endpoint is not None else "unreachable"
        if seat != s.me and failed not in ("refused", "unreachable"):
            reachable += 1
    return reachable < needed(s)


def majority_with_ours(session: PeerSession, successor: bytes, held: list[bytes]) -> bool:
    """The statements ``held`` that ``successor`` (after us in line) said it holds, each
    naming it, and ours make a majority of the listening seats."""
    s = session
    if not successor or s.seat_of(successor) <= s.me:
        return False
    signers = {s.identity.public}
    for raw in held:
        with contextlib.suppress(ProtocolError):
            signers.add(open_lost(s, raw, successor).sender)
    return len(signers) >= needed(s)


def yielded(session: PeerSession) -> set[int]:
    """The successors before us in line whose own statement we hold, naming us: they ceded."""
    s = session
    seats = set()
    for key, raw in s.attachment.lost.items():
        with contextlib.suppress(ProtocolError):
            if key != s.identity.public and 0 <= s.seat_of(key) < s.me and (
                    open_lost(s, raw, s.identity.public).sender == key):
                seats.add(s.seat_of(key))
    return seats
