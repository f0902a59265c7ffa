"""`pageone sim`: determinism, the JSON shape, and normal beating random."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter

import pytest

from p2p_pageone.cli.main import main
from p2p_pageone.engine import Catch, Game, Move, SeatView, make_settings
from p2p_pageone.sim.referee import SeatClock, _Asker
from p2p_pageone.sim.report import simulate, wilson


def run_cli(args: list[str]) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "p2p_pageone.cli.main", *args],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("rules", ["classic", "qdan"])
def test_same_seed_gives_byte_identical_output(rules: str) -> None:
    args = ["sim", "--rules", rules, "--players", "4", "--games", "30", "--seed", "7", "--json",
            "--no-timing"]
    first, second = run_cli(args), run_cli(args)
    assert first == second
    data = json.loads(first)
    assert data["games"] == 30 and data["violations"] == 0 and data["check"] == "sample"
    for row in data["bots"] + data["seats"] + list(data["levels"].values()):
        assert set(row) >= {"wins", "win_rate", "ci95", "mean_place", "games"}
        lo, hi = row["ci95"]
        assert 0 <= lo <= row["win_rate"] <= hi <= 1
    assert "ms_per_decision" not in data["bots"][0]
    other = run_cli([*args[:8], "8", "--json", "--no-timing"])
    assert other != first


def test_json_reports_ms_per_decision_per_bot() -> None:
    data = json.loads(run_cli(["sim", "--games", "3", "--bots", "normal,random", "--json"]))
    for row in data["bots"]:
        assert row["decisions"] > 0 and row["ms_per_decision"] > 0
    assert set(data["levels"]) == {"normal", "random"}
    assert data["levels"]["random"]["copies"] == 3


def test_bots_move_one_seat_on_each_game() -> None:
    report = simulate(make_settings("qdan"), 4, 8, 2, ["normal", "random"], "none")
    assert [t.games for t in report.lineup] == [8] * 4
    assert [t.games for t in report.seats] == [8] * 4
    assert sum(t.wins for t in report.lineup) == sum(t.wins for t in report.seats) == 8
    # the line-up's first bot sat at every seat twice: its places are the seats' places
    firsts = simulate(make_settings("qdan"), 4, 1, 2, ["normal", "random"], "none")
    assert firsts.lineup[0].place_sum == firsts.seats[0].place_sum


def test_checks_do_not_change_the_games() -> None:
    runs = [simulate(make_settings("classic", {"deals": 2}), 3, 6, 5, ["random"], check).as_dict()
            for check in ("none", "sample", "all")]
    assert runs[0]["seats"] == runs[1]["seats"] == runs[2]["seats"]
    assert runs[0]["avg_moves"] == runs[2]["avg_moves"]
    assert runs[1]["violations"] == runs[2]["violations"] == 0


class Catcher:
    """Catches whenever it can; otherwise plays its first legal move."""

    name = "catcher"

    def choose(self, view: SeatView, rng: random.Random) -> Move | None:
        moves = view.legal_moves()
        catches = [m for m in moves if isinstance(m, Catch)]
        if catches:
            return catches[0]
        return moves[0] if moves and view.turn == view.seat else None


def test_out_of_turn_actions_are_offered_in_a_seeded_random_order() -> None:
    firsts: Counter[int] = Counter()
    for seed in range(30):
        game = Game(make_settings("qdan"), 4, 3)
        views = [SeatView(game, seat) for seat in range(4)]
        clocks = [SeatClock() for _ in range(4)]
        asker = _Asker([Catcher()] * 4, views, [random.Random(0)] * 4, random.Random(seed),
                       clocks, None)
        game.deal_cards(list(range(108)))
        while game.chance is not None:
            game.turn_up(game.deal.known[game.deal.stock[-1]])
        game.deal.open_miss = 2  # as if seat 2 had just missed its call
        move = asker.next_move(game)
        assert isinstance(move, Catch) and move.target == 2
        firsts[move.seat] += 1
    assert set(firsts) == {1, 3}  # never the player to move, nor the one who missed
    assert min(firsts.values()) >= 5


def test_text_report_lists_bots_and_violations(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--rules", "qdan", "--players", "3", "--games", "5", "--seed", "1",
                 "--bots", "random,normal"]) == 0
    out = capsys.readouterr().out
    assert "games played   5" in out and "invariant violations: 0" in out
    assert "normal" in out and "random" in out


def test_bad_arguments_get_clear_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--bots", "genius"]) == 2
    assert "unknown bot 'genius'" in capsys.readouterr().err
    assert main(["sim", "--option", "hand_size=9"]) == 2
    assert "hand_size must be one of 4, 5" in capsys.readouterr().err
    assert main(["sim", "--players", "9"]) == 2
    assert "2 to 6 players" in capsys.readouterr().err


def test_wilson_interval() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("rules", ["classic", "qdan"])
def test_normal_beats_random_clear_of_parity(rules: str) -> None:
    report = simulate(make_settings(rules), 4, 150, 3, ["normal", "random"], "none")
    normal = report.as_dict()["levels"]["normal"]
    assert normal["copies"] == 1 and normal["ci95"][0] > 1 / 4
