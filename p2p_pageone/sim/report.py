"""`pageone sim`: many seeded engine-only games, summarised with 95% intervals."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..bots import make_bot
from ..engine.settings import Settings, settings_to_dict
from .referee import play_game

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
class SimReport:
    settings: Settings
    players: int
    seed: int
    bots: list[str]
    games: int = 0
    moves: int = 0
    deals: int = 0
    drawn_deals: int = 0
    wins: list[int] = field(default_factory=list)
    place_sums: list[int] = field(default_factory=list)
    violations: Counter[str] = field(default_factory=Counter)

    def as_dict(self) -> dict[str, Any]:
        bots = []
        for seat, name in enumerate(self.bots):
            lo, hi = wilson(self.wins[seat], self.games)
            bots.append({
                "name": name,
                "seat": seat,
                "wins": self.wins[seat],
                "win_rate": round(self.wins[seat] / max(1, self.games), 4),
                "ci95": [round(lo, 4), round(hi, 4)],
                "mean_place": round(self.place_sums[seat] / max(1, self.games), 3),
            })
        return {
            "rules": self.settings.family,
            "settings": settings_to_dict(self.settings),
            "players": self.players,
            "seed": self.seed,
            "games": self.games,
            "avg_moves": round(self.moves / max(1, self.games), 2),
            "avg_deals": round(self.deals / max(1, self.games), 3),
            "drawn_deal_rate": round(self.drawn_deals / max(1, self.deals), 4),
            "bots": bots,
            "violations": sum(self.violations.values()),
            "violation_kinds": dict(sorted(self.violations.items())),
        }

    def render(self) -> str:
        data = self.as_dict()
        lines = [
            f"rules {data['rules']}, {self.players} players, seed {self.seed}",
            f"games played   {data['games']}",
            f"average moves  {data['avg_moves']}",
            f"average deals  {data['avg_deals']}",
            "seat  bot      wins   win rate  95% interval      mean place",
        ]
        for bot in data["bots"]:
            lo, hi = bot["ci95"]
            lines.append(
                f"{bot['seat']:>4}  {bot['name']:<7} {bot['wins']:>5}   {bot['win_rate']:.3f}"
                f"     [{lo:.3f}, {hi:.3f}]    {bot['mean_place']:.2f}"
            )
        lines.append(f"chance of a win at parity: {1 / self.players:.3f}")
        kinds = ", ".join(f"{k} {v}" for k, v in data["violation_kinds"].items()) or "none"
        lines.append(f"invariant violations: {data['violations']} ({kinds})")
        return "\n".join(lines)

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), sort_keys=True)


def seat_bots(names: list[str], players: int) -> list[str]:
    """The bot per seat: the list as given, its last entry repeated to fill the table."""
    if not names:
        names = ["normal", "random"]
    return [names[min(i, len(names) - 1)] for i in range(players)]


def simulate(
    settings: Settings, players: int, games: int, seed: int, bot_names: list[str],
    check: bool = True,
) -> SimReport:
    """Play ``games`` seeded games; the same arguments always give the same report."""
    names = seat_bots(bot_names, players)
    bots = [make_bot(name) for name in names]
    settings.check_players(players)
    report = SimReport(settings, players, seed, names, wins=[0] * players,
                       place_sums=[0] * players)
    for index in range(games):
        rng = random.Random(f"pageone-sim/{seed}/{index}")
        record = play_game(settings, bots, rng, check)
        report.games += 1
        report.moves += record.moves
        report.deals += record.deals
        report.drawn_deals += record.drawn_deals
        report.violations.update(record.violations)
        for seat in range(players):
            place = record.places[seat] if record.places else players
            report.place_sums[seat] += place
            report.wins[seat] += place == 1
    return report
