"""CPU players. They act on their own seat's view only, with randomness passed in.

A bot answers ``choose(view, rng)`` with a move for its seat, or ``None`` to wait. The driver (the
simulator, or later the peer's client) asks every bot that may act: out of turn a bot may call or
catch; on its turn it must return a move. The search player (``hard``) fits the same interface: it
samples hidden hands consistent with its view and plays them out on copies of the same engine.
"""

from __future__ import annotations

import random
from typing import Protocol

from ..engine.moves import Move
from ..engine.view import SeatView
from .hard import HardBot
from .normal import NormalBot
from .random_bot import RandomBot


class Bot(Protocol):
    name: str

    def choose(self, view: SeatView, rng: random.Random) -> Move | None: ...


BOTS: dict[str, type[RandomBot] | type[NormalBot] | type[HardBot]] = {
    "random": RandomBot, "normal": NormalBot, "hard": HardBot,
}
LEVELS = tuple(BOTS)


def make_bot(level: str, forget: float = 0.0) -> Bot:
    """A bot of ``level``; a ``normal`` one forgets a Page One call owed with chance
    ``forget`` (the others never do)."""
    try:
        bot = BOTS[level]()
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}: choose {', '.join(BOTS)}") from None
    if forget > 0 and type(bot) is NormalBot:
        bot.forget = forget
    return bot


def parse_bot_levels(spec: str, level: str = "normal") -> list[str]:
    """The CPU players asked for: ``"2"`` (two of ``level``), or levels ``"normal,hard"``."""
    text = spec.strip()
    if text.isdigit():
        if level not in BOTS:
            raise ValueError(f"unknown bot level {level!r}: choose {', '.join(BOTS)}")
        return [level] * int(text)
    names = [name.strip() for name in text.split(",") if name.strip()]
    for name in names:
        if name not in BOTS:
            raise ValueError(f"unknown bot level {name!r}: choose {', '.join(BOTS)}, "
                             "or give a number")
    return names


__all__ = ["BOTS", "LEVELS", "Bot", "HardBot", "NormalBot", "RandomBot", "make_bot",
           "parse_bot_levels"]
