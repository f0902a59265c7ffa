"""`pageone sim`."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import TextIO

from ..bots import BOTS
from ..engine.settings import SettingError, Settings
from ..sim.referee import Check
from ..sim.report import simulate
from .wrap import complain


def run_sim(args: argparse.Namespace, settings: Settings) -> int:
    names = [n.strip() for n in args.bots.split(",") if n.strip()]
    unknown = [n for n in names if n not in BOTS]
    if unknown:
        complain(f"pageone sim: unknown bot {unknown[0]!r}; choose from {', '.join(BOTS)}")
        return 2
    if args.games < 1:
        complain("pageone sim: --games must be at least 1")
        return 2
    check: Check = "none" if args.no_check else args.check
    clock = None if args.no_timing else time.perf_counter
    bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    try:
        report = simulate(settings, args.players, args.games, args.seed, names, check, clock,
                          bar.show if bar is not None else None)
    except SettingError as error:
        complain(f"pageone sim: {error}")
        return 2
    finally:
        if bar is not None:
            bar.clear()
    print(report.to_json() if args.json else report.render())
    return 1 if report.violations else 0


class ProgressBar:
    """``[#####.....]  37/100 games`` on one line of a terminal, redrawn at most 10 times a
    second and wiped at the end, so the report below it is what stays."""

    WIDTH = 30

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream, self.clock = stream, clock
        self._drawn = -1.0
        self._length = 0

    def show(self, done: int, total: int) -> None:
        now = self.clock()
        if done < total and now - self._drawn < 0.1:
            return
        self._drawn = now
        filled = self.WIDTH * done // max(1, total)
        count = f"{done:>{len(str(total))}}/{total} games"
        text = f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {count}"
        self._length = len(text)
        self.stream.write("\r" + text)
        self.stream.flush()

    def clear(self) -> None:
        if self._length:
            self.stream.write("\r" + " " * self._length + "\r")
            self.stream.flush()
