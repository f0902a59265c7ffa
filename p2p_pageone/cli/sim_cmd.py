"""`pageone sim`."""

from __future__ import annotations

import argparse
import sys

from ..bots import BOTS
from ..engine.settings import SettingError, Settings
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
    try:
        report = simulate(settings, args.players, args.games, args.seed, names,
                          check=not args.no_check)
    except SettingError as error:
        print(f"pageone sim: {error}", file=sys.stderr)
        return 2
    print(report.to_json() if args.json else report.render())
    return 1 if report.violations else 0
