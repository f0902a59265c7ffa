"""`pageone sim`: determinism, the JSON shape, and normal beating random."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from p2p_pageone.cli.main import main
from p2p_pageone.engine import make_settings
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
    args = ["sim", "--rules", rules, "--players", "4", "--games", "30", "--seed", "7", "--json"]
    first, second = run_cli(args), run_cli(args)
    assert first == second
    data = json.loads(first)
    assert data["games"] == 30 and data["violations"] == 0
    for bot in data["bots"]:
        assert set(bot) >= {"name", "seat", "wins", "win_rate", "ci95"}
        lo, hi = bot["ci95"]
        assert 0 <= lo <= bot["win_rate"] <= hi <= 1
    other = run_cli([*args[:-2], "8", "--json"])
    assert other != first


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
    report = simulate(make_settings(rules), 4, 150, 3, ["normal", "random"], check=False)
    data = report.as_dict()
    normal = data["bots"][0]
    assert normal["name"] == "normal"
    assert normal["ci95"][0] > 1 / 4
