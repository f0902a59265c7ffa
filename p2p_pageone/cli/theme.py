"""Every colour and attribute of the game's screens, in one place; and ``NO_COLOR``.

Cards carry literal styles (they print the same through `print_formatted_text` in the line
narration); the table screen's parts are style classes. Under ``NO_COLOR`` (https://no-color.org)
the terminal gets no SGR sequence at all, not even bold or reverse: every mark that matters is
also in the text (``[9♠]`` for a card you may play, ``>`` for whose turn it is).
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.output.vt100 import Vt100_Output
from prompt_toolkit.styles import Attrs, Style

CARD_COLOURS = {"red": "fg:ansired bold", "yellow": "fg:ansiyellow bold",
                "green": "fg:ansigreen bold", "blue": "fg:ansiblue bold", "black": "bold"}
PLAYABLE = "bold underline"
ALERT = "reverse bold"

SCREEN = Style.from_dict({
    "rule": "fg:ansibrightblack",
    "title": "bold",
    "turn": "reverse bold",
    "owed": "reverse bold",
    "held": "italic",
    "hint": "bold",
    "prompt": "bold",
    "typed": "fg:ansibrightblack",
    "completion-menu": "bg:ansiblue fg:ansiwhite",
    "completion-menu.completion.current": "reverse",
    # prompt-toolkit underlines every non-breaking space ("nbsp"); the table's entries join
    # their words with one so a line never breaks inside an entry: draw it as a space
    "nbsp": "nounderline",
})


def no_color() -> bool:
    return bool(os.environ.get("NO_COLOR", ""))


def colour_wanted() -> bool:
    """Colour on a terminal unless ``NO_COLOR`` is set (to anything but the empty string)."""
    return not no_color() and sys.stdout.isatty()


class NoAttributesOutput(Vt100_Output):
    """A terminal that is never sent colour or attributes (``NO_COLOR``): cursor moves only."""

    def set_attributes(self, attrs: Attrs, color_depth: ColorDepth) -> None:
        return

    def reset_attributes(self) -> None:
        return


def terminal_output(stdout: TextIO | None = None) -> Output | None:
    """The output for prompt-toolkit: None (its default) with colour, else one without SGR."""
    if not no_color():
        return None
    return NoAttributesOutput.from_pty(stdout or sys.stdout, term=os.environ.get("TERM"))
