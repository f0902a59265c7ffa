"""CPU players. They act on their own seat's view only, with randomness passed in.

A bot answers ``choose(view, rng)`` with a move for its seat, or ``None`` to wait. The driver (the
simulator, or later the peer's client) asks every bot that may act: out of turn a bot may call or
catch; on its turn it must return a move. The search players (``hard``, ``expert``) fit the same
interface: they sample hidden hands consistent with their view and play them out on copies of the
same engine. ``easy`` is ``normal`` made careless, for a gentle game.
"""

from __future__ import annotations

import random
from typing import Protocol

from ..engine.moves import Move
from ..engine.view import SeatView
from .easy import EasyBot
from .expert import Budget, ExpertBot
from .hard import HardBot
from .normal import NormalBot
from .random_bot import RandomBot


class Bot(Protocol):
    name: str

    def choose(self, view: SeatView, rng: random.Random) -> Move | None: ...


BOTS: dict[str, type[RandomBot] | type[NormalBot] | type[HardBot] | type[ExpertBot]] = {
    "random": RandomBot, "easy": EasyBot, "normal": NormalBot, "hard": HardBot,
    "expert": ExpertBot,
}
LEVELS = tuple(BOTS)


def make_bot(level: str, forget: float = 0.0) -> Bot:
    """A bot of ``level``; a ``normal`` one forgets a Page One call owed with chance
    ``forget`` (``easy`` forgets one in three anyway; the others never do)."""
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


__all__ = ["BOTS", "LEVELS", "Bot", "Budget", "EasyBot", "ExpertBot", "HardBot", "NormalBot",
           "RandomBot", "make_bot", "parse_bot_levels"]
