"""Many seeds, on one or more processes: the figures ``scripts/byzantine.py`` prints."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .plants import planted
from .runner import run, shrink
from .scenario import make


@dataclass
class Figures:
    runs: int = 0
    violations: list[dict[str, Any]] = field(default_factory=list)
    actions: Counter[str] = field(default_factory=Counter)
    coalitions: Counter[int] = field(default_factory=Counter)
    families: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    stalled: list[int] = field(default_factory=list)  # seeds out of scope: a seat never moves

    def add(self, one: dict[str, Any]) -> None:
        self.runs += 1
        self.actions.update(one["actions"])
        self.coalitions[one["coalition"]] += 1
        self.families[one["family"]] += 1
        if one["violation"] is not None:
            self.violations.append(one["violation"])
        if one.get("stalled"):
            self.stalled.append(one["seed"])

    def as_json(self) -> dict[str, Any]:
        return {"runs": self.runs, "violations": self.violations,
                "actions": dict(sorted(self.actions.items())),
                "coalitions": {str(k): v for k, v in sorted(self.coalitions.items())},
                "families": dict(sorted(self.families.items())),
                "out_of_scope": {"never_moves": len(self.stalled), "seeds": self.stalled[:20]},
                "runs_per_second": round(self.runs / self.seconds, 2) if self.seconds else 0.0,
                "seconds": round(self.seconds, 1)}


def one_seed(seed: int, plant: str = "", shrink_budget: int = 40) -> dict[str, Any]:
    """Run seed ``seed`` (with ``plant`` re-opened): a summary, with the shrunk plan if it
    broke an invariant."""
    scenario = make(seed)
    with planted(plant):
        result = run(scenario)
        violation = None
        if result.verdicts:
            plan = shrink(scenario, result, shrink_budget) if shrink_budget else result.fired
            violation = {"seed": seed, "scenario": scenario.show(),
                         "invariants": sorted({v.invariant for v in result.verdicts}),
                         "says": [v.text[:300] for v in result.verdicts[:4]],
                         "actions": [a.show() for a in plan]}
    return {"actions": [a.kind for a in result.fired], "coalition": len(scenario.corrupt),
            "family": scenario.family, "violation": violation, "seed": seed,
            "stalled": result.stalled}


def _one(args: tuple[int, str, int]) -> dict[str, Any]:
    return one_seed(*args)


def run_seeds(seeds: Iterable[int], plant: str = "", jobs: int = 1, shrink_budget: int = 40,
              until: float = 0.0, stop_at_first: bool = False,
              progress: Callable[[dict[str, Any]], None] | None = None) -> Figures:
    """``until``: a wall-clock deadline (``time.monotonic``), 0 for none."""
    figures, start = Figures(), time.monotonic()
    work = ((seed, plant, shrink_budget) for seed in seeds)
    if jobs <= 1:
        results: Iterable[dict[str, Any]] = map(_one, work)
        _gather(figures, results, until, stop_at_first, progress)
    else:
        with ProcessPoolExecutor(jobs) as pool:
            _gather(figures, pool.map(_one, work, chunksize=4), until, stop_at_first, progress)
            pool.shutdown(cancel_futures=True)
    figures.seconds = time.monotonic() - start
    return figures


def _gather(figures: Figures, results: Iterable[dict[str, Any]], until: float,
            stop_at_first: bool, progress: Callable[[dict[str, Any]], None] | None) -> None:
    for one in results:
        figures.add(one)
        if progress is not None:
            progress(one)
        if (until and time.monotonic() > until) or (stop_at_first and figures.violations):
            break
