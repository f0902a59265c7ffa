"""Direct connections from a joiner to the other joiners, for keys envelopes (protocol/SPEC.md
§7, "Keys to their owner, directly"). Best effort: the host logs and relays every envelope
anyway, so a peer that cannot be reached only gets its keys half a round trip later."""

from __future__ import annotations

import asyncio
import contextlib

from ..wire.codec import frame, pack
from .standby import parse_endpoint

__all__ = ["Mesh"]

CONNECT_WITHIN = 3.0
RETRY_AFTER = 10.0  # an endpoint that could not be reached is not tried again before this


class _Peer:
    def __init__(self, endpoint: str, intro: bytes) -> None:
        self.endpoint, self.intro = endpoint, intro
        self.queue: list[bytes] = []
        self.writer: asyncio.StreamWriter | None = None
        self.failed_at = -1.0
        self.task: asyncio.Task[None] | None = None

    def send(self, data: bytes) -> None:
        writer, loop = self.writer, asyncio.get_running_loop()
        if writer is not None and not writer.is_closing():
            writer.write(data)
            return
        if self.task is not None and not self.task.done():
            self.queue.append(data)
        elif self.failed_at < 0 or loop.time() - self.failed_at > RETRY_AFTER:
            self.queue, self.writer = [data], None
            self.task = asyncio.create_task(self._connect())

    async def _connect(self) -> None:
        where = parse_endpoint(self.endpoint)
        try:
            if where is None:
                raise OSError("not an endpoint")
            reader, writer = await asyncio.wait_for(asyncio.open_connection(*where),
                                                    CONNECT_WITHIN)
        except (OSError, TimeoutError):
            self.failed_at, self.queue = asyncio.get_running_loop().time(), []
            return
        writer.write(self.intro + b"".join(self.queue))
        self.queue, self.writer = [], writer
        with contextlib.suppress(OSError):
            await reader.read()  # the peer never writes: this ends when the connection does
        self.writer = None
        writer.close()

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        if self.writer is not None:
            self.writer.close()


class Mesh:
    """This joiner's connections to the others' listeners, opened when first needed."""

    def __init__(self, own_key: bytes) -> None:
        self.intro = frame(pack({"control": "direct", "from": own_key}))
        self.peers: dict[str, _Peer] = {}

    def send(self, endpoint: str, raw: bytes) -> None:
        peer = self.peers.get(endpoint)
        if peer is None:
            peer = self.peers[endpoint] = _Peer(endpoint, self.intro)
        peer.send(frame(raw))

    def close(self) -> None:
        for peer in self.peers.values():
            peer.close()
        self.peers.clear()
