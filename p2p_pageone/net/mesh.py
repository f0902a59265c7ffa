"""Direct connections from a joiner to the other joiners, for keys envelopes (protocol/SPEC.md
§7, "Keys to their owner, directly"). Best effort: the host logs and relays every envelope
anyway, so a peer that cannot be reached only gets its keys half a round trip later."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from ..crypto.identity import Identity
from ..session.links import UNSEATED_FRAME, answer_challenge
from ..wire.codec import FrameDecoder, ProtocolError, frame, unpack
from ..wire.messages import validate_control
from .standby import parse_endpoint

__all__ = ["Mesh"]

CONNECT_WITHIN = 3.0
RETRY_AFTER = 10.0  # an endpoint that could not be reached is not tried again before this


class _Peer:
    def __init__(self, endpoint: str, identity: Identity, key: bytes) -> None:
        self.endpoint, self.identity, self.key = endpoint, identity, key
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
        writer: asyncio.StreamWriter | None = None
        try:
            if where is None or not self.key:
                raise OSError("not an endpoint of a seat we know")
            reader, writer = await asyncio.wait_for(asyncio.open_connection(*where),
                                                    CONNECT_WITHIN)
            direct = await asyncio.wait_for(self._answer(reader), CONNECT_WITHIN)
        except (OSError, TimeoutError, ProtocolError, EOFError):
            self.failed_at, self.queue = asyncio.get_running_loop().time(), []
            if writer is not None:
                writer.close()
            return
        assert writer is not None
        writer.write(direct + b"".join(self.queue))
        self.queue, self.writer = [], writer
        with contextlib.suppress(OSError):
            await reader.read()  # the peer never writes: this ends when the connection does
        self.writer = None
        writer.close()

    async def _answer(self, reader: asyncio.StreamReader) -> bytes:
        """Our ``direct`` frame for the listener's challenge, if the key that challenges is the
        seat's whose endpoint this is (a ``ProtocolError`` if not: we never sign for a relay)."""
        decoder = FrameDecoder(UNSEATED_FRAME)
        while not (payloads := decoder.feed(await reader.read(4096) or b"")):
            if reader.at_eof():
                raise EOFError
        value = unpack(payloads[0])
        if not isinstance(value, dict):
            raise ProtocolError("a listener's first frame is its challenge")
        validate_control(value, ("challenge",))
        return answer_challenge(value, self.identity, {"control": "direct"}, self.key)

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        if self.writer is not None:
            self.writer.close()


class Mesh:
    """This joiner's connections to the others' listeners, opened when first needed."""

    def __init__(self, identity: Identity, key_at: Callable[[str], bytes]) -> None:
        self.identity = identity
        self.key_at = key_at  # the key of the seat that announced an endpoint (b"": none)
        self.peers: dict[str, _Peer] = {}

    def send(self, endpoint: str, raw: bytes) -> None:
        peer = self.peers.get(endpoint)
        if peer is None or peer.key != self.key_at(endpoint):
            if peer is not None:
                peer.close()
            peer = self.peers[endpoint] = _Peer(endpoint, self.identity, self.key_at(endpoint))
        peer.send(frame(raw))

    def close(self) -> None:
        for peer in self.peers.values():
            peer.close()
        self.peers.clear()
