#!/usr/bin/env python3
"""The proven deck's 4-peer classic hand beside the unproven deck's, same rules, same machine.

    python scripts/bench_vs_unproven.py [--json] [--rounds R] [--deals D] [--option KEY=VALUE]

Checks the last commit before the proven deck (``--rev``, default the P-256 commit-reveal deck
of 7efb2d9) out into a temporary git worktree and runs its own ``scripts/bench_table.py``
``measure`` beside this tree's, alternating the two R times (so a busy spell of the machine
hits both), each a table of D random classic deals. Both run every peer in one process over
loopback TCP, as ``pageone host --bots 3`` does. Figures: wall and process seconds per hand
(mean and standard deviation over the rounds), log entries per hand, and wall milliseconds
per log entry (hands differ in length with their random deals; per entry they compare). The
rules are the same for both (the unproven commit already had the exhausted-stock rule
``exhausted=pass``); pass ``--option exhausted=drawn`` for the rule under which the 0.8 s
reference was first taken.
Needs the git history (a clone, not an archive).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNPROVEN = "7efb2d93abec43ff7af3273df4e8733feb0f3d46"

# Run in a fresh interpreter with the tree under test first on the path; prints one JSON row.
PROGRAM = """
import json, sys, time
tree, deals, options = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
sys.path[:0] = [tree, tree + "/scripts"]
import bench_table
cpu = time.process_time()
row = bench_table.measure("classic", 4, {"deals": deals, **options})
cpu = time.process_time() - cpu
import p2p_pageone
assert p2p_pageone.__file__.startswith(tree), p2p_pageone.__file__
entries = row["log_entries"] / row["hands"]
print(json.dumps({"wall": row["seconds_per_hand"], "cpu": round(cpu / row["hands"], 4),
                  "entries": entries, "ms_per_entry": 1000 * row["seconds_per_hand"] / entries}))
"""


def run_one(tree: Path, deals: int, options: dict[str, str]) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", PROGRAM, str(tree), str(deals),
                           json.dumps(options)], capture_output=True, text=True, cwd=tree,
                          check=False)
    if done.returncode:
        raise SystemExit(f"bench_vs_unproven: the run in {tree} failed:\n{done.stderr}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def summary(rows: list[dict[str, float]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for key in ("wall", "cpu", "entries", "ms_per_entry"):
        values = [r[key] for r in rows]
        out[key] = round(statistics.mean(values), 4)
        out[f"{key}_sd"] = round(statistics.stdev(values), 4) if len(values) > 1 else 0.0
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--rev", default=UNPROVEN, help="the unproven commit to compare with")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    options = dict(option.split("=", 1) for option in args.option if "=" in option)
    if len(options) != len(args.option) or args.rounds < 1 or args.deals < 1:
        parser.error("--option takes KEY=VALUE; --rounds and --deals at least 1")
    results: dict[str, list[dict[str, float]]] = {"unproven": [], "proven": []}
    with tempfile.TemporaryDirectory(prefix="pageone-unproven-") as scratch:
        old = Path(scratch) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet",
                        str(old), args.rev], check=True)
        try:
            for _ in range(args.rounds):
                results["unproven"].append(run_one(old, args.deals, options))
                results["proven"].append(run_one(ROOT, args.deals, options))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)],
                           check=False)
    rows = {name: summary(runs) for name, runs in results.items()}
    if args.json:
        print(json.dumps({"rounds": args.rounds, "deals": args.deals, "options": options,
                          "rev": args.rev, **rows}))
        return
    print(f"4-peer classic, {args.rounds} x {args.deals} random deals each, options {options}")
    print(f"{'deck':9} {'wall s/hand':>13} {'cpu s/hand':>13} {'log entries/hand':>17} "
          f"{'wall ms/entry':>14}")
    for name, row in rows.items():
        print(f"{name:9} {row['wall']:>6} ±{row['wall_sd']:<6} {row['cpu']:>6} ±{row['cpu_sd']:<6}"
              f" {row['entries']:>10.1f} ±{row['entries_sd']:<5} {row['ms_per_entry']:>7.3f} "
              f"±{row['ms_per_entry_sd']:<5}")
    print("a hand's length (moves, draws, reshuffles) varies with its random deal: compare the "
          "time per log entry, or run more rounds")


if __name__ == "__main__":
    main()
