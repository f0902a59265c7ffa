"""The ``easy`` CPU: for people who want a gentle game.

It plays as ``normal`` does half the time and otherwise the first card it may play (or draws when
it has none), and forgets a Page One call owed one time in three, at every table, so people get
calls to catch. It still calls and catches when it remembers.
"""

from __future__ import annotations

import random

from ..engine.moves import Draw, Move
from ..engine.view import SeatView
from .normal import NormalBot, _preferred_plays

CARELESS = 0.5  # the chance it plays its first playable card instead of thinking


class EasyBot(NormalBot):
    name = "easy"
    forget = 1 / 3

    def decide(self, view: SeatView, moves: list[Move], rng: random.Random) -> Move:
        if rng.random() < CARELESS:
            plays = _preferred_plays(moves)
            if plays:
                return plays[0]
            return next((m for m in moves if isinstance(m, Draw)), moves[0])
        return super().decide(view, moves, rng)
