"""Hypothesis runs derandomized so the suite is repeatable; HYPOTHESIS_PROFILE=explore searches
with fresh random examples (and more of them). Neither times an example: on a loaded machine a
slow example is no finding (the suite asserts no timings), and its health check failed runs."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("repeatable", derandomize=True, **UNTIMED)
settings.register_profile("explore", max_examples=500, **UNTIMED)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

# The longest tests (two 90 s kill -STOPs, a half table stopped, the message fuzz) go first, one
# in each worker's first chunk of two (pyproject.toml: --dist load --maxschedchunk 2), so that no
# worker is left running one of them alone at the end of the suite.
LONGEST = ("test_the_host_stopped_90_s", "test_a_joiner_stopped_while_the_game_ended",
           "test_when_half_the_table_stopped", "test_a_wrong_message_is_refused_or_names")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    longest = [item for item in items if item.name.startswith(LONGEST)]
    rest = [item for item in items if not item.name.startswith(LONGEST)]
    ordered: list[pytest.Item] = []
    for item in longest:
        ordered += [item, *rest[:1]]
        rest = rest[1:]
    items[:] = ordered + rest
