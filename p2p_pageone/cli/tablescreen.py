"""The table screen: a full-screen prompt-toolkit application, redrawn on every event and resize.

Top to bottom: the table (players, cards in hand, scores, whose turn, the trick or top card,
Page One owed), the story of the hand (scrolls; PageUp/PageDown to look back), your hand with the
playable cards marked and what to do, and the input line with completion. It stands in for
:class:`Screen` (``lines``, ``text``) so the narrator's story lands in the middle.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from prompt_toolkit.application import Application, get_app_or_none
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import Completer
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    BufferControl,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu

from . import theme
from .render import Line
from .wrap import wrap

STORY_KEPT = 1000  # lines of the story kept for scrolling back
Area = Callable[[int], list[Line]]  # the lines of an area at a width


class Story:
    """The story's lines, wrapped once per width."""

    def __init__(self, kept: int | None = STORY_KEPT) -> None:
        self.kept = kept
        self.lines: list[Line] = []
        self._width = 0
        self._wrapped: list[Line] = []
        self._ends: list[int] = []  # wrapped lines up to and including each line
        self._count = 0  # lines of ``self.lines`` in ``_wrapped``

    def add(self, lines: list[Line]) -> None:
        self.lines += lines
        if self.kept is not None and len(self.lines) > self.kept:
            self.lines = self.lines[-self.kept:]
            self._width = 0  # wrapped afresh

    def wrapped(self, width: int) -> list[Line]:
        if width != self._width:
            self._width, self._wrapped, self._ends, self._count = width, [], [], 0
        for line in self.lines[self._count:]:
            self._wrapped += wrap([line], width)
            self._ends.append(len(self._wrapped))
        self._count = len(self.lines)
        return self._wrapped

    def wrapped_upto(self, count: int, width: int) -> list[Line]:
        """The first ``count`` lines of the story, wrapped."""
        wrapped = self.wrapped(width)
        return wrapped[: self._ends[count - 1]] if count > 0 else []


def joined(lines: list[Line]) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for index, line in enumerate(lines):
        if index:
            out.append(("", "\n"))
        out += line
    return out


class TableScreen:
    colour = True  # suit symbols on; colour itself is the output's business (theme)

    def __init__(self, table: Area, hand: Area, prompt: Callable[[], str],
                 completer: Completer, on_line: Callable[[str], None],
                 on_interrupt: Callable[[], None]) -> None:
        self.story = Story()
        self.back = 0  # lines scrolled back from the end of the story
        self._shown = 0  # story lines in the content last drawn
        self._table, self._hand, self._prompt = table, hand, prompt
        self._on_line = on_line
        self.buffer = Buffer(completer=completer, complete_while_typing=False,
                             multiline=False, accept_handler=self._accept)
        self.app: Application[str] = Application(
            layout=Layout(self._root(), focused_element=self.buffer),
            key_bindings=_keys(self, on_interrupt), full_screen=True, style=theme.SCREEN,
            output=theme.terminal_output(), refresh_interval=0.5, mouse_support=False)

    # --- the Screen interface ------------------------------------------------------------------

    def lines(self, lines: list[Line]) -> None:
        self.story.add(lines)
        self.refresh()

    def text(self, text: str, style: str = "") -> None:
        self.lines([[(style, line)] for line in text.split("\n")])

    def refresh(self) -> None:
        if get_app_or_none() is self.app:
            self.app.invalidate()

    # --- layout -------------------------------------------------------------------------------

    def width(self) -> int:
        return max(20, self.app.output.get_size().columns)

    def _root(self) -> FloatContainer:
        table = Window(FormattedTextControl(lambda: joined(self._table(self.width()))),
                       height=lambda: Dimension.exact(len(self._table(self.width()))))
        story = self.story_window = Window(
            FormattedTextControl(self._story_text, get_cursor_position=self._end,
                                 show_cursor=False), height=Dimension(weight=1))
        hand = Window(FormattedTextControl(lambda: joined(self._hand(self.width()))),
                      height=lambda: Dimension.exact(len(self._hand(self.width()))))
        prompt = Window(FormattedTextControl(lambda: [("class:prompt", self._prompt())]),
                        dont_extend_width=True)
        entry = VSplit([prompt, Window(BufferControl(self.buffer))], height=1)
        looking = Window(FormattedTextControl(self._looking_back), height=1, char="─",
                         style="class:rule")
        body = HSplit([table, rule(), story, looking, hand, entry])
        menu = Float(xcursor=True, ycursor=True,
                     content=CompletionsMenu(max_height=6, scroll_offset=1))
        return FloatContainer(content=body, floats=[menu])

    def _story_text(self) -> StyleAndTextTuples:
        """The story up to where the reader is: its end, or ``back`` lines before it (the
        window shows the last of the lines given, so looking back moves it at once)."""
        wrapped = self.story.wrapped(self.width())
        self.back = min(self.back, max(0, len(wrapped) - 1))
        shown = wrapped[: len(wrapped) - self.back]
        self._shown = len(shown)
        return joined(shown)

    def page(self) -> int:
        """Lines PageUp and PageDown move: the story's height less two (for context)."""
        info = self.story_window.render_info
        return max(3, info.window_height - 2) if info is not None else 5

    def _looking_back(self) -> StyleAndTextTuples:
        """On the rule under the story, while it is scrolled back: that it is, and the way
        back (the rule alone otherwise)."""
        if self.back <= 0:
            return []
        return [("class:hint", " looking back: PageDown to return, End for the latest ")]

    def _end(self) -> Point:
        # The lines just drawn, not the story now: a resize between the two (the width read
        # again) must not put the cursor past the content prompt-toolkit holds.
        return Point(0, max(0, self._shown - 1))

    def _accept(self, buffer: Buffer) -> bool:
        text = buffer.text
        self.back = 0
        if text.strip():  # what was typed stays above its answer, as on a paper log
            self.story.add([[("class:typed", f"> {text.strip()}")]])
        self._on_line(text)
        return False

    def tail(self, width: int, count: int) -> list[Line]:
        """The last ``count`` lines of the story at ``width`` (printed when the screen closes)."""
        return self.story.wrapped(width)[-count:]


class Recorder:
    """Standard output until the screen opens: printed as usual and kept, so what a command
    said before (the table's address, "waiting for players") is still in the story after."""

    def __init__(self) -> None:
        self.real = sys.stdout
        self.text = ""
        sys.stdout = self

    def write(self, text: str) -> int:
        self.text += text
        return self.real.write(text)

    def flush(self) -> None:
        self.real.flush()

    def isatty(self) -> bool:
        return self.real.isatty()

    def fileno(self) -> int:
        return self.real.fileno()

    def stop(self) -> list[Line]:
        if sys.stdout is self:
            sys.stdout = self.real
        return [[("", line)] for line in self.text.rstrip("\n").split("\n") if line]


def rule() -> Window:
    return Window(height=1, char="─", style="class:rule")


def _keys(screen: TableScreen, on_interrupt: Callable[[], None]) -> KeyBindings:
    keys = KeyBindings()

    @keys.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        on_interrupt()

    @keys.add("c-d", filter=Condition(lambda: not screen.buffer.text))
    def _end(event: KeyPressEvent) -> None:
        on_interrupt()

    @keys.add("pageup")
    def _back(event: KeyPressEvent) -> None:
        screen.back += screen.page()

    @keys.add("pagedown")
    def _forward(event: KeyPressEvent) -> None:
        screen.back = max(0, screen.back - screen.page())

    @keys.add("end", filter=Condition(lambda: screen.back > 0))
    def _latest(event: KeyPressEvent) -> None:
        screen.back = 0

    return keys
