"""A joiner's hand seeds on disk for the life of a table (protocol/SPEC.md §7, "Reconnect").

One file per table and identity, owner-only, under the data directory: the same user running
the same ``pageone join`` after a crash finds the seeds its seat committed to, so it can open its
cards and reveal at the hand's end. Deleted when the table is over for this seat; a file left by a
killed process is useless once the table is over (its seeds are revealed, or of a void hand) and
is swept away after a day.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from .identity_store import data_dir

RECORD = 4 + 32  # hand number, big-endian, then the seed
SWEEP_AFTER = 24 * 3600.0


def seeds_dir() -> Path:
    return data_dir() / "tables"


class SeedFile:
    """``load``/``save`` as ``session.peer.SeedStore`` asks; ``forget`` deletes the file."""

    def __init__(self, fingerprint: str, directory: Path | None = None) -> None:
        self.folder = directory or seeds_dir()
        self.fingerprint = fingerprint
        self.path: Path | None = None  # once a table is known

    def _path(self, table: bytes) -> Path:
        self.path = self.folder / f"{table.hex()}-{self.fingerprint}.seeds"
        return self.path

    def load(self, table: bytes, hand: int) -> bytes | None:
        try:
            data = self._path(table).read_bytes()
        except OSError:
            return None
        found = None
        for start in range(0, len(data) - RECORD + 1, RECORD):  # a cut last record is ignored
            if int.from_bytes(data[start:start + 4], "big") == hand:
                found = data[start + 4:start + RECORD]
        return found

    def save(self, table: bytes, hand: int, seed: bytes) -> str:
        path = self._path(table)
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
            try:
                os.fchmod(fd, 0o600)  # owner-only, whatever the umask or an older file said
                os.write(fd, hand.to_bytes(4, "big") + seed)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as error:
            return f"{path}: {error.strerror or error}"
        return ""

    def forget(self) -> None:
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.unlink()


def sweep(directory: Path | None = None, now: float | None = None) -> None:
    """Delete seed files nobody touched for a day: their tables are over."""
    folder = directory or seeds_dir()
    limit = (time.time() if now is None else now) - SWEEP_AFTER
    with contextlib.suppress(OSError):
        for path in folder.glob("*.seeds"):
            with contextlib.suppress(OSError):
                if path.stat().st_mtime < limit:
                    path.unlink()
