"""A route for in-memory tables where the host cuts one seat's stream: once ``on``, the log
entries it sends that seat are dropped; pings and everything else go on (the flood tests)."""

from __future__ import annotations

from p2p_pageone.byzantine.frames import without
from p2p_pageone.byzantine.world import Frame

HOST = 0


class StreamCut:
    def __init__(self, victim: int) -> None:
        self.victim, self.on = victim, False

    def __call__(self, fr: Frame, now: float) -> list[tuple[float, bytes]]:
        if self.on and fr.src == HOST and fr.channel == "down" and fr.dst == self.victim:
            data = without(fr.data, "down", "entry:")
            return [(0.0, data)] if data else []
        return [(0.0, fr.data)]
