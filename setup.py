"""Compiles the rules engine with mypyc for speed (pure Python with PAGEONE_PURE_PYTHON=1).

The engine is strictly typed, so mypyc builds it as is; the compiled and pure forms give the same
results (the simulator's output is byte-identical). Only the hot modules are compiled. Without
mypyc or a C compiler the install falls back to the pure-Python engine, with a warning.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

COMPILED = [
    "p2p_pageone/engine/cards.py",
    "p2p_pageone/engine/moves.py",
    "p2p_pageone/engine/deal.py",
    "p2p_pageone/engine/classic.py",
    "p2p_pageone/engine/qdan.py",
    "p2p_pageone/engine/game.py",
]


class OptionalBuildExt(build_ext):
    """A failed compile leaves the pure-Python engine in place instead of failing the install."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # no compiler, missing headers, ...
            for path in self.get_outputs():  # never leave half a compiled engine behind
                if os.path.exists(path):
                    os.remove(path)
            print(f"p2p-pageone: compiling the engine failed ({error}); using pure Python",
                  file=sys.stderr)


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


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
