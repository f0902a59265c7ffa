"""`pageone sim`."""

from __future__ import annotations

import argparse
import sys
import time

from ..bots import BOTS
from ..engine.settings import SettingError, Settings
from ..sim.referee import Check
from ..sim.report import simulate


def run_sim(args: argparse.Namespace, settings: Settings) -> int:
    names = [n.strip() for n in args.bots.split(",") if n.strip()]
    unknown = [n for n in names if n not in BOTS]
    if unknown:
        print(f"pageone sim: unknown bot {unknown[0]!r}; choose from {', '.join(BOTS)}",
              file=sys.stderr)
        return 2
    if args.games < 1:
        print("pageone sim: --games must be at least 1", file=sys.stderr)
        return 2
    check: Check = "none" if args.no_check else args.check
    clock = None if args.no_timing else time.perf_counter
    try:
        report = simulate(settings, args.players, args.games, args.seed, names, check, clock)
    except SettingError as error:
        print(f"pageone sim: {error}", file=sys.stderr)
        return 2
    print(report.to_json() if args.json else report.render())
    return 1 if report.violations else 0
