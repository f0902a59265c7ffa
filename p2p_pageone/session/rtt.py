"""A link's round trip, measured above TCP, and the silence it excuses, sans-I/O
(protocol/SPEC.md §7, "Timeouts and leavers").

Each side pings the other every second; one ping at a time asks for an echo (it carries ``n``,
and the other side answers at once with a ``pong`` of the same ``n``). The time from sending it
to reading the echo is a sample of the link's round trip as the table lives it: TCP's
retransmissions included, since nothing behind a lost segment arrives before it. The samples
are smoothed as TCP smooths its own (RFC 6298: SRTT and RTTVAR), and a link is given up as
silent only after

    max(floor, min(SILENT_CAP, SILENT_FACTOR × (SRTT + 4·RTTVAR)))

where ``floor`` is the configured ``--silent-after`` (default 10 s). Why ``SILENT_FACTOR`` 32:
SRTT + 4·RTTVAR is TCP's own retransmission timeout (RTO) formula, and measured above TCP it is
at least the RTO TCP runs with (TCP leaves retransmitted segments out of its estimate; ours
includes them). A segment lost k times running keeps everything behind it waiting
RTO·(2^k − 1), the back-off doubling each time; at 30 % loss that is one segment in 120 for
k = 4 (15 RTO) and one in 400 for k = 5 (31 RTO), and a game sends thousands. 32 covers five
back-offs in a row and the time between two pings. The samples do not remember long (one a
second, RFC 6298's gains), so a factor that covers only what the latest samples show drops live
links: scripts/silence_sim.py plays whole tables over the proxy's loss model, and at 50 ms and
30 % loss the fixed 10 s dropped a live seat in 19 games of 24, a factor of 16 in 3, and 32 in
none for silence (2 timed a step out when a burst was lost eight times running or more,
a wait of 51 s or more). At 30 % loss the threshold so sits at the cap; at 10 %, near 20 s.
A LAN link keeps the floor (32 round trips of a few ms); one of 300 ms one way that loses
nothing waits about 20 s (32 × 0.6 s); the cap of 60 s keeps a dead peer noticed within a
minute however lossy its link looked.
"""

from __future__ import annotations

from ..wire.codec import frame, pack

ALPHA, BETA = 1 / 8, 1 / 4  # RFC 6298's gains for SRTT and RTTVAR
SILENT_FACTOR = 32.0  # silences of five back-offs in a row pass (above)
SILENT_CAP = 60.0  # the adaptation never waits longer than this on a silent link
PING = frame(pack({"control": "ping"}))


def ping(n: int | None) -> bytes:
    """A framed ping; with ``n``, one that asks for an echo."""
    return PING if n is None else frame(pack({"control": "ping", "n": n}))


def pong(n: int) -> bytes:
    return frame(pack({"control": "pong", "n": n}))


class RoundTrip:
    """One link's smoothed round trip and the one echo it waits for."""

    def __init__(self) -> None:
        self.srtt: float | None = None  # no sample yet: the floor alone decides
        self.rttvar = 0.0
        self.samples = 0
        self._probe: tuple[int, float] | None = None  # (n, sent at) of the unanswered ping
        self._next = 0

    def probe(self, now: float) -> int | None:
        """The ``n`` for the next ping to carry, or None while an echo is awaited."""
        if self._probe is not None:
            return None
        n, self._next = self._next, (self._next + 1) % 2**32
        self._probe = (n, now)
        return n

    def echoed(self, n: int, now: float) -> None:
        """A ``pong``: a sample if it answers the ping awaited (any other is ignored)."""
        if self._probe is not None and self._probe[0] == n:
            self.sample(now - self._probe[1])
            self._probe = None

    def forget_probe(self) -> None:
        """This process stalled: the echo awaited would time the stall, not the link."""
        self._probe = None

    def sample(self, rtt: float) -> None:
        rtt = max(0.0, rtt)
        if self.srtt is None:
            self.srtt, self.rttvar = rtt, rtt / 2
        else:
            self.rttvar = (1 - BETA) * self.rttvar + BETA * abs(self.srtt - rtt)
            self.srtt = (1 - ALPHA) * self.srtt + ALPHA * rtt
        self.samples += 1

    def timeout(self) -> float:
        """SRTT + 4·RTTVAR: the link's retransmission timeout as TCP would reckon it."""
        return 0.0 if self.srtt is None else self.srtt + 4 * self.rttvar

    def silent_after(self, floor: float) -> float:
        """How long this link may be silent before it is given up: never under ``floor``, and
        the adaptation never beyond ``SILENT_CAP`` (a floor set higher stands)."""
        return max(floor, min(SILENT_CAP, SILENT_FACTOR * self.timeout()))
