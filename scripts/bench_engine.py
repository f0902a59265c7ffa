#!/usr/bin/env python3
"""Engine-only games per second with random players (every move verified by the engine).

    python scripts/bench_engine.py [--json] [--seconds S]

Reference point (issue 2): RLCard's UNO environment with random agents runs about 780 games/s on
this kind of machine; the target for 2-player qdan is at least twice that.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from p2p_pageone.engine import Game, make_settings
from p2p_pageone.sim.referee import resolve_chance

RLCARD_UNO_GAMES_PER_S = 780


def random_game(family: str, players: int, rng: random.Random) -> int:
    """One game between uniformly random players; returns the number of moves."""
    game = Game(make_settings(family), players, rng.randrange(players))
    moves = 0
    while not game.over:
        if game.chance is not None:
            resolve_chance(game, rng)
            continue
        deal = game.deal
        options = deal.legal_moves(deal.turn)
        game.apply(options[rng.randrange(len(options))])
        moves += 1
    return moves


def measure(family: str, players: int, seconds: float) -> dict[str, object]:
    rng = random.Random(12345)
    games = moves = 0
    start = time.perf_counter()
    while True:
        moves += random_game(family, players, rng)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds and games >= 20:
            break
    return {
        "rules": family,
        "players": players,
        "games_per_s": round(games / elapsed, 1),
        "moves_per_game": round(moves / games, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON list")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per row (default 3)")
    args = parser.parse_args()
    rows = [measure(f, n, args.seconds) for f in ("classic", "qdan") for n in (2, 4)]
    if args.json:
        print(json.dumps(rows))
        return
    print(f"{'rules':8} {'players':>7} {'games/s':>10} {'moves/game':>11}")
    for row in rows:
        print(f"{row['rules']:8} {row['players']:>7} {row['games_per_s']:>10} "
              f"{row['moves_per_game']:>11}")
    qdan2 = next(r for r in rows if r["rules"] == "qdan" and r["players"] == 2)
    ratio = float(qdan2["games_per_s"]) / RLCARD_UNO_GAMES_PER_S  # type: ignore[arg-type]
    print(f"2-player qdan vs RLCard UNO (~{RLCARD_UNO_GAMES_PER_S} games/s): {ratio:.2f}x "
          "(target 2x)")


if __name__ == "__main__":
    main()
