"""The player's terminal at a network table: events above a prompt-toolkit prompt."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterable

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.patch_stdout import patch_stdout

from ..engine.cards import names as card_names
from ..engine.moves import IllegalMove
from ..session.common import Event
from ..session.peer import PeerSession
from .commands import HELP, CommandError, Info, parse_command
from .render import describe, hand_text, scores_text, table_text

VERBS = ("play", "draw", "pass", "pageone", "catch", "hand", "table", "scores", "say", "auto",
         "help", "quit", "log")


class HandCompleter(Completer):
    """Completes commands, then the cards in hand and the other players' names."""

    def __init__(self, session: PeerSession) -> None:
        self.session = session

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterable[Completion]:
        words = document.text_before_cursor.split()
        current = document.get_word_before_cursor()
        if len(words) <= 1 and not document.text_before_cursor.endswith(" "):
            options: list[str] = list(VERBS)
        elif words and words[0] == "catch":
            options = [n for i, n in enumerate(self.session.names) if i != self.session.me]
        else:
            view = self.session.view()
            family = self.session.settings.family if self.session.settings else "classic"
            try:
                options = card_names(sorted(view.hand()), family).split() if view else []
            except IllegalMove:
                options = []
        for option in sorted(set(options)):
            if option.startswith(current):
                yield Completion(option, start_position=-len(current))


class Terminal:
    def __init__(self, session: PeerSession, interactive: bool) -> None:
        self.session = session
        self.interactive = interactive
        self._prompt: PromptSession[str] | None = None

    def show(self, session: PeerSession, events: list[Event]) -> None:
        for event in events:
            if event.kind == "your_turn":
                if self.interactive and not session.autoplay:
                    self._your_turn(session)
                continue
            if event.kind == "catchable" and (session.autoplay or not self.interactive):
                continue
            if event.kind == "engine":
                if session.settings is not None:
                    print("  " + describe(event.data["event"], session.names,
                                          session.settings.family), flush=True)
                continue
            print(f"  {event.text}", flush=True)
            if event.kind in ("hand",) and self.interactive:
                print("  type help for commands; your cards appear once dealt", flush=True)

    def _your_turn(self, session: PeerSession) -> None:
        game, view = session.game, session.view()
        if game is None or view is None:
            return
        print(table_text(game, session.names, session.me), flush=True)
        print("  your turn — hand: " + hand_text(view.hand(), game.settings.family), flush=True)

    def _done(self) -> bool:
        return self.session.game_over or bool(self.session.ended)

    async def run(self) -> None:
        if not self.interactive:
            while not self._done():
                await asyncio.sleep(0.2)
            return
        if sys.stdin.isatty():
            await self._prompt_loop()
        else:
            await self._line_loop()

    async def _prompt_loop(self) -> None:
        self._prompt = PromptSession(completer=HandCompleter(self.session),
                                     bottom_toolbar=self._toolbar)
        with patch_stdout():
            while not self._done():
                task = asyncio.ensure_future(self._prompt.prompt_async("pageone> "))
                while not task.done() and not self._done():
                    await asyncio.wait({task}, timeout=0.3)
                if not task.done():
                    self._prompt.app.exit(result="")
                    await asyncio.sleep(0)
                    break
                try:
                    text = task.result()
                except (EOFError, KeyboardInterrupt):
                    self.handle("quit")
                    break
                self.handle(text)

    async def _line_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._done():
            while not self._done() and not self.session.hand_known():
                await asyncio.sleep(0.05)  # piped commands apply once our cards are dealt
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                while not self._done():
                    await asyncio.sleep(0.2)
                return
            self.handle(line)

    def _toolbar(self) -> str:
        s = self.session
        if s.game is None:
            return f" {len(s.keys)}/{s.seat_count} seated — waiting for players"
        deal = s.game.deal
        turn = s.names[deal.turn] if 0 <= deal.turn < len(s.names) else "-"
        counts = " ".join(f"{s.names[p]}:{len(deal.hands[p])}" for p in deal.players)
        return f" hand {s.hand} | turn: {turn} | cards {counts} | stock {len(deal.stock)}"

    def handle(self, text: str) -> None:
        s = self.session
        words = text.strip().split(maxsplit=1)
        if not words:
            return
        if words[0] == "say":
            s.say(words[1] if len(words) > 1 else "")
            return
        if words[0] == "quit":
            s.urgent = ("bye", {"reason": "the player quit"})
            s.flush(0.0)
            return
        if words[0] == "auto":
            s.autoplay = True
            s.flush(0.0)
            print("  the CPU plays for you from now on")
            return
        view = s.view()
        if view is None or s.game is None:
            print("  wait: the game has not started yet")
            return
        try:
            command = parse_command(text, view, s.names)
        except (CommandError, IllegalMove) as error:
            print(f"  {error}")
            return
        if isinstance(command, Info):
            self._info(command.name)
            return
        try:
            s.request(command)
        except IllegalMove as error:
            print(f"  not allowed: {error}")

    def _info(self, name: str) -> None:
        s = self.session
        assert s.game is not None
        family = s.game.settings.family
        if name == "hand":
            view = s.view()
            try:
                print("  " + hand_text(view.hand() if view else [], family))
            except IllegalMove:
                print("  your cards are still being dealt")
        elif name == "table":
            print(table_text(s.game, s.names, s.me))
        elif name == "scores":
            print("  " + scores_text(s.game, s.names))
        elif name == "log":
            print(f"  {len(s.log)} signed entries so far")
        else:
            print(HELP)
