"""Known holes, re-opened in memory (``--plant NAME``), to show the simulator finds what it is
for: each must make a run report a violation."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

PLANTS: dict[str, tuple[str, Callable[[], list[tuple[Any, str, Any]]]]] = {}


def plant(name: str, text: str) -> Callable[[Callable[[], list[tuple[Any, str, Any]]]],
                                              Callable[[], list[tuple[Any, str, Any]]]]:
    def register(make: Callable[[], list[tuple[Any, str, Any]]]
                 ) -> Callable[[], list[tuple[Any, str, Any]]]:
        PLANTS[name] = (text, make)
        return make
    return register


def everywhere(function: Any, replacement: Any) -> list[tuple[Any, str, Any]]:
    """Every loaded module's name bound to ``function``, to be bound to ``replacement``."""
    found = []
    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith("p2p_pageone"):
            continue
        for attr, value in list(vars(module).items()):
            if value is function:
                found.append((module, attr, replacement))
    return found


@contextlib.contextmanager
def planted(name: str) -> Iterator[None]:
    if not name:
        yield
        return
    if name not in PLANTS:
        raise KeyError(f"no plant named {name!r}: try one of {', '.join(sorted(PLANTS))}")
    patches = PLANTS[name][1]()
    saved = [(module, attr, getattr(module, attr)) for module, attr, _ in patches]
    for module, attr, value in patches:
        setattr(module, attr, value)
    try:
        yield
    finally:
        for module, attr, value in saved:
            setattr(module, attr, value)


from . import holes as _holes  # noqa: E402,F401  (registers the plants)
