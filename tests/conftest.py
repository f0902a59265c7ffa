"""Hypothesis runs derandomized so the suite is repeatable; HYPOTHESIS_PROFILE=explore searches
with fresh random examples (and more of them)."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))
