#!/usr/bin/env python3
"""The ``hard`` CPU against ``normal``: win rate with its 95% interval, and time per decision.

    python scripts/bench_hard.py [--json] [--games N] [--seed S] [--rules classic,qdan]

One ``hard`` and three ``normal`` players, 4 seats, rotated every game. Target (issue 10): over
2,000 games the interval lies above parity (0.25) in both families, at no more than 50 ms per
decision on average. Smaller runs (the default 200) are for tuning; their intervals are wide.
"""

from __future__ import annotations

import argparse
import json
import time

from p2p_pageone.engine import make_settings
from p2p_pageone.sim.report import simulate

MAX_MS_PER_DECISION = 50.0


def measure(family: str, games: int, seed: int) -> dict[str, object]:
    report = simulate(make_settings(family), 4, games, seed, ["hard", "normal"], "none",
                      time.perf_counter)
    levels = report.as_dict()["levels"]
    hard, normal = levels["hard"], levels["normal"]
    return {"rules": family, "games": games, "seed": seed, "parity": 0.25,
            "hard_win_rate": hard["win_rate"], "hard_ci95": hard["ci95"],
            "hard_mean_place": hard["mean_place"], "hard_ms_per_decision": hard["ms_per_decision"],
            "normal_ms_per_decision": normal["ms_per_decision"],
            "clear_of_parity": hard["ci95"][0] > 0.25,
            "within_time": hard["ms_per_decision"] <= MAX_MS_PER_DECISION}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rules", default="classic,qdan")
    args = parser.parse_args()
    rows = [measure(family, args.games, args.seed) for family in args.rules.split(",")]
    if args.json:
        print(json.dumps({"runs": rows}))
        return
    for row in rows:
        lo, hi = row["hard_ci95"]  # type: ignore[misc]
        print(f"{row['rules']:8} {row['games']} games: hard wins {row['hard_win_rate']:.3f} "
              f"[{lo:.3f}, {hi:.3f}] (parity 0.250), mean place {row['hard_mean_place']}, "
              f"{row['hard_ms_per_decision']:.1f} ms per decision")


if __name__ == "__main__":
    main()
