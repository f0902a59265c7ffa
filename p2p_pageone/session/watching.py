"""Watchers at the host (protocol/SPEC.md §7, "Watchers"): a connection that says ``watch``
instead of ``intro`` gets the table's log from its start and every entry after, and nothing
else: no seat, no vote, nothing addressed to a seat (keys sent directly go peer to peer, never
through the host). It may ping; anything else it sends drops it, and so does a full send buffer
(net/runner.py), so a slow or dead watcher never slows the table.
"""

from __future__ import annotations

from ..crypto.identity import fingerprint
from ..wire.codec import ProtocolError, frame, pack
from .common import Event
from .kept_seats import SeatKeeper
from .links import CHAT_LINES, CHAT_WINDOW, Link, refusal
from .logsync import entry_frame

WATCH_FRAME = 512  # a watcher sends pings, pongs and (if allowed) a chat line


class WatcherDesk(SeatKeeper):
    """Takes watchers, up to ``watchers`` at once."""

    def watching(self) -> int:
        return sum(1 for link in self.links.values() if link.watcher)

    def _watcher_chat(self, conn: int, link: Link, text: str, now: float) -> None:
        """A watcher's line, if the host allows it: shown on the host's screen (the link proved
        the watcher's key) and sent back to the watcher as taken. No one else is shown it: a
        relayed line is no one's signed word (never in the log either)."""
        if not link.watcher or not link.follows:
            raise ProtocolError("only a watcher sends chat as a control frame")
        if not self.watcher_chat:
            reason = "this table does not take chat from watchers (the host allows it with " \
                     "--watcher-chat)"
        elif not link.chat_allowed(now):
            reason = (f"chat is limited to {CHAT_LINES} lines every {CHAT_WINDOW:.0f} s; wait a "
                      "moment and say it again")
        else:
            said = frame(pack({"control": "chat", "text": text, "from": link.watcher_key}))
            self.out.append((conn, said))
            self.host.events.append(Event("say", f"{fingerprint(link.watcher_key)} (watching): "
                                          f"{text}"))
            return
        self.out.append((conn, refusal(-1, reason)))

    def _watch(self, conn: int, link: Link, key: bytes = b"") -> None:
        if link.key or link.introduced or self.host.chain is None:
            raise ProtocolError("a watch comes once, first")
        if self.watchers <= 0:
            self._turn_away(conn, "this table takes no watchers")
            return
        if self.watching() >= self.watchers:
            self._turn_away(conn, f"this table has {self.watchers} watchers, as many as it "
                            "takes: try again later")
            return
        link.introduced = link.watcher = True
        link.watcher_key = key
        link.decoder.max_frame = WATCH_FRAME
        if self.gather_until < 0:
            self._show_log(conn)
        # else a new host still gathers the log: the watcher gets it once the takeover is in

    def _show_log(self, conn: int) -> None:
        self.links[conn].follows = True
        self.out.append((conn, frame(pack({"control": "watching", "table": self.host.table_id,
                                           "index": len(self.log)}))))
        self.out += [(conn, frame(entry_frame(i, raw))) for i, raw in enumerate(self.log)]

    def _watchers_in(self) -> None:
        """The takeover is in: the watchers that came while the log was gathered get it now."""
        for conn, link in self.links.items():
            if link.watcher and not link.follows:
                self._show_log(conn)

    def _turn_away(self, conn: int, reason: str) -> None:
        """Refuse a connection that is not seated, and forget it at once."""
        self.out.append((conn, refusal(-1, reason)))
        self.to_close.append(conn)
        self.links.pop(conn, None)
