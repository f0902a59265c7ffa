#!/usr/bin/env python3
"""Simulator games per second, with the referee's checks sampled (the default), all, or none.

    python scripts/bench_sim.py [--json] [--games N] [--bots random]

Target (issue 10): the checked run (``--check sample``) plays at least 100 classic 4-player
games a second. Both wall-clock and CPU time are printed: on a shared machine the CPU figure
is the one that says what the code costs.
"""

from __future__ import annotations

import argparse
import json
import time

from p2p_pageone.engine import make_settings
from p2p_pageone.sim.referee import Check
from p2p_pageone.sim.report import simulate

TARGET_CHECKED = 100.0


def measure(family: str, players: int, games: int, bots: str, check: Check) -> dict[str, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    report = simulate(make_settings(family), players, games, 1, bots.split(","), check)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"rules": family, "players": players, "bots": bots, "check": check, "games": games,
            "games_per_s_wall": round(games / wall, 1), "games_per_s_cpu": round(games / cpu, 1),
            "avg_moves": report.as_dict()["avg_moves"],
            "violations": sum(report.violations.values())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--bots", default="random")
    args = parser.parse_args()
    rows = [measure(family, 4, args.games, args.bots, check)
            for family in ("classic", "qdan") for check in ("sample", "none", "all")
            if check != "all" or family == "classic"]
    if args.json:
        print(json.dumps({"target_checked_classic_4p": TARGET_CHECKED, "runs": rows}))
        return
    print(f"{'rules':8} {'check':7} {'games':>6} {'games/s wall':>13} {'games/s cpu':>12}"
          f" {'moves/game':>11}")
    for row in rows:
        print(f"{row['rules']!s:8} {row['check']!s:7} {row['games']!s:>6} "
              f"{row['games_per_s_wall']!s:>13} {row['games_per_s_cpu']!s:>12} "
              f"{row['avg_moves']!s:>11}")
    checked = next(r for r in rows if r["rules"] == "classic" and r["check"] == "sample")
    print(f"target: checked classic 4-player runs at >= {TARGET_CHECKED:.0f} games/s "
          f"(cpu {checked['games_per_s_cpu']})")


if __name__ == "__main__":
    main()
