"""The ``random`` CPU: a uniformly random legal move."""

from __future__ import annotations

import random

from ..engine.moves import Move
from ..engine.view import SeatView


class RandomBot:
    """On its turn, any legal move with equal chance; out of turn, a call or catch half the time."""

    name = "random"

    def choose(self, view: SeatView, rng: random.Random) -> Move | None:
        moves = view.legal_moves()
        if not moves:
            return None
        if view.turn != view.seat and rng.random() < 0.5:
            return None
        return moves[rng.randrange(len(moves))]
