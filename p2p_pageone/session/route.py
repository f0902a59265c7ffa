"""Where a joiner connects next when its host is lost (protocol/SPEC.md §7, "Failover"): a pure
function of the public table and what the joiner's own connections told it."""

from __future__ import annotations

from .common import parse_endpoint
from .fold.state import PublicState

Address = tuple[str, int]


class Route:
    """The host, and while it cannot be reached, by turns the host again and the first of the
    successors that has not failed us; or nobody (None) once we are the successor and hold
    ``lost`` statements from a majority of the listening seats (or the host handed the table
    over): then we take over."""

    def __init__(self, first: Address) -> None:
        self.first = first
        # address -> "refused", "unreachable" or "unanswered" (it took the connection and said
        # nothing: a stopped pageone's machine does that), or "idle" (a successor that took our
        # lost statement long ago and has not taken the table over)
        self.failed: dict[Address, str] = {}
        self.last: Address | None = None
        # the host at which we, next in line, gave our lost statement to the successor after
        # us: we never take the table over from that host (two takeovers would name us)
        self.ceded = b""
        # the successors before us in line that gave us their own statement, naming us: they
        # ceded, and never take over from this host (kept by ``Reattach``)
        self.yielded: set[int] = set()
        self.turn = 0  # which of the seats after us is tried next

    def note(self, target: Address, outcome: str) -> None:
        """How a connection to ``target`` ended: a failure, or "" (it worked)."""
        if outcome:
            self.failed[target] = outcome
        else:
            self.failed.pop(target, None)

    def host(self, s: PublicState) -> Address:
        """Where the table's host listens: the first address, or a new host's endpoint."""
        return parse_endpoint(s.endpoints.get(s.host_key, "")) or self.first

    def next(self, s: PublicState, listening: bool, majority: bool) -> Address | None:
        """``listening``: we have a listener to take the table over with; ``majority``: a
        majority of the listening seats lost the host (their signed statements), or the host
        handed the table over. A refused or dead path alone is never enough."""
        current = self.host(s)
        host = self.failed.get(current, "")
        handed = s.handed_over >= 0
        majority = majority and self.ceded != s.host_key
        if (host and majority and listening and s.game is not None and s.me in s.active
                and self.next_standing(s) == s.me):
            return None  # the host failed us too: no other try of it first
        if (not (host or handed) or (self.last != current and not handed) or s.game is None
                or s.me not in s.active):
            self.last = current
            return current  # the host first, and again between two tries elsewhere
        after: list[Address] = []  # past us: the seats after us, each in turn (one that never
        for seat in s.successors():  # fails us must not hide what the others hold)
            if seat == s.me:
                if majority and listening:
                    return None
                continue
            if seat in self.yielded:
                continue
            endpoint = parse_endpoint(s.endpoints[s.keys[seat]])
            if endpoint is not None and endpoint not in self.failed:
                if seat < s.me:
                    self.last = endpoint  # there, our lost statement, then our intro
                    return endpoint
                after.append(endpoint)
        self.last = after[self.turn % len(after)] if after else current
        self.turn += 1
        return self.last

    def next_standing(self, s: PublicState) -> int:
        """The first successor that is us (unless we ceded) or one that has not failed us (-1:
        none)."""
        for seat in s.successors():
            endpoint = parse_endpoint(s.endpoints[s.keys[seat]])
            if seat == s.me and self.ceded == s.host_key:
                continue
            if seat in self.yielded:
                continue
            if seat == s.me or (endpoint is not None and endpoint not in self.failed):
                return seat
        return -1

    def nobody_left(self, s: PublicState) -> bool:
        """The host and every other seat that listens refused us (nothing listens there any
        more): the table is gone, over or moved on without us."""
        others = [parse_endpoint(s.endpoints[s.keys[seat]]) for seat in s.successors()
                  if seat != s.me]
        return (self.failed.get(self.host(s)) == "refused" and bool(others)
                and all(self.failed.get(e) == "refused" for e in others if e is not None))

