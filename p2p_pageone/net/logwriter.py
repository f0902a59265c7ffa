"""The table's log on this machine's disk, and what happens when the disk says no.

A failure to write is this machine's problem, never the network's or a peer's: ``LocalFault``
is deliberately not an ``OSError``, so no code that handles a dropped connection can take it
for one (and sign a timeout against an innocent peer).
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from ..session.fold.entrylog import EntryLog
from ..wire.codec import frame

WHAT = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENOTDIR: "a part of the path is a file, not a directory",
    errno.EIO: "the disk reported an input/output error",
}


class LocalFault(Exception):
    """This machine cannot do its part (its disk, its files, its ports): no peer is to blame."""


def local_problem(doing: str, error: OSError, advice: str) -> str:
    what = WHAT.get(error.errno or 0, error.strerror or str(error))
    return (f"cannot {doing}: {what}. This is a problem of this machine, not of the table or "
            f"of any player: {advice}")


def check_writable(directory: Path, advice: str) -> None:
    """Before joining anything: the log can be created where it will go (``LocalFault`` if not)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / f".pageone-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as error:
        raise LocalFault(local_problem(f"write the table's log in {directory}", error,
                                       advice)) from None



class Logged(Protocol):
    """What the writer reads: the log as folded (a peer's, an audit's, a watcher's)."""

    log: EntryLog

class LogWriter:
    """Appends the table's log entries, framed, to a file as they arrive.

    The file is created on the first entry, never over an existing one: ``path`` may be a function
    of the session, called then (a joiner learns the table's id from the log's first entry). A
    start that fails before any entry leaves no file, and neither does a disk that takes no
    whole entry (the file is removed). Whole frames only: if the disk refuses part
    of a write, the file is cut back to the last whole entry, so it stays a readable log.
    """

    def __init__(self, path: Path | Callable[[Any], Path]) -> None:
        self._where = path
        self.path: Path | None = path if isinstance(path, Path) else None
        self._fd = -1
        self._written = 0  # entries in the file
        self._size = 0  # bytes of whole entries in the file
        self.failed = ""  # why this machine could not write the log, once it could not
        self._cursor = (0, 0)  # (entry, byte offset) where the last read back ended

    def _open(self, session: Logged) -> None:
        path = self._where if isinstance(self._where, Path) else self._where(session)
        path.parent.mkdir(parents=True, exist_ok=True)
        stem, n = path, 1
        while True:
            try:
                self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
                break
            except FileExistsError:
                n += 1
                path = stem.with_name(f"{stem.stem}-{n}{stem.suffix}")
        self.path = path

    def _write_some(self, data: bytes) -> int:
        """One write; it may take only part of ``data`` (a nearly full disk)."""
        return os.write(self._fd, data)

    def sync(self, session: Logged) -> None:
        """Write the entries not yet written; ``LocalFault`` (once) if this machine cannot."""
        new = session.log[self._written :]
        if not new or self.failed:
            return
        frames = [frame(raw) for raw in new]
        done = 0
        try:
            if self._fd < 0:
                self._open(session)
            data = b"".join(frames)
            while done < len(data):
                done += self._write_some(data[done:])
        except OSError as error:
            self._keep_whole(frames, done)
            where = self.path or "its place"
            self.failed = local_problem(f"write the table's log {where}", error,
                                        "free some disk space, or choose another place with "
                                        "--log, and check the log's directory can be written")
            self._remove_if_empty()
            raise LocalFault(self.failed) from None
        self._written += len(new)
        self._size += done
        session.log.read_back = self.read_back  # the file holds them: memory need not
        session.log.forget(self._written)

    def read_back(self, start: int, stop: int) -> list[bytes]:
        """Entries [start, stop) from the file (a joiner sitting down is sent the log so far; a
        returning peer checks the log sent again against its own, entry by entry, so reading on
        from where the last read ended starts there). A file this pageone cannot read back is
        this machine's fault."""
        assert self.path is not None
        index, offset = self._cursor if self._cursor[0] <= start else (0, 0)
        entries: list[bytes] = []
        try:
            with self.path.open("rb") as file:
                file.seek(offset)
                while index < stop:
                    header = file.read(4)
                    if len(header) < 4:
                        break
                    size = int.from_bytes(header, "big")
                    if index < start:
                        file.seek(size, os.SEEK_CUR)
                    else:
                        entries.append(file.read(size))
                    index += 1
                self._cursor = (index, file.tell())
        except OSError as error:
            raise LocalFault(local_problem(f"read the table's log {self.path} back", error,
                                           "check the log's file is still there")) from None
        if len(entries) != stop - start:
            raise LocalFault(f"the table's log {self.path} was cut short while this pageone "
                             "was running: it cannot read its own entries back")
        return entries

    def _keep_whole(self, frames: list[bytes], done: int) -> None:
        """Cut a frame the disk took only part of: the file ends with a whole entry."""
        whole = 0
        for piece in frames:
            if whole + len(piece) > done:
                break
            whole += len(piece)
            self._written += 1
        self._size += whole
        if self._fd >= 0 and whole < done:
            # if even this fails, the audit reports a cut frame as a damaged file, naming nobody
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self._size)

    def _remove_if_empty(self) -> None:
        """Not one whole entry made it to the file (a full disk at the first entry): no file is
        left behind, not even an empty one, and no log is named at the exit."""
        if self._fd < 0 or self._size > 0:
            return
        os.close(self._fd)
        self._fd = -1
        if self.path is not None:
            with contextlib.suppress(OSError):  # then it stays empty: the audit says so
                self.path.unlink()
            self.path = None

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
