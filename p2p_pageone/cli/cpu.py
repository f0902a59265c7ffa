"""CPU players at a table with people: a short, human-like moment before each move.

Only pacing: fairness does not rest on it. The sequencer holds moves back on its own clock during
the Page One window (session/sequencer.py); this only keeps CPU peers from acting in the same
instant as the play they answer, and gives their catches and late calls the same window a person
has. Tables of CPU players only, and ``pageone sim``, do not wait at all.

At a table with people, a ``normal`` CPU player sometimes forgets to say Page One
(``--cpu-forgets``), so that people get calls to catch; CPU-only tables and sims never forget.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..bots import Bot, make_bot
from ..engine.moves import Call, Catch, Draw, Move
from ..engine.view import SeatView

CPU_NAMES = ("ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal")


def cpu_name(index: int) -> str:
    return f"{CPU_NAMES[index % len(CPU_NAMES)]}-cpu"


class ThinkingBot:
    """Wraps a bot: decides once per moment, then waits ``think`` seconds (a catch or a late
    call waits out the Page One window first) before answering."""

    def __init__(self, bot: Bot, clock: Callable[[], float], think: float,
                 catch_window: float, rng: random.Random) -> None:
        self.bot, self.clock, self.think, self.catch_window = bot, clock, think, catch_window
        self.name = bot.name
        self.rng = rng
        self._moment: object = None
        self._since = 0.0
        self._intent: Move | None = None
        self._delay = 0.0
        self._drew = False  # the last move was a draw: the next draw comes quicker

    def ready_at(self) -> float | None:
        """When the answer decided for this moment is due (``session.player.Paced``)."""
        return self._since + self._delay if self._intent is not None else None

    def choose(self, view: SeatView, rng: random.Random) -> Move | None:
        moment = (view.turn, tuple(view.counts().items()), len(view.played_cards()),
                  repr(view.legal_moves()))
        now = self.clock()
        if moment != self._moment:
            self._moment, self._since = moment, now
            self._intent = self.bot.choose(view, rng)
            self._delay = self.think * (0.6 + 0.8 * self.rng.random())
            if isinstance(self._intent, Draw) and self._drew:
                self._delay *= 0.3  # drawing on, card after card, is quicker than deciding
            if isinstance(self._intent, Catch | Call) and view.turn != view.seat:
                self._delay += self.catch_window
        if self._intent is None or now - self._since < self._delay:
            return None
        intent, self._intent = self._intent, None
        self._drew = isinstance(intent, Draw)
        self._moment = None  # if it is refused (a race lost), decide again after a moment
        return intent


FORGET_DEFAULT = 15  # percent: how often a normal CPU player forgets Page One among people


def cpu_bot(level: str, clock: Callable[[], float], think: float, catch_window: float,
            rng: random.Random, forget: float = 0.0) -> Bot:
    """A CPU player; ``forget``: the chance a ``normal`` one forgets a Page One call."""
    bot = make_bot(level, forget)
    if think <= 0 and catch_window <= 0:
        return bot
    return ThinkingBot(bot, clock, think, catch_window, rng)
