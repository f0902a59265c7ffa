"""Hypothesis: random legal play, any settings, 2–6 players, keeps the invariants and ends."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p_pageone.bots import make_bot
from p2p_pageone.engine import ClassicSettings, QdanSettings
from p2p_pageone.engine.settings import ALLOWED, SettingError
from p2p_pageone.sim.referee import play_game

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def classic_settings(draw: st.DrawFn) -> ClassicSettings:
    options = {key: draw(st.sampled_from(values)) for key, values in ALLOWED["classic"].items()}
    options["deals"] = draw(st.integers(1, 3))
    return ClassicSettings(**options)


@st.composite
def qdan_settings(draw: st.DrawFn) -> QdanSettings:
    options = {key: draw(st.sampled_from(values)) for key, values in ALLOWED["qdan"].items()}
    return QdanSettings(**options)


def _run(rules: ClassicSettings | QdanSettings, players: int, seed: int, mix: list[str]) -> None:
    try:
        rules.check_players(players)
    except SettingError:
        players = 2
    bots = [make_bot(mix[i % len(mix)]) for i in range(players)]
    record = play_game(rules, bots, random.Random(seed), check="all")
    assert not record.violations, record.violations
    assert len(record.places) == players and 1 in record.places
    assert all(1 <= p <= players for p in record.places)


@FAST
@given(classic_settings(), st.integers(2, 6), st.integers(0, 2**32),
       st.lists(st.sampled_from(["random", "normal"]), min_size=1, max_size=3))
def test_classic_random_play_keeps_invariants(
    rules: ClassicSettings, players: int, seed: int, mix: list[str]
) -> None:
    _run(rules, players, seed, mix)


@FAST
@given(qdan_settings(), st.integers(2, 6), st.integers(0, 2**32),
       st.lists(st.sampled_from(["random", "normal"]), min_size=1, max_size=3))
def test_qdan_random_play_keeps_invariants(
    rules: QdanSettings, players: int, seed: int, mix: list[str]
) -> None:
    _run(rules, players, seed, mix)


@FAST
@given(st.integers(2, 6), st.integers(0, 2**32))
def test_qdan_places_are_a_permutation(players: int, seed: int) -> None:
    rules = QdanSettings(hand_limit=10)
    bots = [make_bot("random") for _ in range(players)]
    record = play_game(rules, bots, random.Random(seed), check="none")
    assert sorted(record.places) == list(range(1, players + 1))
