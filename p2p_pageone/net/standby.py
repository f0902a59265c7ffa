"""A joiner's listener for a takeover (protocol/SPEC.md §7, "Failover").

Every joiner listens on the address it reaches the host from, and says where in its ``hello``.
While its host is alive the listener turns every connection away. Once this joiner has lost the
host too, a seated peer's intro there is a second witness that the host is gone: if this joiner
is the successor, it takes the table over and the listener becomes its sequencer's.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket

from ..session.peer import PeerSession
from ..wire.codec import FrameDecoder, ProtocolError, unpack
from ..wire.messages import validate_control

__all__ = ["Standby", "parse_endpoint"]

INTRO_WITHIN = 2.0  # seconds a connection to the standby listener has to introduce itself


def parse_endpoint(endpoint: str) -> tuple[str, int] | None:
    """``host:port`` (``[v6]:port``) as a pair; None if it is not one."""
    address, _, port = endpoint.rpartition(":")
    address = address.strip("[]")
    if not address or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    return address, int(port)


class Standby:
    """The listening socket of a joiner that may become the table's sequencer."""

    def __init__(self, session: PeerSession) -> None:
        self.session = session
        self.listener: socket.socket | None = None
        self.witnessed = False  # a seated peer came here having lost the host, as we did
        self._task: asyncio.Task[None] | None = None

    def open(self, address: str) -> str:
        """Listen on ``address`` (the one the host is reached from); the endpoint, or "" if this
        machine will not let us listen (then this seat cannot take a table over)."""
        if self.listener is not None:
            return self.session.endpoint
        try:
            listener = socket.create_server((address, 0), backlog=64)
        except OSError:
            return ""
        listener.setblocking(False)
        self.listener = listener
        self._task = asyncio.create_task(self._accept(listener))
        port = listener.getsockname()[1]
        return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"

    async def _accept(self, listener: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                client, _ = await loop.sock_accept(listener)
            except OSError:
                await asyncio.sleep(1.0)
                continue
            with contextlib.suppress(OSError, TimeoutError, ProtocolError):
                await asyncio.wait_for(self._witness(client), INTRO_WITHIN)
            client.close()

    async def _witness(self, client: socket.socket) -> None:
        """Read one intro: a seated peer of the running game, while we have lost the host too."""
        loop = asyncio.get_running_loop()
        decoder = FrameDecoder(4096)
        payloads: list[bytes] = []
        while not payloads:
            data = await loop.sock_recv(client, 4096)
            if not data:
                return
            payloads = decoder.feed(data)
        value = unpack(payloads[0])
        if not isinstance(value, dict) or validate_control(value, ("intro",)) != "intro":
            return
        s = self.session
        if s.dropped and s.game is not None and s.seat_of(value["from"]) in s.active:
            self.witnessed = True

    def release(self) -> socket.socket | None:
        """Stop turning connections away: the listener is handed to our sequencer."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        listener, self.listener = self.listener, None
        return listener

    def close(self) -> None:
        listener = self.release()
        if listener is not None:
            listener.close()
