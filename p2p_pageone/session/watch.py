"""A watcher's side of its connection to the host, sans-I/O (protocol/SPEC.md §7, "Watchers").

A watcher holds no seat and no secret of the table, and sends nothing but its ``watch`` (which
answers the host's challenge: it proves the key it watches with) and pings. It keeps
the public log as it comes; whoever runs it folds each entry on receipt with the audit's own
checks (``audit.live.LiveAudit``: the fold a seated peer runs, every proof checked). On a new
connection (to a new host after a takeover) the log is sent again from its start, and every
entry it holds already must be the same.
"""

from __future__ import annotations

from typing import Any

from ..crypto.identity import Identity
from ..wire.codec import FrameDecoder, ProtocolError, frame, pack, unpack
from ..wire.messages import validate_control
from .common import Refusal
from .links import answer_challenge
from .rtt import ping, pong


class Watcher:
    """Keeps the log the host sends; never sends anything but its ``watch`` and pings."""

    def __init__(self, identity: Identity, now: float, silent_after: float = 10.0,
                 heartbeat: float = 1.0) -> None:
        self.identity, self.key = identity, identity.public
        self.expect = b""  # the key that listens where we connect, if known (reconnect)
        self.introduced = False
        self.log: list[bytes] = []  # every entry, in order
        self.taken = 0  # entries handed on by ``take_entries``
        self.decoder = FrameDecoder()
        self.silent_after, self.heartbeat = silent_after, heartbeat
        self.last_seen = self._last_ping = now
        self.out: list[bytes] = []  # our watch answers the host's challenge
        self.ended = ""  # why watching stops for good: refused, another table, another log
        self.lost = ""  # why this connection is lost (another may do): silence, a close
        self.answered = False
        self.table = b""  # the table's id, from the host's ``watching``
        self.known = self.checked = 0  # on a new connection: entries sent again, compared
        self.chat: list[str] = []  # our lines the host took (if it allows them), refusals

    def _watch(self, value: dict[str, Any]) -> None:
        """Answer the host's challenge with our watch, proving our key (once a connection)."""
        if self.introduced:
            raise ProtocolError("a second challenge")
        self.introduced = True
        try:
            self.out.append(answer_challenge(value, self.identity, {"control": "watch"},
                                             self.expect))
        except ProtocolError as error:
            self.lost = f"not the table's host: {error.reason}"

    def take_entries(self) -> list[bytes]:
        """The entries come since the last call, in order: to be folded by whoever watches."""
        new, self.taken = self.log[self.taken:], len(self.log)
        return new

    def receive(self, data: bytes, now: float) -> None:
        self.last_seen = now
        try:
            for payload in self.decoder.feed(data):
                value = unpack(payload)
                if not isinstance(value, dict):
                    raise ProtocolError("a frame is a control map: the log comes as entry "
                                        "frames, each with its index")
                self._control(value, now)
        except ProtocolError as error:
            self.ended = f"the host sent malformed data ({error.reason})"

    def _control(self, value: dict[str, Any], now: float) -> None:
        """``watching`` answers our ``watch``: the log of that table follows."""
        kind = validate_control(value, ("ping", "pong", "watching", "refused", "chat",
                                        "challenge", "entry"))
        if kind == "entry":
            expected = self.checked if self.checked < self.known else len(self.log)
            if value["index"] != expected:
                raise ProtocolError(f"the host sent entry {value['index']} where entry "
                                    f"{expected} was due")
            self._entry(value["raw"], now)
        elif kind == "challenge":
            self._watch(value)
        elif kind == "ping" and "n" in value:
            self.out.append(pong(value["n"]))
        elif kind == "watching":
            if self.table and value["table"] != self.table:
                self.ended = "the host answered for another table"
            self.table, self.answered = value["table"], True
        elif kind == "chat" and value.get("from") == self.identity.public:  # ours, taken
            self.chat.append(f"you (watching): {value['text']}")
        elif kind == "refused" and self.answered:  # our chat line, not our watching
            self.chat.append(f"not said: {value['reason']}")
        elif kind == "refused" and Refusal.parse(value["code"]) is Refusal.BUSY:
            self.lost = "the table is busy with connections: trying again"
        elif kind == "refused":
            self.ended = f"the host would not let us watch: {value['reason']}"

    def _entry(self, raw: bytes, now: float) -> None:
        if self.checked < self.known:  # a new connection: the log again, from its start
            if raw != self.log[self.checked]:
                self.ended = ("the host sent on our new connection a log that differs from the "
                              "one we had (a fork, or another table): watching stops here")
            self.checked += 1
            return
        self.log.append(raw)

    def tick(self, now: float) -> None:
        if now - self.last_seen > self.silent_after and not self.lost:
            self.lost = (f"the host sent nothing for {self.silent_after:.0f} s: it, or the "
                         "network between us, is down")
        if now - self._last_ping >= self.heartbeat and self.introduced:
            self._last_ping = now
            self.out.append(ping(None))

    def next_wake(self, now: float) -> float:
        return self._last_ping + self.heartbeat

    def reconnect(self, now: float, expect: bytes = b"") -> None:
        """A new connection (the host's successor, ``expect`` if known): it sends the log again
        from its start."""
        self.known, self.checked = len(self.log), 0
        self.answered, self.lost, self.introduced, self.expect = False, "", False, expect
        self.decoder = FrameDecoder()
        self.last_seen = self._last_ping = now
        self.out.clear()

    def say(self, text: str) -> None:
        """A line to the table, if its host takes chat from watchers (never in the log)."""
        self.out.append(frame(pack({"control": "chat", "text": text[:200]})))

    def take_chat(self) -> list[str]:
        said, self.chat = self.chat, []
        return said

    def take_out(self) -> list[bytes]:
        out, self.out = self.out, []
        return out
