"""Compiles the rules engine with mypyc for speed (pure Python with PAGEONE_PURE_PYTHON=1).

The engine is strictly typed, so mypyc builds it as is; the compiled and pure forms pass the same
tests. Only the hot modules are compiled; everything else stays pure Python.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup

COMPILED = [
    "p2p_pageone/engine/cards.py",
    "p2p_pageone/engine/moves.py",
    "p2p_pageone/engine/deal.py",
    "p2p_pageone/engine/classic.py",
    "p2p_pageone/engine/qdan.py",
    "p2p_pageone/engine/game.py",
]


def extensions() -> list[object]:
    if os.environ.get("PAGEONE_PURE_PYTHON"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("p2p-pageone: mypyc not available, installing the pure-Python engine",
              file=sys.stderr)
        return []
    return list(mypycify(COMPILED, opt_level="3"))


setup(ext_modules=extensions())
