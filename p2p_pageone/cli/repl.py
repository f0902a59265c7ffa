"""The player's terminal, the same for `pageone play`, `host` and `join`: the table screen on a
terminal (tablescreen.py), else the line narration (piped, ``--plain``, screen readers): events
printed above a prompt.

Quitting: ``quit``, Ctrl-C and Ctrl-D ask to confirm during a game (a host is told its table
closes), then the peer says ``bye`` and the command exits quietly with the log's path.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.patch_stdout import patch_stdout

from ..engine.moves import IllegalMove
from ..net.runner import LogWriter
from ..session.common import Event
from ..session.peer import PeerSession
from . import render, theme
from .commands import CommandError, Info, help_text, parse_command
from .completion import HandCompleter
from .narrator import Narrator
from .screen import Screen
from .tablescreen import Recorder, TableScreen
from .tableview import hand_area, table_area
from .typed import TypedMoves
from .wrap import wrap


def _story_so_far(events: list[Event]) -> list[Event]:
    """A joiner coming back to a game it sat at reads the whole log at once: the table, its
    seats and the hand in play are told; the hands before it, in one line (played or void)."""
    hands = [i for i, event in enumerate(events) if event.kind == "hand"]
    if len(hands) < 2:
        return events
    before = [int(events[i].data.get("hand", 0)) for i in hands[:-1]]
    scored = {int(e.data.get("hand", -1)) for e in events if e.kind == "scores"}
    told = [_hands_were([n for n in before if n in scored], "played"),
            _hands_were([n for n in before if n not in scored], "void (ended early)")]
    skipped = Event("story", f"{'; '.join(t for t in told if t)} before you came back (type "
                    "scores for the totals)")
    return [*events[:hands[0]], skipped, *events[hands[-1]:]]


def _hands_were(numbers: list[int], what: str) -> str:
    if not numbers:
        return ""
    many = len(numbers) > 1
    return (f"hand{'s' if many else ''} {', '.join(map(str, numbers))} "
            f"{'were' if many else 'was'} {what}")


class Terminal:
    def __init__(self, session: PeerSession, interactive: bool, screen: Screen | None = None,
                 log: LogWriter | None = None, catch_window: float = 2.0,
                 offline: bool = False, plain: bool = False) -> None:
        self.session = session
        self.interactive = interactive
        self.log = log
        self.offline = offline
        self.typed = TypedMoves(session, catch_window, self.say, _clock)
        self.table_screen: TableScreen | None = None
        if interactive and not plain and screen is None and _on_terminal():
            self.table_screen = TableScreen(
                lambda width: table_area(session, width, self.typed.owed_left()),
                lambda width: hand_area(session, width, self.typed.queue),
                self._prompt_text, HandCompleter(session), self.handle, self._interrupt)
        self.screen: Screen | TableScreen = self.table_screen or screen or Screen()
        self._before = Recorder() if self.table_screen is not None else None
        self.narrator = Narrator(session, self.screen.lines, symbols=self.screen.colour,
                                 prompts=interactive and self.table_screen is None,
                                 catch_window=catch_window)
        self.paused = False
        self._held: list[Event] = []
        self._reading: list[Event] = []  # events of the log read on (re)joining
        self.confirming = False
        self.quitting = False  # the player chose to leave: the bye is on its way
        self._prompt: PromptSession[str] | None = None
        self._last_event = 0.0
        self.seated_note = ""  # said once, when seated in the lobby (never if not seated)

    # --- output -------------------------------------------------------------------------------

    def show(self, session: PeerSession, events: list[Event]) -> None:
        if self.paused:  # until the command has said where the table is
            self._held += events
            return
        if not session.attachment.log_read and not session.ended:  # the story so far, read at once
            self._reading += events
            return
        if self._reading:
            events, self._reading = _story_so_far(self._reading) + events, []
        if events:
            self._last_event = _clock()
        self.narrator.show(events)
        if events and self.seated_note and not session.ended and session.me >= 0:
            note, self.seated_note = self.seated_note, ""
            if session.game is None and len(session.keys) < session.seat_count:
                self.say(note)  # seated, seats to fill: say what can be typed meanwhile
        self.typed.tick()
        if self.table_screen is not None:
            if self._my_turn():
                self.narrator.idle()  # a draw being counted is told before the turn is ours
            self.table_screen.refresh()

    def resume(self) -> None:
        self.paused = False
        events, self._held = self._held, []
        self.show(self.session, events)

    def say(self, text: str, style: str = "") -> None:
        self.screen.text(text, style)

    def done(self) -> bool:
        return self.session.game_over or bool(self.session.ended)

    # --- input loops --------------------------------------------------------------------------

    async def run(self) -> None:
        if self.table_screen is not None:
            await self._screen_loop(self.table_screen)
        elif self.interactive and sys.stdin.isatty():
            await self._prompt_loop()
        elif self.interactive:
            await self._line_loop()
        while not self.done():
            await self._idle(0.2)

    async def _idle(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
        if _clock() - self._last_event > 1.5:
            self.narrator.idle()

    async def _screen_loop(self, screen: TableScreen) -> None:
        if self._before is not None:
            screen.story.lines[:0] = self._before.stop()
        app = asyncio.ensure_future(screen.app.run_async())
        try:
            while not self.done() and not self.quitting and not app.done():
                await asyncio.sleep(0.1)
                self.typed.tick()
                if _clock() - self._last_event > 1.5:
                    self.narrator.idle()
        finally:
            if not app.done():
                screen.app.exit(result="")
            await asyncio.wait({app}, timeout=1.0)
        size = screen.app.output.get_size()
        Screen().lines(screen.tail(Screen.width(), max(5, size.rows - 4)))

    def _prompt_text(self) -> str:
        return "quit? (y/n) " if self.confirming else "pageone> "

    def _interrupt(self) -> None:
        """Ctrl-C or Ctrl-D on the table screen: ask first; a second time, leave now."""
        if self.confirming:
            self.quit()
        else:
            self.ask_quit()

    def _my_turn(self) -> bool:
        game = self.session.game
        return (game is not None and game.chance is None and game.deal.turn == self.session.me
                and self.session.hand_known())

    async def _prompt_loop(self) -> None:
        self._prompt = PromptSession(completer=HandCompleter(self.session),
                                     bottom_toolbar=self._toolbar, complete_while_typing=False,
                                     key_bindings=_quit_keys(), output=theme.terminal_output())
        with patch_stdout():
            while not self.done() and not self.quitting:
                message = "quit? (y/n) " if self.confirming else "pageone> "
                task = asyncio.ensure_future(self._prompt.prompt_async(message,
                                                                       handle_sigint=False))
                while not task.done() and not self.done() and not self.quitting:
                    await asyncio.wait({task}, timeout=0.1)
                    self.typed.tick()
                    if _clock() - self._last_event > 1.5:
                        self.narrator.idle()
                if not task.done():
                    self._prompt.app.exit(result="")
                    await asyncio.sleep(0)
                    break
                text = task.result()
                if text in (CTRL_C, CTRL_D):
                    if self.confirming:  # a second Ctrl-C or Ctrl-D: leave now
                        self.quit()
                        break
                    self.ask_quit()
                    continue
                self.handle(text)

    async def _line_loop(self) -> None:
        lines = _stdin_lines()
        while not self.done() and not self.quitting:
            while not self.done() and not self._dealt():
                await asyncio.sleep(0.05)  # piped commands apply once our cards are dealt
            line = await lines.get()
            if line is None:  # no more commands: leave, as Ctrl-D does (unless the CPU plays)
                if not self.done() and not self.session.autoplay:
                    self.quit()
                return
            self.handle(line)
            while self.typed.queue and not self.done():  # piped moves keep their order
                await asyncio.sleep(0.05)
                self.typed.tick()

    def _dealt(self) -> bool:
        s = self.session
        game = s.game
        return (game is not None and s.me in game.deal.players and game.chance is None
                and bool(game.deal.hands[s.me]) and s.hand_known())

    def _toolbar(self) -> FormattedText:
        s = self.session
        width = get_app().output.get_size().columns
        if s.game is None or s.me < 0:
            return _fitted([("", f" {s.table_name or 'table'}: {len(s.keys)}/"
                             f"{s.seat_count} seated, waiting for players | help, quit")], width)
        deal = s.game.deal
        turn = "you" if deal.turn == s.me else s.names[deal.turn] if deal.turn >= 0 else "-"
        counts = " ".join(f"{'you' if p == s.me else s.names[p]}:{len(deal.hands[p])}"
                          for p in deal.players)
        parts: render.Line = [("", f" hand {s.hand} | turn: "),
                              ("bold" if turn == "you" else "", turn), ("", f" | {counts} | ")]
        game = s.game
        if game.settings.family == "classic" and getattr(deal, "led_suit", -1) >= 0:
            parts += [("", "follow "), render.follow_suit(deal.led_suit,  # type: ignore[attr-defined]
                                                          self.screen.colour), ("", " | ")]
        parts.append(("", f"stock {len(deal.stock)}"))
        return _fitted(parts, width)

    # --- commands -----------------------------------------------------------------------------

    def ask_quit(self) -> None:
        s = self.session
        if (s.game is None or s.game_over or s.ended or not self.interactive
                or not sys.stdin.isatty()):
            self.quit()
            return
        self.confirming = True
        if s.is_host and not self.offline:
            self.say("  you are the host: quitting closes the table for everyone", "bold")
        elif self.offline:
            self.say("  quitting ends this game", "bold")
        elif len(s.active) <= 2 or len(getattr(s.game.deal, "active", s.active)) <= 2:
            self.say("  if you quit, the game ends: one player would be left playing, and you "
                     "take the last place", "bold")
        else:
            self.say("  if you quit, the table goes on without you and this hand is void",
                     "bold")

    def quit(self) -> None:
        s = self.session
        self.confirming, self.quitting = False, True
        if s.ended or s.game_over:
            return
        reason = "the host closed the table" if s.is_host else "the player quit"
        s.notify("bye", {"reason": reason})
        s.flush(0.0)

    def handle(self, text: str) -> None:
        words = text.strip().split(maxsplit=1)
        if self.confirming:
            self.confirming = False
            if words and words[0].lower() in ("y", "yes", "quit"):
                self.quit()
            else:
                self.say("  playing on")
            return
        if not words:
            return
        verb, rest = words[0].lower(), (words[1] if len(words) > 1 else "")
        if verb in ("help", "?"):
            settings = self.session.settings
            self.say(help_text(rest, settings.family if settings else ""))
        elif verb == "say":
            self.session.say(rest) if rest else self.say("  say what? e.g. say good luck")
        elif verb in ("quit", "exit"):
            self.ask_quit()
        elif verb == "log":
            self._log_info()
        elif verb == "start":
            refusal = self.session.start_now()
            self.say(f"  {refusal}" if refusal else "  starting with the players seated")
        elif verb == "auto" and rest.strip().lower() in ("off", "stop", "no"):
            self.session.autoplay = False
            self.say("  you play your seat again")
            self.narrator.show([])  # your turn, if it is
        elif verb == "auto":
            self.session.autoplay = True
            self.session.flush(0.0)
            self.say("  the CPU plays for you from now on (auto off: you play again)")
        else:
            self._game_command(text)

    def _game_command(self, text: str) -> None:
        s = self.session
        view = s.view()
        if view is None or s.game is None:
            self.say("  the game has not started yet: waiting for players (help, say, quit "
                     "work now)")
            return
        try:
            command = parse_command(text, view, s.names)
        except (CommandError, IllegalMove) as error:
            self.say(f"  {render.without_ruling_ids(str(error))}")
            return
        if isinstance(command, Info):
            self._info(command.name)
            return
        self.typed.typed(text, command)

    def _log_info(self) -> None:
        path = self.log.path if self.log is not None else None
        if path is None:
            self.say(f"  {len(self.session.log)} signed entries so far (no file yet)")
            return
        self.say(f"  {len(self.session.log)} signed entries so far in {path}\n"
                 f"  check it after the game with: pageone audit {path}")

    def _info(self, name: str) -> None:
        s = self.session
        assert s.game is not None
        family = s.game.settings.family
        symbols = self.screen.colour
        if name == "hand":
            view = s.view()
            try:
                cards = view.hand() if view else []
            except IllegalMove:
                self.say("  your cards are still being dealt")
                return
            self.screen.lines([[("", "  "), *render.hand(cards, family, symbols=symbols)],
                               [("", "  type: " + render.typed_names(cards, family))]])
        elif name == "table":
            self.screen.lines([render.table(s.game, s.names, s.me, symbols)])
        elif name == "scores":
            self.say("  " + render.scores_line(s.game, render.seen_names(s.names, s.me)))


CTRL_C, CTRL_D = "\x03", "\x04"


def _quit_keys() -> KeyBindings:
    """Ctrl-C and Ctrl-D (on an empty line) end the prompt with a marker, never an exception:
    an exception out of a prompt task would escape asyncio as a traceback."""
    keys = KeyBindings()

    @keys.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        event.app.exit(result=CTRL_C)

    @keys.add("c-d", filter=Condition(lambda: not get_app().current_buffer.text))
    def _end(event: KeyPressEvent) -> None:
        event.app.exit(result=CTRL_D)

    return keys


def _stdin_lines() -> asyncio.Queue[str | None]:
    """Lines of a standard input that is not a terminal, read by a daemon thread (a blocked read
    must never keep the command from exiting); None at its end."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def read() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(queue.put_nowait, line)
        loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=read, daemon=True).start()
    return queue


def _fitted(line: render.Line, width: int) -> FormattedText:
    """The toolbar wrapped at word boundaries (it grows a line rather than lose its end)."""
    joined: render.Line = []
    for index, part in enumerate(wrap([line], width - 1, indent=" ")):
        joined += [("", "\n")] * bool(index) + part
    return FormattedText(joined)


def _on_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def _clock() -> float:
    return time.monotonic()

