"""A joiner's listener (protocol/SPEC.md §7, "Failover" and "Keys to their owner, directly").

Every joiner listens on the address it reaches the host from, and says where in its ``hello``.
Each connection there is sent a challenge first, and its first frame must prove the key it names
(``session.links.claim_refusal``); nothing is taken from a key before that. Two things come
there. Other joiners' frames on the mesh: their ``keys`` envelopes for this joiner's cards (it
opens a drawn card sooner), their signs of life, seed reveals, calls and envelopes the host has
not logged (``session.witnessing``). And a seat's signed ``lost`` statement: it lost the host. If
this joiner is the successor and lost the host too, once it holds statements from a majority of
the listening seats it takes the table over, and the listener becomes its sequencer's. An intro
is no witness of anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import socket
from collections.abc import Awaitable, Callable
from typing import Any

from ..session.attachment import intro_answer
from ..session.common import parse_endpoint
from ..session.handover import take_lost_statement
from ..session.links import (
    FLOOD_WINDOW,
    IDLE_FRAMES,
    MAX_UNPROVEN,
    NONCE,
    UNSEATED_FRAME,
    challenge,
    claim_refusal,
    refusal,
)
from ..session.mesh_gate import Admit, admit
from ..session.peer import PeerSession
from ..wire.codec import FrameDecoder, ProtocolError, unpack
from ..wire.messages import validate_control
from .accepting import accept

__all__ = ["Relay", "Standby", "parse_endpoint"]

INTRO_WITHIN = 2.0  # seconds a connection to the listener has to prove its key
MAX_PEERS = 8  # connections served at once (a table has at most 6 seats)
ACCEPT_RATE = 20.0  # new connections a second (bursts as many): the rest wait in the kernel
DIRECT_FRAME = 64 * 1024  # the largest frame on a direct connection (a keys envelope is ~6 KB)
BANNED_FOR = 10.0  # a key whose direct connection broke the limits is refused this long
CLAIMS = ("intro", "direct", "lost")  # what claims a key here (each proves it first)

Relay = Callable[[str, int], Awaitable[int]]  # (address, port) -> the port others reach it at


class Standby:
    """The listening socket of a joiner: direct keys in, a takeover's witnesses."""

    def __init__(self, session: PeerSession, relay: Relay | None = None,
                 random_bytes: Callable[[int], bytes] = os.urandom) -> None:
        self.session = session
        self.relay = relay  # a benchmark's delaying proxy in front of the listener
        self.random_bytes = random_bytes  # the challenges' nonces
        self.listener: socket.socket | None = None
        self.wake: Callable[[], None] | None = None  # sends what a direct envelope made us say
        self._task: asyncio.Task[None] | None = None
        self._serving: set[asyncio.Task[None]] = set()
        self._by_peer: dict[bytes, asyncio.Task[None]] = {}  # one connection per proven key
        self._unproven: dict[str, int] = {}  # source address -> connections not proven yet
        self.banned: dict[bytes, float] = {}  # key -> until when its direct ones are refused

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
        """At most ``ACCEPT_RATE`` a second; one from an address with ``MAX_UNPROVEN``
        unproven connections, or beyond ``MAX_PEERS``, is closed at once (not counted)."""
        loop = asyncio.get_running_loop()
        tokens, last = ACCEPT_RATE, loop.time()
        while True:
            try:
                client, address = await accept(listener)
            except OSError:
                await asyncio.sleep(1.0)
                continue
            source = str(address[0]) if isinstance(address, tuple) else ""
            if (len(self._serving) >= MAX_PEERS
                    or self._unproven.get(source, 0) >= MAX_UNPROVEN):
                client.close()
                continue
            now = loop.time()
            tokens, last = min(ACCEPT_RATE, tokens + (now - last) * ACCEPT_RATE), now
            if tokens < 1:
                await asyncio.sleep((1 - tokens) / ACCEPT_RATE)
                tokens += (loop.time() - last) * ACCEPT_RATE
                last = loop.time()
            tokens -= 1
            self._unproven[source] = self._unproven.get(source, 0) + 1
            task = asyncio.create_task(self._serve(client, source))
            self._serving.add(task)
            task.add_done_callback(self._serving.discard)

    async def _serve(self, client: socket.socket, source: str) -> None:
        """The challenge; then a peer's ``direct`` frame and its keys envelopes, or a peer's
        ``intro`` (which it sends a host): a witness, if we lost the host too. Each proves its
        key against the challenge first."""
        unproven = True
        try:
            reader, writer = await asyncio.open_connection(sock=client)
        except OSError:
            client.close()
            self._proven(source)
            return
        try:
            nonce = self.random_bytes(NONCE)
            writer.write(challenge(nonce, self.session.identity.public))
            decoder = FrameDecoder(UNSEATED_FRAME)
            payloads = await asyncio.wait_for(_frames(reader, decoder), INTRO_WITHIN)
            value = self._claim(payloads.pop(0), nonce, writer)
            unproven = self._proven(source)
            if value is None:
                return
            s = self.session
            if s.game is None or s.seat_of(value["from"]) not in s.active:
                return
            if value["control"] == "lost":
                reason = self.lost(value)
                if reason:
                    writer.write(refusal(-1, reason))
                    await asyncio.wait_for(writer.drain(), 2.0)
                return
            if value["control"] == "intro":  # no witness of anything: a new host takes it
                if answer := intro_answer(s):  # the host our seat follows now, if any
                    writer.write(answer)
                    await asyncio.wait_for(writer.drain(), 2.0)
                return
            self._one_per_peer(value["from"])
            decoder.max_frame = DIRECT_FRAME
            await self._directs(value["from"], reader, decoder, payloads)
        except (OSError, TimeoutError, ProtocolError, EOFError):
            pass
        finally:
            if unproven:
                self._proven(source)
            writer.close()

    def _proven(self, source: str) -> bool:
        """One connection of ``source`` is no longer unproven (it proved a key, or it is gone)."""
        left = self._unproven.get(source, 1) - 1
        if left > 0:
            self._unproven[source] = left
        else:
            self._unproven.pop(source, None)
        return False

    def _claim(self, payload: bytes, nonce: bytes,
               writer: asyncio.StreamWriter) -> dict[str, Any] | None:
        """The first frame, if it proves its key against ``nonce``; else refused (None)."""
        value = unpack(payload)
        if not isinstance(value, dict):
            raise ProtocolError("the first frame is a control frame that proves a key")
        validate_control(value, CLAIMS)
        until = self.banned.get(value["from"], 0.0)
        if value["control"] == "direct" and until > asyncio.get_running_loop().time():
            return None  # it broke the limits a moment ago: not even its proof is checked
        reason = claim_refusal(value, nonce, self.session.identity.public)
        if reason is not None:
            writer.write(refusal(-1, reason))
            return None
        return value

    async def _directs(self, key: bytes, reader: asyncio.StreamReader, decoder: FrameDecoder,
                       payloads: list[bytes]) -> None:
        """A proven peer's keys envelopes, until the table ends here or it breaks the limits:
        frames of at most ``DIRECT_FRAME`` bytes and ``IDLE_FRAMES`` per ``FLOOD_WINDOW`` beyond
        the ones we use; then it is closed and its key refused ``BANNED_FOR`` (nobody named)."""
        s, loop = self.session, asyncio.get_running_loop()
        seen: set[bytes] = set()
        window, idle = loop.time(), 0
        try:
            while not s.ended and not s.is_host:
                for payload in payloads:
                    if self._direct(payload, key, seen):
                        continue
                    if loop.time() - window >= FLOOD_WINDOW:
                        window, idle = loop.time(), 0
                    idle += 1
                    if idle > IDLE_FRAMES:
                        raise ProtocolError("flooded this listener with direct frames")
                payloads = await _frames(reader, decoder)
        except ProtocolError:
            self.banned[key] = loop.time() + BANNED_FOR
            raise

    def lost(self, value: dict[str, Any]) -> str:
        """A seat says, signed, that it lost the host (its key proven): kept toward a takeover,
        or why not."""
        return take_lost_statement(self.session, value["from"], value["statement"])

    def _one_per_peer(self, key: bytes) -> None:
        """A peer's new direct connection replaces its old one (it cannot hold all slots)."""
        task = asyncio.current_task()
        old = self._by_peer.get(key)
        if old is not None and old is not task:
            old.cancel()
        if task is not None:
            self._by_peer[key] = task

    def _direct(self, payload: bytes, key: bytes, seen: set[bytes]) -> bool:
        """Hand a frame of ``key`` for this table to the session (an envelope, or a sign of
        life): True if it is one we had not had on this connection (what the session uses), or
        a copy of an entry we hold with its receipt (an honest server's, the host's stream
        first); False counts toward the flood limit."""
        verdict = admit(self.session, payload, key)
        if verdict is Admit.KNOWN:  # a copy of what we hold: nothing to do, nothing counted
            return True
        digest = hashlib.sha256(payload).digest()
        if digest in seen:
            return False
        if verdict is not Admit.TAKE:
            if verdict is Admit.HOLD:  # handed on, counted against the flood limit
                self.session.direct(payload, asyncio.get_running_loop().time())
            return False
        if len(seen) >= 4 * IDLE_FRAMES:
            seen.clear()
        seen.add(digest)
        self.session.direct(payload, asyncio.get_running_loop().time())
        if self.wake is not None:
            self.wake()
        return True

    def release(self) -> socket.socket | None:
        """Stop serving: the listener is handed to our sequencer, or closed."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        for task in list(self._serving):
            task.cancel()
        listener, self.listener = self.listener, None
        return listener

    async def hand_over(self) -> socket.socket | None:
        """Stop serving and return the listener once our accept task has ended (it removes
        its reader from the listener as it goes): the new sequencer's accept then registers
        its own, which ours could otherwise remove."""
        accepting = self._task
        listener = self.release()
        if accepting is not None:
            await asyncio.gather(accepting, return_exceptions=True)
        return listener

    def close(self) -> None:
        listener = self.release()
        if listener is not None:
            with contextlib.suppress(RuntimeError):  # no loop: nothing is registered
                asyncio.get_running_loop().remove_reader(listener.fileno())
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
