"""A host's door (protocol/SPEC.md §7, "Strangers and floods"): every new connection is sent a
challenge, and holds nothing until its intro (or watch) proves the key it names. Unproven
connections are bounded per source address and in all; one that proved a seat in the running
game is never made to give way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..crypto.kdf import label, tagged_hash
from .common import BUSY
from .links import (
    MAKE_ROOM_AFTER,
    MAX_UNPROVEN,
    MAX_UNSEATED,
    NONCE,
    PROVE_WITHIN,
    UNSEATED_FRAME,
    Link,
    challenge,
    claim_refusal,
    refusal,
)
from .peer import PeerSession
from .watching import WatcherDesk

REPLACED = ("another pageone of this identity connected to the table since: each user sits "
            "once")
CLAIMS = ("intro", "watch")  # what claims a key at a host (a joiner's standby takes direct)


def _counted(listener: bytes) -> Callable[[int], bytes]:
    """Deterministic nonces for a sequencer run in memory (tests, ``pageone play``)."""
    count = iter(range(2**62))

    def nonce(size: int) -> bytes:
        return tagged_hash(label("memory-nonce"), listener, next(count).to_bytes(8, "big"))[:size]

    return nonce


class Doors(WatcherDesk):
    """New connections: the challenge, the per-address bound, the proof."""

    def __init__(self, host: PeerSession, now: float, *args: Any,
                 random_bytes: Callable[[int], bytes] | None = None, **kwargs: Any) -> None:
        # The challenges' nonces: the net layer passes os.urandom; in memory, a counter's hash
        # (deterministic, and never a listener's only defence off this machine).
        self.random_bytes = random_bytes or _counted(host.identity.public)
        super().__init__(host, now, *args, **kwargs)

    def door(self, source: str, now: float, opening: int = 0) -> str:
        """What to do with a new connection from ``source`` (``opening``: more from there that
        the net layer accepted and has not yet connected): "take" it, counting toward the
        accept rate; "replace", the oldest unproven connection of that address gives way to it,
        not counted (the number of connections does not grow); or "close" it at accept, before
        anything is read or sent, not counted: its address holds ``MAX_UNPROVEN`` that have not
        had ``PROVE_WITHIN`` to prove a key yet."""
        unproven = self._unproven(source)
        if len(unproven) + opening < MAX_UNPROVEN:
            return "take"
        if opening or all(now - self.links[c].opened < PROVE_WITHIN for c in unproven):
            return "close"
        return "replace"

    def read_size(self, conn: int) -> int:
        """How much the net layer reads at a time from ``conn``: a frame's worth until it has
        proven a key, so a flood of tiny frames costs little before it is cut off."""
        link = self.links.get(conn)
        return 65536 if link is None or link.proven or link.key else 2 * UNSEATED_FRAME

    def _unproven(self, source: str) -> list[int]:
        return [c for c, link in self.links.items() if source and link.source == source
                and not link.proven]

    def connect(self, conn: int, now: float, source: str = "") -> None:
        """A new connection: it is sent the challenge, and nothing else until it proves a key
        (from ``source``, its address: at most ``MAX_UNPROVEN`` unproven at once, the oldest
        gives way)."""
        unproven = self._unproven(source)
        if len(unproven) >= MAX_UNPROVEN:
            first = min(unproven, key=lambda c: self.links[c].opened)
            self.out.append((first, refusal(-1, BUSY)))
            self._drop(first, "did not prove its key in time", now)
        host = self.host
        waiting = [c for c, link in self.links.items() if not link.key and not link.watcher]
        if len(waiting) >= MAX_UNSEATED:
            # A connection that proved it holds a seat in the game is never made to give way
            # (a flood of strangers must not keep a player from their seat).
            others = [c for c in waiting if not self.links[c].keeps]
            oldest = min(others, key=lambda c: self.links[c].opened) if others else None
            if oldest is None or (host.game is None
                                  and now - self.links[oldest].opened < MAKE_ROOM_AFTER):
                self._turn_away(conn, BUSY)
                return
            self.out.append((oldest, refusal(-1, BUSY)))  # it had its chance to say hello
            self._drop(oldest, "was not seated in time", now)
        # It is sent the challenge, and nothing of the log until its hello (or its back to a
        # seat kept for it) is in the log.
        nonce = self.random_bytes(NONCE)
        self.links[conn] = Link(now, now, nonce=nonce, source=source)
        self.out.append((conn, challenge(nonce, host.identity.public)))

    def _proven(self, conn: int, link: Link, value: dict[str, Any], now: float) -> bool:
        """The intro or watch proves its key against our challenge (True), or the connection is
        refused, saying why. A new proven connection of a key replaces an unseated older one."""
        if link.proven or link.key:
            return True  # a second one: _welcome or _watch says it is malformed
        reason = claim_refusal(value, link.nonce, self.host.identity.public)
        if reason is not None:
            self._turn_away(conn, reason)
            return False
        link.proven = key = value["from"]
        watch = value["control"] == "watch"
        for other, old in list(self.links.items()):  # the same key, for the same use
            if other != conn and old.proven == key and not old.key and old.watcher == watch:
                self.out.append((other, refusal(-1, REPLACED)))
                self._drop(other, "was replaced by a newer connection of its key", now)
        return True
