"""A table's log entries in order, in memory or on disk (issue 9: memory that does not grow).

The fold needs only the number of entries so far and the entry in hand; older entries are read
again only now and then (a joiner sitting down is sent the log so far). So once the log's file
holds them, a peer may let them go: ``read_back`` (set by whoever writes the file,
net/logwriter.py) reads entries back from it, and ``forget(n)`` drops the first ``n`` from memory.
Without ``read_back`` every entry stays in memory, as a list would.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import overload

ReadBack = Callable[[int, int], list[bytes]]  # entries [start, stop) from the file


class EntryLog:
    def __init__(self, entries: Iterable[bytes] = ()) -> None:
        self._recent: list[bytes] = list(entries)
        self._base = 0  # the index of _recent[0]: entries before it are only on disk
        self.read_back: ReadBack | None = None

    def append(self, raw: bytes) -> None:
        self._recent.append(raw)

    def extend(self, entries: Iterable[bytes]) -> None:
        self._recent.extend(entries)

    def forget(self, upto: int) -> None:
        """Let go of the entries before ``upto`` (they are in the file ``read_back`` reads)."""
        if self.read_back is None:
            return
        upto = min(upto, len(self))
        if upto > self._base:
            del self._recent[: upto - self._base]
            self._base = upto

    def in_memory(self) -> int:
        return len(self._recent)

    def __len__(self) -> int:
        return self._base + len(self._recent)

    @overload
    def __getitem__(self, key: int) -> bytes: ...

    @overload
    def __getitem__(self, key: slice) -> list[bytes]: ...

    def __getitem__(self, key: int | slice) -> bytes | list[bytes]:
        if isinstance(key, slice):
            start, stop, step = key.indices(len(self))
            entries = self._range(start, max(start, stop))
            return entries if step == 1 else entries[::step]
        index = key + len(self) if key < 0 else key
        if not 0 <= index < len(self):
            raise IndexError("log index out of range")
        return self._range(index, index + 1)[0]

    def _range(self, start: int, stop: int) -> list[bytes]:
        base = self._base
        recent = self._recent[max(0, start - base) : max(0, stop - base)]
        if start >= base:
            return recent
        assert self.read_back is not None  # entries are forgotten only with a way back
        return self.read_back(start, min(stop, base)) + recent

    def __iter__(self) -> Iterator[bytes]:
        return iter(self[:])

    def index(self, raw: bytes) -> int:
        return self[:].index(raw)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (EntryLog, list)):
            return self[:] == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EntryLog({len(self)} entries, {len(self._recent)} in memory)"
