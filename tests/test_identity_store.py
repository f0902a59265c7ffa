"""The identity file: made once, owner-only, refused when others can read it."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from p2p_pageone.cli.identity_store import IdentityFileError, load_or_create


def test_created_once_with_owner_only_permissions(tmp_path: Path) -> None:
    first = load_or_create(tmp_path / "cfg")
    path = tmp_path / "cfg" / "identity.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "cfg").stat().st_mode) == 0o700
    assert load_or_create(tmp_path / "cfg").public == first.public


def test_uses_xdg_config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    load_or_create()
    assert (tmp_path / "pageone" / "identity.key").exists()


def test_readable_by_others_is_refused_with_the_fix(tmp_path: Path) -> None:
    load_or_create(tmp_path)
    path = tmp_path / "identity.key"
    path.chmod(0o644)
    with pytest.raises(IdentityFileError, match="chmod 600"):
        load_or_create(tmp_path)


def test_corrupt_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "identity.key"
    path.write_bytes(b"short")
    path.chmod(0o600)
    with pytest.raises(IdentityFileError, match="not a pageone identity"):
        load_or_create(tmp_path)
