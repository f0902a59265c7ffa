"""`pageone sim`: many seeded engine-only games, summarised with 95% intervals.

The bots in the line-up move one seat on with every game, so each bot plays each seat equally
often; the report gives the figures per seat (is the table fair?) and per bot (who is stronger?)
separately.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..bots import make_bot
from ..engine.settings import Settings, settings_to_dict
from .referee import Check, play_game

Z95 = 1.959963984540054


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """95% Wilson score interval for a proportion."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + Z95 * Z95 / trials
    centre = (p + Z95 * Z95 / (2 * trials)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / trials + Z95 * Z95 / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Tally:
    """Wins and places of one seat, or of one bot of the line-up, over the games."""

    games: int = 0
    wins: int = 0
    place_sum: int = 0
    decisions: int = 0
    seconds: float = 0.0
    longest: float = 0.0

    def add(self, place: int) -> None:
        self.games += 1
        self.wins += place == 1
        self.place_sum += place

    def figures(self) -> dict[str, Any]:
        lo, hi = wilson(self.wins, self.games)
        return {
            "games": self.games,
            "wins": self.wins,
            "win_rate": round(self.wins / max(1, self.games), 4),
            "ci95": [round(lo, 4), round(hi, 4)],
            "mean_place": round(self.place_sum / max(1, self.games), 3),
        }


@dataclass
class SimReport:
    settings: Settings
    players: int
    seed: int
    bots: list[str]
    check: Check = "sample"
    timed: bool = False
    games: int = 0
    moves: int = 0
    deals: int = 0
    drawn_deals: int = 0
    seats: list[Tally] = field(default_factory=list)
    lineup: list[Tally] = field(default_factory=list)
    violations: Counter[str] = field(default_factory=Counter)

    def bot_figures(self) -> list[dict[str, Any]]:
        out = []
        for index, (name, tally) in enumerate(zip(self.bots, self.lineup, strict=True)):
            row = {"bot": index, "name": name, **tally.figures()}
            if self.timed:
                row["decisions"] = tally.decisions
                row["ms_per_decision"] = round(1000 * tally.seconds / max(1, tally.decisions), 3)
                row["max_ms"] = round(1000 * tally.longest, 1)
            out.append(row)
        return out

    def level_figures(self) -> dict[str, dict[str, Any]]:
        """Per bot level, all its copies together; parity is then copies / players."""
        out: dict[str, dict[str, Any]] = {}
        for name in dict.fromkeys(self.bots):
            merged = Tally()
            copies = 0
            for other, tally in zip(self.bots, self.lineup, strict=True):
                if other == name:
                    copies += 1
                    merged.games += tally.games
                    merged.wins += tally.wins
                    merged.place_sum += tally.place_sum
                    merged.decisions += tally.decisions
                    merged.seconds += tally.seconds
                    merged.longest = max(merged.longest, tally.longest)
            row = {"copies": copies, "parity": round(1 / self.players, 4), **merged.figures()}
            if self.timed:
                row["ms_per_decision"] = round(1000 * merged.seconds / max(1, merged.decisions),
                                               3)
                row["max_ms"] = round(1000 * merged.longest, 1)
            out[name] = row
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "rules": self.settings.family,
            "settings": settings_to_dict(self.settings),
            "players": self.players,
            "seed": self.seed,
            "games": self.games,
            "check": self.check,
            "avg_moves": round(self.moves / max(1, self.games), 2),
            "avg_deals": round(self.deals / max(1, self.games), 3),
            "drawn_deal_rate": round(self.drawn_deals / max(1, self.deals), 4),
            "parity": round(1 / self.players, 4),
            "seats": [{"seat": seat, **t.figures()} for seat, t in enumerate(self.seats)],
            "bots": self.bot_figures(),
            "levels": self.level_figures(),
            "violations": sum(self.violations.values()),
            "violation_kinds": dict(sorted(self.violations.items())),
        }

    def render(self) -> str:
        data = self.as_dict()
        lines = [
            f"rules {data['rules']}, {self.players} players, seed {self.seed}, "
            f"checks: {self.check}",
            f"games played   {data['games']}",
            f"average moves  {data['avg_moves']}",
            f"average deals  {data['avg_deals']}",
            f"drawn deals    {data['drawn_deal_rate']:.1%}",
            "bots move one seat on each game; parity "
            f"{1 / self.players:.3f}",
            "bot  level    wins   win rate  95% interval      mean place"
            + ("  ms/decision  max ms" if self.timed else ""),
        ]
        for row in data["bots"]:
            lines.append(_row(f"{row['bot']:>3}  {row['name']:<7}", row, self.timed))
        lines.append("seat           wins   win rate  95% interval      mean place")
        for row in data["seats"]:
            lines.append(_row(f"{row['seat']:>4}         ", row, False))
        kinds = ", ".join(f"{k} {v}" for k, v in data["violation_kinds"].items()) or "none"
        lines.append(f"invariant violations: {data['violations']} ({kinds})")
        return "\n".join(lines)

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), sort_keys=True)


def _row(head: str, row: dict[str, Any], timed: bool) -> str:
    lo, hi = row["ci95"]
    text = (f"{head} {row['wins']:>5}   {row['win_rate']:.3f}     [{lo:.3f}, {hi:.3f}]    "
            f"{row['mean_place']:.2f}")
    return text + (f"  {row['ms_per_decision']:>10.2f}  {row['max_ms']:>6.1f}" if timed else "")


def seat_bots(names: list[str], players: int) -> list[str]:
    """The line-up: the list as given, its last entry repeated to fill the table."""
    if not names:
        names = ["normal", "random"]
    return [names[min(i, len(names) - 1)] for i in range(players)]


def simulate(
    settings: Settings, players: int, games: int, seed: int, bot_names: list[str],
    check: Check = "sample", clock: Callable[[], float] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SimReport:
    """Play ``games`` seeded games; the same arguments give the same report (timings aside).

    Game ``i`` seats bot ``b`` of the line-up at seat ``(b + i) % players``. ``progress(done,
    games)`` is told after each game."""
    names = seat_bots(bot_names, players)
    bots = [make_bot(name) for name in names]
    settings.check_players(players)
    report = SimReport(settings, players, seed, names, check, clock is not None,
                       seats=[Tally() for _ in range(players)],
                       lineup=[Tally() for _ in range(players)])
    for index in range(games):
        rng = random.Random(f"pageone-sim/{seed}/{index}")
        at_seat = [(seat - index) % players for seat in range(players)]  # bot index per seat
        record = play_game(settings, [bots[b] for b in at_seat], rng, check, clock)
        report.games += 1
        report.moves += record.moves
        report.deals += record.deals
        report.drawn_deals += record.drawn_deals
        report.violations.update(record.violations)
        for seat, bot in enumerate(at_seat):
            place = record.places[seat] if record.places else players
            report.seats[seat].add(place)
            report.lineup[bot].add(place)
            if record.clocks:
                report.lineup[bot].decisions += record.clocks[seat].decisions
                report.lineup[bot].seconds += record.clocks[seat].seconds
                report.lineup[bot].longest = max(report.lineup[bot].longest,
                                                 record.clocks[seat].longest)
        if progress is not None:
            progress(index + 1, games)
    return report
