"""Whom a joiner reached while it tried to get back to its table after a drop (protocol/SPEC.md
§7, "This machine's own faults"): a pure record of the drop's connection attempts, so that a
joiner whose own link is down is told so, and blames no one."""

from __future__ import annotations

Address = tuple[str, int]


def nobody_reached(seconds: float) -> str:
    """What a joiner that reached nobody for ``seconds`` is told (exit 5)."""
    return (f"could not reach the host or any other player for {seconds:.0f} s: this machine's "
            "network is most likely down (check its cable, Wi-Fi or firewall). This is a "
            "problem of this machine; nobody is blamed")


class DropReach:
    """One drop's connection attempts. Every one went unanswered, to the host and to at least
    one other seat: this machine's network is the likely cause, not the host, whose successor
    would have answered. Only the host tried is no such evidence (a host that is down looks
    the same), so the table's usual end is told then. A refused connection is an answer: the
    other machine said that nothing listens there, over this machine's network."""

    def __init__(self) -> None:
        self.tried: set[Address] = set()
        self.answered = False

    def note(self, target: Address, outcome: str) -> None:
        """How an attempt at ``target`` ended: "refused", "unreachable", or "" (it connected)."""
        self.tried.add(target)
        if outcome in ("", "refused"):
            self.answered = True

    def clear(self) -> None:
        """A connection got back to the table: the next drop starts afresh."""
        self.tried.clear()
        self.answered = False

    def nobody(self) -> bool:
        """Every attempt of this drop failed, at two places or more."""
        return not self.answered and len(self.tried) >= 2
