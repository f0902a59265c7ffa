"""The Byzantine simulator (protocol/SPEC.md §8): seeded in-memory tables in simulated time, an
adversary controlling the host and/or a coalition of at most half the seats (the host counted),
and the invariants every honest peer must keep. A violation prints its seed and a shrunk list of
the adversary's actions that still breaks it.

    python scripts/byzantine.py --seeds 300 --json
    python scripts/byzantine.py --soak 600
    python scripts/byzantine.py --list-plants
    python scripts/byzantine.py --plant alive-any-position --seeds 300
    python scripts/byzantine.py --seed 17          # one run, told in full
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from p2p_pageone.byzantine.batch import Figures, one_seed, run_seeds
from p2p_pageone.byzantine.plants import PLANTS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=300, help="runs, seeds FIRST.. (300)")
    parser.add_argument("--first", type=int, default=0, help="the first seed (0)")
    parser.add_argument("--seed", type=int, default=None, help="one seed, told in full")
    parser.add_argument("--soak", type=float, default=0.0, help="run on for SECONDS")
    parser.add_argument("--plant", default="", help="re-open a known hole (see --list-plants)")
    parser.add_argument("--list-plants", action="store_true")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--shrink", type=int, default=40, help="runs to spend shrinking one")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.list_plants:
        for name, (text, _) in sorted(PLANTS.items()):
            print(f"{name}: {text}")
        return 0
    if args.plant and args.plant not in PLANTS:
        parser.error(f"no plant named {args.plant!r}; --list-plants shows them")
    if args.seed is not None:
        one = one_seed(args.seed, args.plant, args.shrink)
        print(json.dumps(one, indent=2))
        return 1 if one["violation"] else 0
    figures = _soak(args) if args.soak else run_seeds(
        range(args.first, args.first + args.seeds), args.plant, args.jobs, args.shrink,
        stop_at_first=bool(args.plant))
    _report(figures, args)
    return 1 if figures.violations and not args.plant else 0


def _soak(args: argparse.Namespace) -> Figures:
    total, seed, deadline = Figures(), args.first, time.monotonic() + args.soak
    while time.monotonic() < deadline:
        part = run_seeds(range(seed, seed + 2000), args.plant, args.jobs, args.shrink,
                         until=deadline)
        seed += part.runs
        total.runs += part.runs
        total.violations += part.violations
        total.stalled += part.stalled
        total.actions.update(part.actions)
        total.coalitions.update(part.coalitions)
        total.families.update(part.families)
        total.seconds += part.seconds
    return total


def _report(figures: Figures, args: argparse.Namespace) -> None:
    out: dict[str, Any] = figures.as_json()
    if args.plant:
        out["plant"] = args.plant
        out["found"] = bool(figures.violations)
    if args.json:
        print(json.dumps(out))
        return
    for violation in figures.violations:
        print(f"VIOLATION {','.join(violation['invariants'])} — {violation['scenario']}")
        for line in violation["says"]:
            print(f"  says: {line}")
        for action in violation["actions"]:
            print(f"  action: {action}")
        print(f"  again: python scripts/byzantine.py --seed {violation['seed']}"
              + (f" --plant {args.plant}" if args.plant else ""))
    if figures.stalled:
        print(f"out of scope (a dishonest seat never moves; SPEC §8, \"Open\"): "
              f"{len(figures.stalled)} runs, seeds {figures.stalled[:20]}")
    print(f"{figures.runs} runs, {len(figures.violations)} violations, "
          f"{out['runs_per_second']} runs/s; coalitions (host counted) {out['coalitions']}; "
          f"families {out['families']}; {len(out['actions'])} kinds of action")


if __name__ == "__main__":
    sys.exit(main())
