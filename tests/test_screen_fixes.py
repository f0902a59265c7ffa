"""The newcomer's tmux trial of issue 20 (screen fixes): nothing printed under the table screen,
no NBSP underline, "you" everywhere for the player's own seat, playable marks from the engine's
legal moves, one form for draws, and the smaller wording fixes."""

from __future__ import annotations

import argparse
import asyncio
import os

import pytest

from p2p_pageone.cli import table_cmds
from p2p_pageone.cli.table_cmds import TakeoverAdvert
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.net.discovery import Advertiser
from p2p_pageone.session.peer import PeerSession


def _session(name: str = "bob") -> PeerSession:
    return PeerSession(Identity(os.urandom(32)), name, os.urandom)


@pytest.mark.parametrize("works", [True, False])
def test_a_takeover_advert_is_told_through_the_terminal_never_printed(
        monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], works: bool) -> None:
    """A joiner that took the table over advertises it while its table screen is up: a print()
    there garbles the screen, so both the success and the failure go through ``say``."""
    async def start(self: Advertiser, fields: dict[str, object]) -> str:
        if not works:
            raise OSError("no interface to multicast on")
        return table_cmds.instance_name(str(fields["name"]), self.fingerprint)

    monkeypatch.setattr(Advertiser, "start", start)
    session = _session()
    told: list[str] = []
    args = argparse.Namespace(no_mdns=False, interface=None, name="bob")
    advert = TakeoverAdvert(args, session, session.identity, told.append)
    asyncio.run(advert.start(38681))
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")
    assert len(told) == 1
    assert ("advertised on the LAN" if works else "could not advertise") in told[0]
    assert (advert.advertiser is not None) == works
