"""The wait between two moves of ``pageone replay --step`` in the line replay (piped output or
``--plain``): a prompt on the terminal, never in the replay's own output, and one key read.

A person at a terminal gets "Enter: next move, q: quit" and a key is taken as typed: q, Escape,
Ctrl-C or Ctrl-D quit, any other key shows the next move. Input that is not a terminal is read a
line at a time: a line ``q`` quits, any other the next move, and its end shows the rest."""

from __future__ import annotations

import os
import sys
from typing import Literal, TextIO

STEP_PROMPT = "Enter: next move, q: quit"
QUIT_KEYS = ("q", "Q", "\x1b", "\x03", "\x04")  # Escape alone, Ctrl-C, Ctrl-D

Wanted = Literal["next", "quit", "rest"]


def step_wait() -> Wanted:
    """What the person wants after a move: the next one, to quit, or the rest without waits."""
    prompt = _terminal()
    if prompt is None:
        return _line()
    prompt.write(STEP_PROMPT)
    prompt.flush()
    try:
        key = _key()
    except KeyboardInterrupt:
        key = "\x03"
    finally:  # the prompt goes, so the replay's lines read on as if it had never been there
        prompt.write("\r" + " " * len(STEP_PROMPT) + "\r")
        prompt.flush()
    return "quit" if key in QUIT_KEYS else "next"


def _terminal() -> TextIO | None:
    """Where the person typing sees the prompt: the terminal (standard error, else standard
    output), never a pipe; None when input does not come from a terminal."""
    if not sys.stdin.isatty():
        return None
    return next((stream for stream in (sys.stderr, sys.stdout) if stream.isatty()), None)


def _key() -> str:
    """One key press, as typed (no Enter needed, not echoed); an arrow key's whole sequence."""
    import termios

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    raw = termios.tcgetattr(fd)
    raw[3] &= ~(termios.ICANON | termios.ECHO)  # signals stay: Ctrl-C still interrupts
    raw[6][termios.VMIN], raw[6][termios.VTIME] = 1, 0
    try:
        termios.tcsetattr(fd, termios.TCSANOW, raw)
        return os.read(fd, 16).decode(errors="replace") or "\x04"
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _line() -> Wanted:
    try:
        line = input()
    except EOFError:
        return "rest"
    return "quit" if line.strip().lower() in ("q", "quit") else "next"
