"""A local Elo table per identity (RULINGS Q12), fed only by logs that pass the audit.

Each table counts once (by its table id). Every pair of players at a table is one Elo game:
the better place wins, a shared place is half a win. The K-factor is split over the opponents,
so a table moves a rating about as much as one game would, whatever the number of players.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .check import Audit

START = 1500.0
K = 32.0


@dataclass
class Rated:
    added: bool
    text: str


def empty() -> dict[str, Any]:
    return {"tables": [], "players": {}}


def load(path: Path) -> dict[str, Any]:
    """The ratings file; a missing one is empty, an unreadable one is an error to show."""
    if not path.exists():
        return empty()
    data = json.loads(path.read_text())
    if not isinstance(data, dict) or not isinstance(data.get("players"), dict) or not isinstance(
            data.get("tables"), list):
        raise ValueError(f"{path} is not a pageone ratings file")
    return data


def save(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def expected(mine: float, theirs: float) -> float:
    return 1.0 / (1.0 + 10 ** ((theirs - mine) / 400.0))


def rate(data: dict[str, Any], audit: Audit) -> Rated:
    """Add one audited table to ``data`` (unless it was counted already)."""
    if not audit.ok or not audit.finished or not audit.places:
        return Rated(False, "not rated: only a log that passes the audit and ends in a result "
                     "counts")
    if audit.table_id in data["tables"]:
        return Rated(False, f"table {audit.table_id} was rated already")
    players = data["players"]
    seats = [(fp, name, audit.places[seat]) for seat, name, fp in audit.players]
    before = {fp: float(players.get(fp, {}).get("rating", START)) for fp, _, _ in seats}
    change = dict.fromkeys(before, 0.0)
    k = K / max(1, len(seats) - 1)
    for fp, _, place in seats:
        for other, _, other_place in seats:
            if other == fp:
                continue
            score = 1.0 if place < other_place else 0.5 if place == other_place else 0.0
            change[fp] += k * (score - expected(before[fp], before[other]))
    for fp, name, _ in seats:
        entry = players.setdefault(fp, {"rating": START, "games": 0})
        entry.update(rating=round(before[fp] + change[fp], 1), games=entry["games"] + 1,
                     name=name)
    data["tables"].append(audit.table_id)
    moves = ", ".join(f"{name} {change[fp]:+.1f}" for fp, name, _ in seats)
    return Rated(True, f"rated table {audit.table_id}: {moves}")


def table_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    rows = [{"fingerprint": fp, "name": p.get("name", ""), "rating": p["rating"],
             "games": p["games"]} for fp, p in data["players"].items()]
    return sorted(rows, key=lambda r: (-r["rating"], r["fingerprint"]))
