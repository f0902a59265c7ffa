"""A joiner's listener (protocol/SPEC.md §7, "Failover" and "Keys to their owner, directly").

Every joiner listens on the address it reaches the host from, and says where in its ``hello``.
Two things come there. Other joiners' ``keys`` envelopes for this joiner's cards, sent straight
to it as well as to the host, so it opens a drawn card sooner. And, once this joiner has lost
the host too, a seated peer's intro: a second witness that the host is gone, so if this joiner
is the successor it takes the table over, and the listener becomes its sequencer's.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable

from ..session.common import parse_endpoint
from ..session.peer import PeerSession
from ..wire.codec import MAX_FRAME, FrameDecoder, ProtocolError, unpack
from ..wire.messages import validate_control

__all__ = ["Relay", "Standby", "parse_endpoint"]

INTRO_WITHIN = 2.0  # seconds a connection to the listener has to introduce itself
MAX_PEERS = 8  # connections served at once (a table has at most 6 seats)

Relay = Callable[[str, int], Awaitable[int]]  # (address, port) -> the port others reach it at


class Standby:
    """The listening socket of a joiner: direct keys in, a takeover's witnesses."""

    def __init__(self, session: PeerSession, relay: Relay | None = None) -> None:
        self.session = session
        self.relay = relay  # a benchmark's delaying proxy in front of the listener
        self.listener: socket.socket | None = None
        self.witnessed = False  # a seated peer came here having lost the host, as we did
        self.wake: Callable[[], None] | None = None  # sends what a direct envelope made us say
        self._task: asyncio.Task[None] | None = None
        self._serving: set[asyncio.Task[None]] = set()
        self._by_peer: dict[bytes, asyncio.Task[None]] = {}  # one connection per peer

    async def open(self, address: str) -> str:
        """Listen on ``address`` (the one the host is reached from); the endpoint, or "" if this
        machine will not let us listen (then this seat cannot take a table over)."""
        if self.listener is not None:
            return self.session.attachment.endpoint
        try:
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            listener = socket.create_server((address, 0), family=family, backlog=64)
        except OSError:
            return ""
        listener.setblocking(False)
        self.listener = listener
        self._task = asyncio.create_task(self._accept(listener))
        port = listener.getsockname()[1]
        if self.relay is not None:
            port = await self.relay(address, port)
        return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"

    async def _accept(self, listener: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                client, _ = await loop.sock_accept(listener)
            except OSError:
                await asyncio.sleep(1.0)
                continue
            if len(self._serving) >= MAX_PEERS:
                client.close()
                continue
            task = asyncio.create_task(self._serve(client))
            self._serving.add(task)
            task.add_done_callback(self._serving.discard)

    async def _serve(self, client: socket.socket) -> None:
        """A peer's ``direct`` frame, then its keys envelopes; or a peer's ``intro``, which it
        sends a host: a witness, if we lost the host too."""
        try:
            reader, writer = await asyncio.open_connection(sock=client)
        except OSError:
            client.close()
            return
        decoder = FrameDecoder(MAX_FRAME)
        try:
            payloads = await asyncio.wait_for(_frames(reader, decoder), INTRO_WITHIN)
            value = unpack(payloads.pop(0))
            if not isinstance(value, dict):
                return
            kind = validate_control(value, ("intro", "direct"))
            s = self.session
            if s.game is None or s.seat_of(value["from"]) not in s.active:
                return
            if kind == "intro":  # a peer that lost the host: if we have too, a witness
                self.witnessed = self.witnessed or bool(s.attachment.dropped)
                return
            self._one_per_peer(value["from"])
            while not s.ended and not s.is_host:
                for payload in payloads:
                    self._direct(payload)
                payloads = await _frames(reader, decoder)
        except (OSError, TimeoutError, ProtocolError, EOFError):
            pass
        finally:
            writer.close()

    def _one_per_peer(self, key: bytes) -> None:
        """A peer's new direct connection replaces its old one (it cannot hold all slots)."""
        task = asyncio.current_task()
        old = self._by_peer.get(key)
        if old is not None and old is not task:
            old.cancel()
        if task is not None:
            self._by_peer[key] = task

    def _direct(self, payload: bytes) -> None:
        if not isinstance(unpack(payload), list):
            raise ProtocolError("a peer sends us only its keys envelopes")
        self.session.direct(payload, asyncio.get_running_loop().time())
        if self.wake is not None:
            self.wake()

    def release(self) -> socket.socket | None:
        """Stop serving: the listener is handed to our sequencer, or closed."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        for task in list(self._serving):
            task.cancel()
        listener, self.listener = self.listener, None
        return listener

    def close(self) -> None:
        listener = self.release()
        if listener is not None:
            listener.close()


async def _frames(reader: asyncio.StreamReader, decoder: FrameDecoder) -> list[bytes]:
    """The next whole frames; EOFError once the connection is gone."""
    while True:
        data = await reader.read(65536)
        if not data:
            raise EOFError
        payloads = decoder.feed(data)
        if payloads:
            return payloads
