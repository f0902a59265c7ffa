"""Re-open a known hole for the length of a run (``holes.PLANTS``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from .holes import PLANTS

__all__ = ["PLANTS", "planted"]


@contextlib.contextmanager
def planted(name: str) -> Iterator[None]:
    if not name:
        yield
        return
    if name not in PLANTS:
        raise KeyError(f"no plant named {name!r}: try one of {', '.join(sorted(PLANTS))}")
    patches = PLANTS[name][1]()
    saved = [(where, key, where[key] if isinstance(where, dict) else getattr(where, key))
             for where, key, _ in patches]
    _put(patches)
    try:
        yield
    finally:
        _put(saved)


def _put(patches: list[tuple[object, str, object]]) -> None:
    for where, key, value in patches:
        if isinstance(where, dict):
            where[key] = value
        else:
            setattr(where, key, value)
