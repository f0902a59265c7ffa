"""A joiner's listener (protocol/SPEC.md §7, "Failover" and "Keys to their owner, directly").

Every joiner listens on the address it reaches the host from, and says where in its ``hello``.
Two things come there. Other joiners' ``keys`` envelopes for this joiner's cards, sent straight
to it as well as to the host, so it opens a drawn card sooner. And a seat's signed ``lost``
statement: it lost the host. If this joiner is the successor and lost the host too, once it
holds statements from a majority of the listening seats it takes the table over, and the
listener becomes its sequencer's. An intro is no witness of anything.
"""

from __future__ import annotations

import asyncio
import secrets
import socket
from collections.abc import Awaitable, Callable
from typing import Any

from ..crypto.identity import fingerprint
from ..crypto.statements import check_proof, open_statement
from ..session.common import parse_endpoint
from ..session.links import refusal
from ..session.peer import PeerSession
from ..wire.codec import MAX_FRAME, FrameDecoder, ProtocolError, frame, pack, unpack
from ..wire.messages import validate_control

__all__ = ["Relay", "Standby", "parse_endpoint"]

INTRO_WITHIN = 2.0  # seconds a connection to the listener has to introduce itself
MAX_PEERS = 8  # connections served at once (a table has at most 6 seats)

Relay = Callable[[str, int], Awaitable[int]]  # (address, port) -> the port others reach it at


class Standby:
    """The listening socket of a joiner: direct keys in, the seats' ``lost`` statements."""

    def __init__(self, session: PeerSession, relay: Relay | None = None) -> None:
        self.session = session
        self.relay = relay  # a benchmark's delaying proxy in front of the listener
        self.listener: socket.socket | None = None
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
        """A peer's ``direct`` frame, then its keys envelopes; or a seat's ``lost`` statement,
        answered with ``refused`` if it does not count here; or a peer's ``intro``, which it
        sends a host: closed (it tries again once we are the host)."""
        try:
            reader, writer = await asyncio.open_connection(sock=client)
        except OSError:
            client.close()
            return
        decoder = FrameDecoder(MAX_FRAME)
        nonce = challenge(writer, self.session.identity.public)
        try:
            payloads = await asyncio.wait_for(_frames(reader, decoder), INTRO_WITHIN)
            value = unpack(payloads.pop(0))
            if not isinstance(value, dict):
                return
            kind = validate_control(value, ("intro", "direct", "lost"))
            s = self.session
            if s.game is None or s.seat_of(value["from"]) not in s.active:
                return
            if kind == "lost":
                reason = self.lost(value, nonce)
                if reason:
                    writer.write(refusal(-1, reason))
                    await asyncio.wait_for(writer.drain(), 2.0)
                return
            if kind == "intro":  # no witness of anything: a new host takes it once it is one
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

    def lost(self, value: dict[str, Any], nonce: bytes) -> str:
        """A seat says, signed, that it lost the host: kept toward a takeover, or why not."""
        s, key = self.session, value["from"]
        wrong = check_proof(value["proof"], key, nonce, s.identity.public, "lost")
        if wrong is not None:
            return f"{fingerprint(key)} could not prove it holds that key ({wrong})"
        if s.attachment.answered and not s.attachment.dropped:
            return "the host still answers here"
        try:
            signer = open_statement(value["statement"], "lost").sender
        except ProtocolError as error:
            return error.reason
        if signer != key:
            return "a lost statement is sent by its signer"
        return s.take_lost(value["statement"]) or ""

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


def challenge(writer: asyncio.StreamWriter, key: bytes) -> bytes:
    """The listener's first frame: a fresh nonce that a claiming frame's proof signs."""
    nonce = secrets.token_bytes(16)
    writer.write(frame(pack({"control": "challenge", "nonce": nonce, "from": key})))
    return nonce


async def _frames(reader: asyncio.StreamReader, decoder: FrameDecoder) -> list[bytes]:
    """The next whole frames; EOFError once the connection is gone."""
    while True:
        data = await reader.read(65536)
        if not data:
            raise EOFError
        payloads = decoder.feed(data)
        if payloads:
            return payloads
