"""Where a joiner connects next when its host is lost (protocol/SPEC.md §7, "Failover"): a pure
function of the public table and what the joiner's own connections told it."""

from __future__ import annotations

from .common import parse_endpoint
from .fold.state import PublicState

Address = tuple[str, int]


class Route:
    """The host, and while it cannot be reached, by turns the host again and the first of the
    successors that has not failed us; or nobody (None) once every successor before us has
    failed and the host is gone: then we take over."""

    def __init__(self, first: Address) -> None:
        self.first = first
        self.failed: dict[Address, str] = {}  # address -> "refused" or "unreachable"
        self.last: Address | None = None

    def note(self, target: Address, outcome: str) -> None:
        """How a connection to ``target`` ended: "refused", "unreachable", or "" (it worked)."""
        if outcome:
            self.failed[target] = outcome
        else:
            self.failed.pop(target, None)

    def host(self, s: PublicState) -> Address:
        """Where the table's host listens: the first address, or a new host's endpoint."""
        return parse_endpoint(s.endpoints.get(s.host_key, "")) or self.first

    def next(self, s: PublicState, listening: bool, witnessed: bool) -> Address | None:
        """``listening``: we have a listener to take the table over with; ``witnessed``: a peer
        told us the host is gone too."""
        current = self.host(s)
        host = self.failed.get(current, "")
        if not host or self.last != current or s.game is None or s.me not in s.active:
            self.last = current
            return current  # the host first, and again between two tries elsewhere
        for seat in s.successors():
            if seat == s.me:
                if (host == "refused" or witnessed) and listening:
                    return None
                break
            endpoint = parse_endpoint(s.endpoints[s.keys[seat]])
            if endpoint is not None and endpoint not in self.failed:
                self.last = endpoint  # there, we are its witness
                return endpoint
        self.last = current
        return current
