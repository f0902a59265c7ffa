"""Printing lines of formatted text: styled through prompt-toolkit on a terminal, plain otherwise.

Nothing here writes an escape code itself: under ``patch_stdout`` prompt-toolkit prints the
styled text above the prompt. ``NO_COLOR`` or a non-terminal gives plain text.
"""

from __future__ import annotations

import shutil
import sys

from prompt_toolkit import print_formatted_text
from prompt_toolkit.formatted_text import FormattedText

from .render import Line, plain
from .theme import colour_wanted
from .wrap import wrap


class Screen:
    def __init__(self, colour: bool | None = None) -> None:
        self.colour = colour_wanted() if colour is None else colour

    @staticmethod
    def width() -> int:
        """The width lines are wrapped to on a terminal: one column spare, as a line filling
        the width makes some terminals wrap early (lines wrapped to it are not wrapped again)."""
        return max(20, shutil.get_terminal_size().columns - 1)

    def lines(self, lines: list[Line]) -> None:
        if not lines:
            return
        if sys.stdout.isatty():  # a terminal: wrapped at word boundaries to its width
            lines = wrap(lines, self.width())
        if self.colour:
            joined: Line = []
            for line in lines:
                joined += [*line, ("", "\n")]
            print_formatted_text(FormattedText(joined), end="")
        else:
            print("\n".join(plain(line) for line in lines), flush=True)

    def text(self, text: str, style: str = "") -> None:
        self.lines([[(style, text)]])
