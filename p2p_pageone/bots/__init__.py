"""CPU players. They act on their own seat's view only, with randomness passed in.

A bot answers ``choose(view, rng)`` with a move for its seat, or ``None`` to wait. The driver (the
simulator, or later the peer's client) asks every bot that may act: out of turn a bot may call or
catch; on its turn it must return a move. A stronger search player (``hard``: determinized /
ISMCTS) fits the same interface: it samples hidden hands consistent with its view and plays them
out on copies of the same engine.
"""

from __future__ import annotations

import random
from typing import Protocol

from ..engine.moves import Move
from ..engine.view import SeatView
from .normal import NormalBot
from .random_bot import RandomBot


class Bot(Protocol):
    name: str

    def choose(self, view: SeatView, rng: random.Random) -> Move | None: ...


BOTS: dict[str, type[RandomBot] | type[NormalBot]] = {"random": RandomBot, "normal": NormalBot}


def make_bot(level: str) -> Bot:
    try:
        return BOTS[level]()
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}: choose {', '.join(BOTS)}") from None


__all__ = ["BOTS", "Bot", "NormalBot", "RandomBot", "make_bot"]
