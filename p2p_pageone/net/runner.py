"""asyncio TCP transport: pumps bytes between sockets and the sans-I/O sequencer and clients.

No game logic here. Time is the event loop's monotonic clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import itertools
import math
import os
import socket
from collections.abc import Callable
from typing import Protocol

from ..session.common import Event
from ..session.links import LOBBY_TIMEOUT, RECONNECT_WINDOW, START_AFTER, WATCHERS
from ..session.peer import PeerSession
from ..session.sequencer import Sequencer
from .accepting import accept
from .logwriter import LocalFault, LogWriter

__all__ = ["Announcer", "EventSink", "HostRunner", "LocalFault", "LogWriter"]

EventSink = Callable[[PeerSession, list[Event]], None]


class Announcer(Protocol):
    """What a joiner that takes a table over tells the LAN (the CLI's mDNS advert)."""

    async def start(self, port: int) -> None:
        """Begin announcing the table at ``port``, where this pageone now listens as host."""

    async def tick(self) -> None:
        """Bring the announcement up to date (seats taken and free)."""

    async def stop(self) -> None:
        """Withdraw it."""
ENDED_DRAIN = 1.0  # a table that ended early waits this long at most for its peers to hang up
TICK = 0.1  # how often a full send buffer is looked at again, and the end's linger ticks
MIN_SLEEP = 0.02  # a deadline already past (a CPU answer the session cannot send yet) is
# looked at again after this long, not in a busy loop
MAX_CONNECTIONS = 64  # beyond this a new connection is closed before the sequencer sees it
# Per connection, what is not yet sent is bounded: past PAUSE_READING its frames are not read (a
# peer that does not read what it asked for gets TCP's backpressure, not our memory), and past
# MAX_BUFFERED it has stopped reading the table altogether and is dropped.
PAUSE_READING = 256 * 1024
MAX_BUFFERED = 8 * 1024 * 1024  # a whole hand's log is ~200 KB at 6 seats
# New connections are taken at most ACCEPT_RATE a second (bursts of ACCEPT_BURST): the rest wait
# in the kernel's queue, so a flood of connections costs the table a bounded share of its time.
ACCEPT_RATE = 20.0
ACCEPT_BURST = 20.0
NO_DESCRIPTORS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


async def read_frame(reader: asyncio.StreamReader,
                writer: asyncio.StreamWriter | None = None, most: int = 65536) -> bytes:
    """The next bytes from a peer (at most ``most``), or b"" once the connection is gone. Only
    the network read is guarded: an error of this machine (its disk, its terminal) is never a
    lost peer. With ``writer``, nothing is read while too much to that peer is unsent."""
    while (writer is not None and not writer.is_closing()
           and writer.transport.get_write_buffer_size() > PAUSE_READING):
        await asyncio.sleep(TICK)
    try:
        return await reader.read(most)
    except (ConnectionError, OSError):
        return b""


class Waker:
    """Sleeps until ``next_wake`` (re-read when a frame may have moved it) or a ``now``."""

    def __init__(self, next_wake: Callable[[float], float], clock: Callable[[], float]) -> None:
        self.next_wake, self.clock = next_wake, clock
        self.event = asyncio.Event()
        self.planned = math.inf
        self.due_now = False

    def now(self) -> None:
        """Something is to be sent at once."""
        self.due_now = True
        self.event.set()

    def nudge(self) -> None:
        """A frame came in: plan again if it brought a deadline forward."""
        if self.next_wake(self.clock()) < self.planned:
            self.event.set()

    async def sleep(self) -> None:
        while not self.due_now:
            now = self.clock()
            self.planned = self.next_wake(now)
            self.event.clear()
            try:
                await asyncio.wait_for(self.event.wait(), max(self.planned - now, MIN_SLEEP))
            except TimeoutError:
                break
        self.due_now = False


def guarded(on_events: EventSink) -> EventSink:
    """The player's screen failing (a closed pipe, a gone terminal) is this machine's problem:
    the table goes on unseen (the log keeps everything) and no peer is taken for lost."""
    broken: list[OSError] = []

    def show(session: PeerSession, events: list[Event]) -> None:
        if broken:
            return
        try:
            on_events(session, events)
        except OSError as error:
            broken.append(error)

    return show


def finished(session: PeerSession) -> bool:
    return session.game_over or bool(session.ended)


class HostRunner:
    """The host's TCP server around its sequencer."""

    def __init__(self, session: PeerSession, bind: str, port: int, on_events: EventSink,
                 log: LogWriter | None, silent_after: float = 10.0,
                 step_timeout: float = 30.0, lobby: dict[str, float] | None = None,
                 listener: socket.socket | None = None) -> None:
        self.session, self.bind, self.port = session, bind, port
        self.on_events, self.log = guarded(on_events), log
        self.silent_after, self.step_timeout = silent_after, step_timeout
        self.lobby = lobby or {}  # Sequencer's min_players, start_after, lobby_timeout,
        # reconnect_window
        self.sequencer: Sequencer | None = None
        self.writers: dict[int, asyncio.StreamWriter] = {}
        self._ids = itertools.count(1)
        self._listener = listener  # given: a joiner's, taking the table over
        self._accepting: asyncio.Task[None] | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self._refusing = False  # out of descriptors: said once until a connection is accepted
        self._opening: dict[str, int] = {}  # source address -> connections accepted, not open
        self._nudge: Callable[[], None] = lambda: None  # a frame may bring the next tick forward

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    async def start(self) -> int:
        lobby = self.lobby
        self.sequencer = Sequencer(self.session, self._now(), self.silent_after,
                                   self.step_timeout, min_players=int(lobby.get("min_players", 0)),
                                   lobby_timeout=lobby.get("lobby_timeout", LOBBY_TIMEOUT),
                                   start_after=lobby.get("start_after", START_AFTER),
                                   watchers=int(lobby.get("watchers", WATCHERS)),
                                   watcher_chat=bool(lobby.get("watcher_chat", False)),
                                   reconnect_window=int(lobby.get("reconnect_window",
                                                                  RECONNECT_WINDOW)),
                                   random_bytes=os.urandom)
        listener = self._listener or socket.create_server((self.bind, self.port), backlog=128)
        listener.setblocking(False)
        self._listener = listener
        self.port = listener.getsockname()[1]
        self._accepting = asyncio.create_task(self._accept(listener))
        self.flush()
        return self.port

    async def _accept(self, listener: socket.socket) -> None:
        """Take new connections, at most ``ACCEPT_RATE`` a second; out of descriptors, they
        wait (one line per burst, no traceback). One from an address that holds as many
        unproven connections as it may is closed at once, not counted toward the rate: a crowd
        from one address never keeps the others waiting in the kernel's queue."""
        loop = asyncio.get_running_loop()
        tokens, last = ACCEPT_BURST, loop.time()
        while True:
            try:
                client, address = await accept(listener)
            except OSError as error:
                if error.errno not in NO_DESCRIPTORS:
                    raise
                self._out_of_descriptors()
                await asyncio.sleep(1.0)
                continue
            self._refusing = False
            source = str(address[0]) if isinstance(address, tuple) else ""
            assert self.sequencer is not None
            door = self.sequencer.door(source, loop.time(), self._opening.get(source, 0))
            if len(self.writers) >= MAX_CONNECTIONS or door == "close":
                client.close()
                continue
            if door == "take":  # else it takes the place of its address's oldest unproven one
                now = loop.time()
                tokens, last = min(ACCEPT_BURST, tokens + (now - last) * ACCEPT_RATE), now
                if tokens < 1:
                    await asyncio.sleep((1 - tokens) / ACCEPT_RATE)
                    now = loop.time()
                    tokens, last = min(ACCEPT_BURST, tokens + (now - last) * ACCEPT_RATE), now
                tokens -= 1
            self._opening[source] = self._opening.get(source, 0) + 1
            task = asyncio.create_task(self._open(client, source))
            self._handlers.add(task)
            task.add_done_callback(self._handlers.discard)

    def _out_of_descriptors(self) -> None:
        if not self._refusing:
            self._refusing = True
            self.session.events.append(Event("busy", "too many connections for this machine's "
                                             "open-file limit: new ones wait until some close"))
            self.on_events(self.session, self.session.take_events())

    async def _open(self, client: socket.socket, source: str) -> None:
        try:  # asyncio sets no TCP_NODELAY on a socket it did not make (proto 0)
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            reader, writer = await asyncio.open_connection(sock=client)
        except OSError:
            client.close()
            return
        finally:  # the sequencer counts it from now on
            left = self._opening.get(source, 1) - 1
            if left > 0:
                self._opening[source] = left
            else:
                self._opening.pop(source, None)
        await self._handle(reader, writer, source)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                      source: str) -> None:
        assert self.sequencer is not None
        conn = next(self._ids)
        self.writers[conn] = writer
        self.sequencer.connect(conn, self._now(), source)
        self.flush()
        if conn not in self.writers:
            return
        try:  # a connection that has proven no key is read a little at a time (a flood of
            # small frames is cut off after the first few thousand bytes)
            while data := await read_frame(reader, writer, self.sequencer.read_size(conn)):
                self.sequencer.receive(conn, data, self._now())
                self.flush()
                self._nudge()
        finally:
            if self.writers.pop(conn, None) is not None:
                self.sequencer.disconnect(conn, self._now())
            self.flush()
            writer.close()

    def flush(self) -> None:
        sequencer = self.sequencer
        assert sequencer is not None
        for conn, data in sequencer.out:
            writer = self.writers.get(conn)
            if writer is not None and not writer.is_closing():
                writer.write(data)
                if writer.transport.get_write_buffer_size() > MAX_BUFFERED:
                    sequencer.overrun(conn, self._now())
        sequencer.out.clear()
        for conn in sequencer.to_close:
            writer = self.writers.pop(conn, None)
            if writer is not None:
                writer.close()
        sequencer.to_close.clear()
        if self.log is not None:
            try:
                self.log.sync(self.session)
            except LocalFault as fault:  # our disk, not the network: close, blaming nobody
                sequencer.local_fault(str(fault), self._now())
                self.flush()
                return
        self.on_events(self.session, self.session.take_events())

    async def run(self, on_tick: Callable[[], object] | None = None) -> None:
        """Tick when the sequencer says it next needs to (``next_wake``), or when the host's
        player gives it something to say, until the game is over or the table ended; then let
        the last frames go out."""
        assert self.sequencer is not None
        woken = Waker(self.sequencer.next_wake, self._now)
        self.session.on_wake, self._nudge = woken.now, woken.nudge
        while not finished(self.session):
            await woken.sleep()
            self.sequencer.tick(self._now())
            self.flush()
            if on_tick is not None:
                result = on_tick()
                if asyncio.iscoroutine(result):
                    await result
        await self._linger()
        await self.close()

    async def _linger(self) -> None:
        """Until every peer has confirmed having the game's last entries and hung up, or the
        sequencer names who did not confirm (protocol/SPEC.md §7, "The end of the game")."""
        assert self.sequencer is not None
        while not self.sequencer.delivered():
            self.sequencer.tick(self._now())
            self.flush()
            await asyncio.sleep(TICK)
        if self.session.ended:  # the table ended early: nobody confirms, but the last entry
            await self._drain(ENDED_DRAIN)  # (a bye, a timeout) must reach every peer first

    async def _drain(self, seconds: float) -> None:
        """Let what is written go out while the peers go on being read (closing a socket that
        has unread input resets it, and the peer may lose the last frame it has not read)."""
        writers = [w for w in self.writers.values() if not w.is_closing()]
        with contextlib.suppress(ConnectionError, OSError, TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(w.drain() for w in writers)), seconds)
        end = self._now() + seconds
        while self.writers and self._now() < end:  # each peer hangs up once it has the end
            await asyncio.sleep(TICK)

    async def close(self) -> None:
        """Nothing waits on a connection now: what it has not read is dropped."""
        for writer in list(self.writers.values()):
            writer.transport.abort()
        self.writers.clear()
        if self._accepting is not None:
            self._accepting.cancel()
            self._accepting = None
        for task in list(self._handlers):
            task.cancel()
        if self._listener is not None:
            # Our accept's reader goes first: the socket's number may be reused once closed.
            asyncio.get_running_loop().remove_reader(self._listener.fileno())
            self._listener.close()
            self._listener = None
