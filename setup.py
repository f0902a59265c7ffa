"""Compiles the rules engine with mypyc for speed, and the deck's batch multiplier (a small C
module that runs many libsecp256k1 multiplications on several cores); PAGEONE_PURE_PYTHON=1
skips both.

The engine is strictly typed, so mypyc builds it as is; the compiled and pure forms give the same
results (the simulator's output is byte-identical). Only the hot modules are compiled. Without
mypyc or a C compiler the install falls back to the pure-Python engine and one multiplication at
a time, with a warning.
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

BATCH = "p2p_pageone.crypto._batch"

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

    def build_extension(self, ext: Extension) -> None:
        if ext.name != BATCH:
            super().build_extension(ext)
            return
        try:
            super().build_extension(ext)
        except Exception as error:  # the deck then multiplies one point at a time
            print(f"p2p-pageone: compiling the batch multiplier failed ({error}); the deck "
                  "multiplies on one core", file=sys.stderr)

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
    batch = Extension(BATCH, ["p2p_pageone/crypto/_batch.c"], extra_compile_args=["-O2"],
                      libraries=["pthread"])
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("p2p-pageone: mypyc not available, installing the pure-Python engine",
              file=sys.stderr)
        return [batch]
    return [*mypycify(COMPILED, opt_level="3"), batch]


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
