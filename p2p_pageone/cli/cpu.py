"""CPU players at a table with people: a short, human-like moment before each move.

Only pacing: fairness does not rest on it. The sequencer holds moves back on its own clock during
the Page One window (session/sequencer.py); this only keeps CPU peers from acting in the same
instant as the play they answer, and gives their catches and late calls the same window a person
has. Tables of CPU players only, and ``pageone sim``, do not wait at all.

At a table with people, a ``normal`` CPU player sometimes forgets to say Page One
(``--cpu-forgets``), so that people get calls to catch; CPU-only tables and sims never forget
(an ``easy`` one forgets at every table). A CPU player catches a missed call, or makes its own
late call, only after the Page One window and a person's reaction time drawn for its level
(``REACTION``), so a person who reads the screen can be first. An ``expert`` one stops
searching after ``EXPERT_CAP`` seconds on this clock, so the table never waits on it.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..bots import Bot, ExpertBot, make_bot
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
        self.reaction = REACTION.get(bot.name, REACTION["normal"])
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
            draw = self.rng.random()
            self._delay = self.think * (0.6 + 0.8 * draw)
            if isinstance(self._intent, Draw) and self._drew:
                self._delay *= 0.3  # drawing on, card after card, is quicker than deciding
            if isinstance(self._intent, Catch | Call) and view.turn != view.seat:
                low, high = self.reaction  # it sees the miss as a person would
                self._delay = self.catch_window + low + (high - low) * draw
        if self._intent is None or now - self._since < self._delay:
            return None
        intent, self._intent = self._intent, None
        self._drew = isinstance(intent, Draw)
        self._moment = None  # if it is refused (a race lost), decide again after a moment
        return intent


FORGET_DEFAULT = 15  # percent: how often a normal CPU player forgets Page One among people
# Seconds, after the Page One window, before a CPU player of each level acts on a missed call
# (a catch, or its own late call): a person's reaction time, drawn evenly from this range.
REACTION = {"random": (1.5, 3.0), "easy": (1.5, 3.0), "normal": (0.8, 1.6),
            "hard": (0.6, 1.2), "expert": (0.45, 0.9)}
EXPERT_CAP = 0.2  # seconds an expert CPU player searches at most per decision at a table


def cpu_bot(level: str, clock: Callable[[], float], think: float, catch_window: float,
            rng: random.Random, forget: float = 0.0) -> Bot:
    """A CPU player; ``forget``: the chance a ``normal`` one forgets a Page One call."""
    bot = make_bot(level, forget)
    if isinstance(bot, ExpertBot):
        bot.cap(clock, EXPERT_CAP)
    if think <= 0 and catch_window <= 0:
        return bot
    return ThinkingBot(bot, clock, think, catch_window, rng)
