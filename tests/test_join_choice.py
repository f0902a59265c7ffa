"""`pageone join NAME` when two tables on the LAN share a name: it never picks one silently."""

from __future__ import annotations

import argparse
import asyncio
import io

import pytest

from p2p_pageone.cli import join_cmd
from p2p_pageone.net.discovery import TableAdvert


def advert(nick: str, fingerprint: str, port: int) -> TableAdvert:
    return TableAdvert(name="friday", rules="classic", taken=1, free=3, fingerprint=fingerprint,
                       proto="4", address="127.0.0.1", port=port,
                       service=f"friday-{fingerprint}._pageone._tcp.local.", nick=nick)


@pytest.fixture()
def two_fridays(monkeypatch: pytest.MonkeyPatch) -> list[TableAdvert]:
    tables = [advert("ann", "AAAA-1111", 7001), advert("bob", "BBBB-2222", 7002)]

    async def browse(wait: float, interface: str | None) -> list[TableAdvert]:
        return tables

    monkeypatch.setattr(join_cmd, "browse", browse)
    return tables


def find(table: str) -> TableAdvert | None:
    args = argparse.Namespace(table=table, wait=0.0, interface=None)
    return asyncio.run(join_cmd.find_table(args, "CCCC-3333"))


def test_two_tables_of_one_name_are_listed_with_their_hosts_not_picked(
        two_fridays: list[TableAdvert], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert find("Friday") is None
    out, err = capsys.readouterr()
    assert "host ann AAAA-1111" in out and "host bob BBBB-2222" in out
    assert "pageone join --connect 127.0.0.1:7001" in err


def test_at_a_terminal_the_player_answers_with_a_number(
        two_fridays: list[TableAdvert], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    answers = iter(["friday", "2"])
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert find("friday") == two_fridays[1]
    assert "answer with its number" in capsys.readouterr().out
