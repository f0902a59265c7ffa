"""Every script under scripts/ runs here in a smoke mode: the smallest flags that still go
through its whole path (a table played, a figure printed), asserting only that it finishes and
that its ``--json`` parses. A protocol change that breaks a benchmark fails the suite instead of
rotting it. Figures are never asserted here (speed targets are the scripts' own business)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import netns

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
PY = [sys.executable]

# script -> (arguments, seconds allowed, needs network namespaces)
SMOKE: dict[str, tuple[list[str], float, bool]] = {
    "bench_audit.py": (["--deals", "1", "--json"], 120, False),
    "bench_expert.py": (["--games", "2", "--json"], 90, False),
    "byzantine.py": (["--seeds", "2", "--jobs", "1", "--shrink", "0", "--json"], 120, False),
    "bench_deal.py": (["--repeat", "1", "--json"], 60, False),
    "bench_direct_flood.py": (["--seconds", "0.3", "--json"], 60, False),
    "bench_engine.py": (["--seconds", "0.05", "--json"], 60, False),
    "bench_hard.py": (["--games", "2", "--json"], 60, False),
    "bench_sim.py": (["--games", "3", "--json"], 60, False),
    "bench_table.py": (["--deals", "1", "--tables", "1", "--seed", "3", "--json"], 120, False),
    "bench_vs_unproven.py": (["--rounds", "1", "--deals", "1", "--json"], 180, False),
    "bench_watchers.py": (["--watchers", "2", "--deals", "1", "--rounds", "1", "--json"], 90,
                          False),
    "code_shape.py": (["--json"], 60, False),
    "failover.py": (["--runs", "1", "--seats", "4", "--silent-runs", "0", "--impaired-runs",
                     "0", "--json"], 240, True),
    "make_vectors.py": (["--check"], 60, False),
    "silence_sim.py": (["--games", "1", "--factor", "16", "--json"], 90, False),
    "soak.py": (["--hands", "1", "--peers", "2", "--timeout", "60", "--json"], 90, False),
    "strangers.py": (["--deals", "1", "--idle", "5", "--json"], 120, False),
    "lan_soak.sh": (["1", "tests/test_lan.py::test_a_killed_joiner_is_named_and_the_others_"
                          "play_on"], 240, True),
    "tmux_demo.sh": (["--deals", "1", "--think", "0"], 240, True),
}
# A second path of one script, under another name.
VARIANTS: dict[str, tuple[str, list[str], float, bool]] = {
    "strangers.py lan": ("strangers.py", ["lan", "--deals", "1", "--idle", "5", "--rounds", "1",
                                          "--json"], 120, True),
    "bench_table.py --delay": ("bench_table.py", ["--rules", "classic", "--deals", "1",
                                                  "--seed", "3", "--delay", "5", "--loss",
                                                  "0.02", "--breakdown", "--json"], 120,
                                                 False),
}


def test_every_script_has_a_smoke_run() -> None:
    scripts = {path.name for path in SCRIPTS.iterdir() if path.suffix in (".py", ".sh")}
    assert scripts == set(SMOKE), "give every script under scripts/ a smoke run here"


def _command(script: str, args: list[str]) -> list[str]:
    path = SCRIPTS / script
    return ["bash", str(path), *args] if script.endswith(".sh") else [*PY, str(path), *args]


def _run(script: str, args: list[str], seconds: float, namespaces: bool,
         tmp_path: Path) -> None:
    if namespaces and (why := netns.available()):
        pytest.skip(f"{script} makes network namespaces: {why}")
    if script == "tmux_demo.sh" and shutil.which("tmux") is None:
        pytest.skip("tmux_demo.sh needs tmux")
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = {**os.environ, "PATH": path, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path),
           "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "PAGEONE_DEMO_OUT": str(tmp_path / "screens")}
    done = subprocess.run(_command(script, args), cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=seconds)
    assert done.returncode == 0, (f"{script} {' '.join(args)} exited {done.returncode}:\n"
                                  f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    if "--json" in args:
        json.loads(done.stdout)  # one JSON document, nothing else on stdout
    else:
        assert done.stdout.strip(), f"{script} printed nothing"


@pytest.mark.parametrize("script", sorted(SMOKE))
def test_script_smoke(script: str, tmp_path: Path) -> None:
    args, seconds, namespaces = SMOKE[script]
    _run(script, args, seconds, namespaces, tmp_path)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_script_variant_smoke(variant: str, tmp_path: Path) -> None:
    script, args, seconds, namespaces = VARIANTS[variant]
    _run(script, args, seconds, namespaces, tmp_path)
