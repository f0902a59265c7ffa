"""``pageone`` with a client changed to misbehave, run as its own process by
``tests/test_cli_flood.py``: once the game's third move is in, it sends its host a burst of pings
far past the limit (50 per 5 s); dropped for it, it tries to reconnect only once the file GATE
exists (the test says when: a peer that floods, then goes quiet for a while). Usage:
``python flooding_peer.py GATE ARGS``, ARGS as for ``pageone``."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from p2p_pageone.cli.main import main
from p2p_pageone.net import joiner
from p2p_pageone.session.client import PING, Client

BURST = 200

_tick = Client.tick
_take_part = joiner._take_part
_flooded: list[bool] = []
_connections: list[bool] = []


def _flooding_tick(self: Client, now: float) -> None:
    _tick(self, now)
    game = self.session.game
    if not _flooded and game is not None and game.deal.moves >= 3:
        _flooded.append(True)
        self.out.extend([PING] * BURST)


async def _gated_take_part(*args: Any, **kwargs: Any) -> str:
    if _connections:  # a reconnection: only once the gate is open
        while not Path(sys.argv[1]).exists():
            await asyncio.sleep(0.2)
    _connections.append(True)
    return await _take_part(*args, **kwargs)


if __name__ == "__main__":
    Client.tick = _flooding_tick  # type: ignore[method-assign]
    joiner._take_part = _gated_take_part
    sys.exit(main(sys.argv[2:]))
