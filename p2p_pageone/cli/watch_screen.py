"""The table screen for a watcher: the table as everyone sees it (every hand hidden), the story,
what the referee says so far, and an input line (``quit``, ``help``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from prompt_toolkit.completion import WordCompleter

from ..audit.live import LiveAudit
from ..session.peer import PeerSession
from .render import Line
from .tablescreen import TableScreen
from .tableview import table_area
from .wrap import wrap

HELP = ("you are watching: every hand is hidden, every entry of the log is checked as it comes "
        "(signatures, the chain, every deck proof and key, every move the public record shows). "
        "Type say TEXT to chat, if the host lets watchers chat; quit to stop watching (the log "
        "so far is audited as you leave).")


class WatchScreen:
    def __init__(self, live: LiveAudit, stop: Callable[[], None],
                 say: Callable[[str], None] | None = None) -> None:
        self.live, self.stop, self.say = live, stop, say
        self.screen = TableScreen(self._table, self._status, lambda: "watch> ",
                                  WordCompleter(["quit", "help", "say"]), self._line, stop)

    def _table(self, width: int) -> list[Line]:
        # The table area reads only the public fold for a viewer with no seat.
        return table_area(cast(PeerSession, self.live.state), width)

    def _status(self, width: int) -> list[Line]:
        live = self.live
        if live.audit.fault is not None:
            return wrap([[("class:owed", live.fault_text())]], width, indent="  ")
        entries = len(live.log)
        done = "the game is over: " if live.state.game_over else ""
        return wrap([[("class:hint", f"{done}{entries} entr{'y' if entries == 1 else 'ies'} "
                       "checked, every one holds"),
                      ("", " — watching, every hand hidden (type quit to stop)")]], width,
                    indent="  ")

    def _line(self, text: str) -> None:
        command = text.strip().lower()
        if command in ("quit", "q", "exit"):
            self.stop()
        elif command.startswith("say ") and self.say is not None:
            self.say(text.strip()[4:].strip())
        elif command:
            self.screen.text(HELP if command == "help" else
                             f"{text.strip()!r}: a watcher only watches (type help or quit)")
