"""Word wrap for styled text: every line the player reads is laid out here, at word boundaries.

A "word" is a run of non-blank characters, even when it spans several fragments (``[``, ``9♠``,
``]`` stay together). Only a word wider than the whole line is ever cut.
"""

from __future__ import annotations

import shutil
import sys
from typing import TextIO

from prompt_toolkit.utils import get_cwidth

from .render import Frag, Line

Word = list[Frag]


def width_of(line: Line) -> int:
    return sum(get_cwidth(text) for _, text in line)


def split_lines(line: Line) -> list[Line]:
    """A line whose fragments hold newlines, as separate lines (styles kept)."""
    lines: list[Line] = [[]]
    for style, text in line:
        parts = text.split("\n")
        for index, part in enumerate(parts):
            if index:
                lines.append([])
            if part:
                lines[-1].append((style, part))
    return lines


def _words(line: Line) -> list[tuple[Line, Word]]:
    """(the blanks before it, the word) for each word of ``line``; a trailing blank is dropped."""
    out: list[tuple[Line, Word]] = []
    blanks: Line = []
    word: Word = []
    for style, text in line:
        index = 0
        while index < len(text):
            if text[index] == " ":
                if word:
                    out.append((blanks, word))
                    blanks, word = [], []
                end = len(text) - len(text[index:].lstrip(" "))
                blanks.append((style, text[index:end]))
                index = end
            else:
                end = text.find(" ", index)
                end = len(text) if end < 0 else end
                word.append((style, text[index:end]))
                index = end
    if word:
        out.append((blanks, word))
    return out


def _cut(word: Word, room: int) -> tuple[Word, Word]:
    """The first ``room`` columns of a word too wide for any line (a path breaks after a ``/``
    where it can), and the rest."""
    text = "".join(t for _, t in word)
    columns, fits = 0, 0
    for char in text:
        if columns + get_cwidth(char) > room:
            break
        columns += get_cwidth(char)
        fits += 1
    slash = text.rfind("/", 0, fits)
    if fits < len(text) and slash >= fits // 3:
        fits = slash + 1
    head: Word = []
    for position, (style, part) in enumerate(word):
        if fits < len(part):
            if fits:
                head.append((style, part[:fits]))
            return head, [(style, part[fits:]), *word[position + 1:]]
        head.append((style, part))
        fits -= len(part)
    return head, []


def wrap_one(line: Line, width: int, indent: str | None = None,
             whole: bool = False) -> list[Line]:
    """One line (no newlines) as lines at most ``width`` wide. Continuation lines start with
    ``indent`` (default: the line's own leading blanks and two more). ``whole``: a word wider
    than the line (a path) is not cut but put whole on a line of its own, from its first
    column, for the terminal to fold (printed output: it copies as one word)."""
    width = max(width, 8)
    words = _words(line)
    if not words:
        return [[]]
    lead = words[0][0]
    indent = " " * width_of(lead) + "  " if indent is None else indent
    indent = indent if len(indent) < width // 2 else ""
    lines: list[Line] = [list(lead)]
    used, fresh = width_of(lead), False
    for position, (blanks, word) in enumerate(words):
        gap = blanks if position and not fresh else []
        size, fresh = width_of(word), False
        if whole and size > width - len(indent):
            lines.append(word) if position or used else lines[-1].extend(word)
            lines.append([("", indent)] if indent else [])
            used, fresh = len(indent), True
            continue
        if position and used + width_of(gap) + size > width:
            lines.append([("", indent)] if indent else [])
            used, gap = len(indent), []
        while used + width_of(gap) + size > width:  # wider than a line: cut it (the only cut)
            head, word = _cut(word, max(1, width - used - width_of(gap)))
            lines[-1] += gap + head
            lines.append([("", indent)] if indent else [])
            used, gap, size = len(indent), [], width_of(word)
        lines[-1] += gap + word
        used += width_of(gap) + size
    while len(lines) > 1 and not "".join(t for _, t in lines[-1]).strip():
        lines.pop()  # the line after a whole word that ended it
    return [_merged(part) for part in lines]


def _merged(line: Line) -> Line:
    """Neighbouring fragments of one style as one (a styled phrase is sent as one run)."""
    out: Line = []
    for style, text in line:
        if out and out[-1][0] == style:
            out[-1] = (style, out[-1][1] + text)
        elif text:
            out.append((style, text))
    return out


def wrap(lines: list[Line], width: int, indent: str | None = None,
         whole: bool = False) -> list[Line]:
    """Every line of ``lines`` (newlines inside fragments included) wrapped to ``width``."""
    out: list[Line] = []
    for line in lines:
        for part in split_lines(line):
            out += wrap_one(part, width, indent, whole)
    return out


def wrap_text(text: str, width: int, indent: str | None = None,
              whole: bool = False) -> list[str]:
    """Plain text wrapped the same way."""
    return ["".join(t for _, t in line) for line in wrap([[("", text)]], width, indent, whole)]


def printed(text: str, file: TextIO | None = None) -> None:
    """Text printed to a terminal, every line wrapped at word boundaries to its width; a path
    wider than a line is printed whole on a line of its own (the terminal folds it, and it
    copies as one). To a pipe or file: as it is."""
    out = file or sys.stdout
    if out.isatty():
        width = shutil.get_terminal_size().columns
        text = "\n".join(row for line in text.split("\n")
                         for row in wrap_text(line, width, whole=True))
    print(text, file=out, flush=True)


def complain(text: str) -> None:
    """A message on standard error, wrapped at word boundaries to the terminal's width when
    standard error is a terminal."""
    printed(text, sys.stderr)


def labelled(label: str, value: str, file: TextIO | None = None) -> None:
    """``label value`` on one line if it fits the terminal, else the label and then the value
    on a line of its own, never broken (a path, a command: copied as one line)."""
    out = file or sys.stdout
    line = f"{label} {value}"
    if out.isatty() and get_cwidth(line) > shutil.get_terminal_size().columns:
        line = f"{label}\n{value}"
    print(line, file=out, flush=True)
