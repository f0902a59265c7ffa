"""`pageone watch`: follow a table live as its referee (protocol/SPEC.md §7, "Watchers").

The watcher gets the table's public log and checks every entry as it comes with the audit's own
checks (the fold every seated peer runs, each proof on receipt); a check that fails is shown at
once with the audit's verdict and evidence. At the end of the game it audits its own copy of the
log and prints the verdict. ``--json``: one JSON object per entry.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, cast

from ..audit.live import LiveAudit
from ..audit.report import text_lines
from ..crypto.envelope import open_envelope
from ..net.discovery import TableAdvert, browse
from ..net.logwriter import LocalFault, LogWriter
from ..net.watching import Address, run_watcher
from ..session.common import Event, parse_endpoint
from ..session.peer import PeerSession
from ..session.watch import Watcher
from .audit_cmd import exit_code
from .identity_store import data_dir
from .join_cmd import parse_connect
from .narrator import Narrator
from .playing import EXIT_ENDED, EXIT_FILES
from .render import Line
from .screen import Screen
from .table_cmds import Refusal, _run, identity, log_place
from .watch_screen import WatchScreen
from .wrap import complain, labelled, printed


def add_watch(sub: Any) -> None:
    watch = sub.add_parser("watch", help="follow a table live as its referee (no seat); it "
                           "ends with the game or as soon as the table closes, then audits")
    watch.add_argument("table", nargs="?", default="",
                       help="the table's name or its host's, any case (default: the one table "
                       "that takes watchers)")
    watch.add_argument("--connect", default="", metavar="HOST:PORT",
                       help="skip discovery and watch the table at this address")
    watch.add_argument("--log", default="", help="write the table's log here (a new file)")
    watch.add_argument("--json", action="store_true",
                       help="one JSON object per entry (kind, seat, what it did, the check)")
    watch.add_argument("--plain", action="store_true", help="line-by-line narration instead of "
                       "the table screen (as when output is piped; for screen readers)")
    watch.add_argument("--interface", default="", help="an address of this machine to browse on")
    watch.add_argument("--wait", type=float, default=10.0, metavar="S",
                       help="seconds to look for a table (default 10)")
    watch.set_defaults(run=lambda args: _run(_watch(args), "watch"))


class Referee:
    """Folds what the watcher receives and tells it: narration, or JSON per entry."""

    def __init__(self, as_json: bool, log: LogWriter) -> None:
        self.live, self.as_json, self.log = LiveAudit(), as_json, log
        self.stopped = False  # the person watching typed quit
        self.told_closed = False
        self.watcher: Watcher | None = None
        self.sink: Callable[[list[Line]], None] = self._print
        # The narrator reads only the public fold when it gives no prompts (no seat of ours).
        self.narrator = Narrator(cast(PeerSession, self.live.state), lambda lines: self.sink(lines),
                                 symbols=sys.stdout.isatty(), prompts=False)

    def _print(self, lines: list[Line]) -> None:
        for line in lines:
            print("".join(text for _, text in line), flush=True)

    def entries(self, new: list[bytes]) -> None:
        said = self.watcher.take_chat() if self.watcher is not None else []
        if said and not self.as_json:
            self.sink([[("", f"  {line}")] for line in said])
        for raw in new:
            position = len(self.live.log)
            events = self.live.add(raw)
            if self.as_json:
                print(json.dumps(self._entry(position, raw, events)), flush=True)
            else:
                self.narrator.show(events)
                self._tell_closed()
        try:
            self.log.sync(self.live)
        except LocalFault as fault:
            raise Refusal(str(fault), EXIT_FILES) from None

    def _tell_closed(self) -> None:
        """The table's early end, said once as the players read it (the host closed it, or
        why else it ended)."""
        early = self.live.audit.early
        if early is None or not early.table_closed or self.told_closed:
            return
        self.told_closed = True
        state = self.live.state
        name = state.names[early.seat] if 0 <= early.seat < len(state.names) else ""
        host = bool(name) and early.seat == state.seat_of(state.host_key)
        who = f"the host, {name}, " if host else f"{name} " if name else ""
        self.sink([[("bold", f"the table ended: {who}{early.reason}")]])

    def _entry(self, position: int, raw: bytes, events: list[Event]) -> dict[str, Any]:
        env = open_envelope(raw)
        state, fault = self.live.state, self.live.audit.fault
        failed = fault is not None and fault.entry <= position
        return {"entry": position, "kind": env.kind.value, "seat": state.seat_of(env.sender),
                "effect": [e.text for e in events if e.text and e.kind != "fault"],
                "engine": [list(map(str, e.data["event"])) for e in events if e.kind == "engine"],
                "check": self.live.fault_text() if failed else "ok"}

    def finished(self) -> bool:
        return self.live.state.game_over or self.live.stopped or self.stopped or bool(
            self.closed())

    def closed(self) -> str:
        """Why the table ended before its game's end, once the log says so ("": it did not):
        nothing more comes, so the watcher stops at once."""
        early = self.live.audit.early
        return early.text() if early is not None and early.table_closed else ""

    def candidates(self, first: Address) -> list[Address]:
        """Where the table may be now: its host, then the seats that would take it over."""
        state = self.live.state
        places = [parse_endpoint(state.endpoints.get(state.host_key, "")) or first]
        places += [a for seat in state.successors()
                   if (a := parse_endpoint(state.endpoints[state.keys[seat]])) is not None]
        return places

    def key_at(self, address: Address) -> bytes:
        """The key of the seat whose endpoint in the log is ``address`` (b"": none says)."""
        state = self.live.state
        return next((key for key, endpoint in state.endpoints.items()
                     if parse_endpoint(endpoint) == address), b"")


async def _watch(args: argparse.Namespace) -> int:
    explicit = log_place(args, "watch")
    me = identity()
    address = parse_connect(args.connect) if args.connect else await _find(args)
    if address is None:
        return EXIT_ENDED
    log = LogWriter(explicit or data_dir() / "logs" / (
        f"{time.strftime('%Y%m%d-%H%M%S')}-watch-{me.fingerprint[:8]}.pageone-log"))
    referee = Referee(args.json, log)
    if not args.json:
        print(f"watching the table at {address[0]}:{address[1]}…", flush=True)
    watcher = Watcher(me, asyncio.get_running_loop().time())
    referee.watcher = watcher
    watching = run_watcher(watcher, address, referee.entries, referee.finished,
                           lambda: referee.candidates(address), key_at=referee.key_at)
    on_screen = not (args.json or args.plain) and sys.stdout.isatty() and (
        os.environ.get("TERM") != "dumb")
    why = await (_on_screen(referee, watching) if on_screen else watching)
    return _verdict(referee, log.path, why, args.json)


async def _on_screen(referee: Referee, watching: Coroutine[Any, Any, str]) -> str:
    """Watch on the table screen; it closes when the game ends or the person types quit."""
    def stop() -> None:
        referee.stopped = True

    screen = WatchScreen(referee.live, stop, referee.watcher.say if referee.watcher else None)
    referee.sink = screen.screen.lines
    app = asyncio.ensure_future(screen.screen.app.run_async())
    try:
        why = await watching
        if not referee.stopped:
            screen.screen.text(("" if referee.closed() else "the game is over: ")
                               + "auditing the log as received…")
            await asyncio.sleep(1.0)
    finally:
        if not app.done():
            screen.screen.app.exit(result="")
        await app
    size = screen.screen.app.output.get_size()  # the story's end stays, as a player's does
    Screen().lines(screen.screen.tail(Screen.width(), max(5, size.rows - 6)))
    return why


def _verdict(referee: Referee, path: Path | None, why: str, as_json: bool) -> int:
    """The full audit of the log as received, and the exit code ``pageone audit`` gives."""
    if why:
        complain(f"pageone watch: {why}")
    if not referee.live.log:
        return EXIT_ENDED
    audit = referee.live.final()
    where = str(path) if path else "the log as received"
    if as_json:
        print(json.dumps({"verdict": audit.verdict, "log": where,
                          "fault": referee.live.fault_text() or None}), flush=True)
    else:
        for line in text_lines(where, audit, quiet=True):
            printed(line)
        if path is not None:
            labelled("log:", str(path))
    return exit_code([audit])


async def _find(args: argparse.Namespace) -> Address | None:
    """A table that takes watchers, by its name or its host's."""
    deadline = time.monotonic() + args.wait
    while time.monotonic() < deadline:
        tables: list[TableAdvert] = [
            t for t in await browse(min(2.0, args.wait), args.interface)
            if (not args.table or t.matches(args.table)) and t.watch_text() != "no watchers"]
        if len(tables) == 1:
            print(f"found {tables[0].name!r}, hosted by {tables[0].nick or 'its host'}")
            return tables[0].address, tables[0].port
        if tables:
            names = ", ".join(f"{t.name!r} at {t.address}:{t.port}" for t in tables)
            print(f"pageone watch: several tables take watchers ({names}): name one, or use "
                  "--connect HOST:PORT", file=sys.stderr)
            return None
    print(f"pageone watch: found no table that takes watchers in {args.wait:g} s; try pageone "
          "tables --all, or --connect HOST:PORT", file=sys.stderr)
    return None
