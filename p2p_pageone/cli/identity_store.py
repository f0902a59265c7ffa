"""The user's identity on disk: created on first use, owner-only, under the XDG config directory."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from ..crypto.identity import Identity
from ..net.logwriter import local_problem

FILE_NAME = "identity.key"


class IdentityFileError(Exception):
    """The identity file exists but cannot be used; the message says how to fix it."""


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "pageone"


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "pageone"


def load_or_create(directory: Path | None = None) -> Identity:
    """This user's identity; a new one is made (from the OS's randomness) on first use. A
    disk that refuses (full, read-only, no permission) is an ``IdentityFileError`` saying so."""
    folder = directory or config_dir()
    path = folder / FILE_NAME
    try:
        return _load_or_create(folder, path)
    except OSError as error:
        raise IdentityFileError(local_problem(
            f"use this user's identity {path}", error, "free some disk space, or fix the "
            "permissions of that directory (or set XDG_CONFIG_HOME)")) from None


def _load_or_create(folder: Path, path: Path) -> Identity:
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        secret = os.urandom(32)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return _load_or_create(folder, path)  # another process made it just now
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(secret)
        except OSError:  # a full disk: no empty or partial identity is left to trip on later
            with contextlib.suppress(OSError):
                path.unlink()
            raise
        return Identity(secret)
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise IdentityFileError(
            f"{path} can be read by other users; run: chmod 600 {path}"
        )
    secret = path.read_bytes()
    if len(secret) != 32:
        raise IdentityFileError(
            f"{path} is not a pageone identity (32 bytes); move it away to make a new one"
        )
    return Identity(secret)
