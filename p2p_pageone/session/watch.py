"""A watcher's side of its connection to the host, sans-I/O (protocol/SPEC.md §7, "Watchers").

A watcher holds no seat and no secret: it folds the public log as it comes with the same code a
seated peer runs (``fold.table.TableState``: every signature, chain link, deck proof, key and
public move checked on receipt), so a check that fails is shown at once, naming whom the fold
names, as the audit would. On a new connection (to a new host after a takeover) the log is sent
again from its start, and every entry it holds already must be the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..wire.codec import FrameDecoder, ProtocolError, frame, pack, unpack
from ..wire.messages import validate_control
from .common import Event
from .fold.table import FOLD_ERRORS, TableState
from .rtt import ping, pong


@dataclass(frozen=True)
class LiveFault:
    """The first entry the fold refused: where, whom it names (-1: nobody) and why."""

    position: int
    seat: int
    who: str
    reason: str


class Watcher:
    """Folds the log the host sends; never sends anything but its ``watch`` and pings."""

    def __init__(self, key: bytes, now: float, silent_after: float = 10.0,
                 heartbeat: float = 1.0) -> None:
        self.key = key
        self.table = TableState()  # no own key: it sees no seat's cards
        self.decoder = FrameDecoder()
        self.silent_after, self.heartbeat = silent_after, heartbeat
        self.last_seen = self._last_ping = now
        self.out: list[bytes] = [self._watch()]
        self.events: list[Event] = []
        self.fault: LiveFault | None = None
        self.ended = ""  # why the host would not let us watch, or stopped talking
        self.answered = False
        self.known = self.checked = 0  # on a new connection: entries sent again, compared
        self.received: list[Any] = []  # every frame as decoded, for the tests' scrutiny

    def _watch(self) -> bytes:
        return frame(pack({"control": "watch", "from": self.key}))

    @property
    def finished(self) -> bool:
        return self.table.game_over or self.fault is not None or bool(self.ended)

    def receive(self, data: bytes, now: float) -> None:
        self.last_seen = now
        try:
            for payload in self.decoder.feed(data):
                value = unpack(payload)
                self.received.append(value)
                if isinstance(value, list):
                    self._entry(payload, now)
                elif isinstance(value, dict):
                    self._control(value, now)
                else:
                    raise ProtocolError("a frame is an envelope or a control map")
        except ProtocolError as error:
            self.ended = f"the host sent malformed data ({error.reason})"

    def _control(self, value: dict[str, Any], now: float) -> None:
        kind = validate_control(value, ("ping", "pong", "watching", "refused"))
        if kind == "ping" and "n" in value:
            self.out.append(pong(value["n"]))
        elif kind == "watching":
            table = self.table.table_id
            if table and value["table"] != table:
                self.ended = "the host answered for another table"
            self.answered = True
        elif kind == "refused":
            self.ended = f"the host would not let us watch: {value['reason']}"

    def _entry(self, raw: bytes, now: float) -> None:
        table = self.table
        if self.checked < self.known:  # a new connection: the log again, from its start
            if raw != table.log[self.checked]:
                self.ended = ("the host sent on our new connection a log that differs from the "
                              "one we had (a fork, or another table): watching stops here")
            self.checked += 1
            return
        if self.fault is not None:  # folded no further, but kept: the audit reads it all
            table.log.append(raw)
            return
        try:
            self.events += table.apply(raw, None, now)
        except FOLD_ERRORS as error:
            seat, reason = table.blame(error)
            position = len(table.log) - 1
            self.fault = LiveFault(position, seat, table.who(seat), reason)
            named = f"{table.who(seat)} " if seat >= 0 else ""
            self.events.append(Event("fault", f"FAIL at entry {position}: {named}{reason}",
                                     {"position": position, "seat": seat}))

    def tick(self, now: float) -> None:
        if now - self.last_seen > self.silent_after and not self.finished:
            self.ended = (f"the host sent nothing for {self.silent_after:.0f} s: it, or the "
                          "network between us, is down")
        if now - self._last_ping >= self.heartbeat:
            self._last_ping = now
            self.out.append(ping(None))

    def next_wake(self, now: float) -> float:
        return self._last_ping + self.heartbeat

    def reconnect(self, now: float) -> None:
        """A new connection (the host's successor): it sends the log again from its start."""
        self.known, self.checked = len(self.table.log), 0
        self.answered, self.ended = False, ""
        self.decoder = FrameDecoder()
        self.last_seen = self._last_ping = now
        self.out.append(self._watch())

    def take_out(self) -> list[bytes]:
        out, self.out = self.out, []
        return out

    def take_events(self) -> list[Event]:
        out, self.events = self.events, []
        return out
