"""``pageone`` with a client changed to misbehave, run as its own process by
``tests/test_cli_flood.py``: once the game's third move is in, it sends its host a burst of pings
far past the limit (50 per 5 s), and its machine then waits SECONDS before each try to
reconnect (a peer that floods and goes quiet). Usage: ``python flooding_peer.py SECONDS ARGS``,
ARGS as for ``pageone``."""

from __future__ import annotations

import sys

from p2p_pageone.cli.main import main
from p2p_pageone.net import joiner
from p2p_pageone.session.client import PING, Client

BURST = 200

_tick = Client.tick
_flooded: list[bool] = []


def _flooding_tick(self: Client, now: float) -> None:
    _tick(self, now)
    game = self.session.game
    if not _flooded and game is not None and game.deal.moves >= 3:
        _flooded.append(True)
        self.out.extend([PING] * BURST)


if __name__ == "__main__":
    Client.tick = _flooding_tick  # type: ignore[method-assign]
    joiner.RETRY_EVERY = float(sys.argv[1])
    sys.exit(main(sys.argv[2:]))
