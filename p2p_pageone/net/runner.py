"""asyncio TCP transport: pumps bytes between sockets and the sans-I/O sequencer and clients.

No game logic here. Time is the event loop's monotonic clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import itertools
import os
import socket
from collections.abc import Callable
from typing import Protocol

from ..session.client import Client
from ..session.common import Event
from ..session.links import LOBBY_TIMEOUT, RECONNECT_WINDOW, START_AFTER
from ..session.peer import PeerSession
from ..session.rtt import RoundTrip
from ..session.sequencer import Sequencer
from .logwriter import LocalFault, LogWriter
from .mesh import Mesh
from .standby import Relay, Standby, parse_endpoint

__all__ = ["HostRunner", "LocalFault", "LogWriter", "run_joiner"]

EventSink = Callable[[PeerSession, list[Event]], None]


class Announcer(Protocol):
    """What a joiner that takes a table over tells the LAN (the CLI's mDNS advert)."""

    async def start(self, port: int) -> None:
        """Begin announcing the table at ``port``, where this pageone now listens as host."""

    async def tick(self) -> None:
        """Bring the announcement up to date (seats taken and free)."""

    async def stop(self) -> None:
        """Withdraw it."""
TICK = 0.1
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
RETRY_FOR = 60.0  # a joiner whose connection drops mid-game tries again for this long
RETRY_EVERY = 1.0


async def _read(reader: asyncio.StreamReader,
                writer: asyncio.StreamWriter | None = None) -> bytes:
    """The next bytes from a peer, or b"" once the connection is gone. Only the network read
    is guarded: an error of this machine (its disk, its terminal) is never a lost peer. With
    ``writer``, nothing is read while too much to that peer is unsent."""
    while (writer is not None and not writer.is_closing()
           and writer.transport.get_write_buffer_size() > PAUSE_READING):
        await asyncio.sleep(TICK)
    try:
        return await reader.read(65536)
    except (ConnectionError, OSError):
        return b""


def _guarded(on_events: EventSink) -> EventSink:
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


def _finished(session: PeerSession) -> bool:
    return session.game_over or bool(session.ended)


class HostRunner:
    """The host's TCP server around its sequencer."""

    def __init__(self, session: PeerSession, bind: str, port: int, on_events: EventSink,
                 log: LogWriter | None, silent_after: float = 10.0,
                 step_timeout: float = 30.0, lobby: dict[str, float] | None = None,
                 listener: socket.socket | None = None) -> None:
        self.session, self.bind, self.port = session, bind, port
        self.on_events, self.log = _guarded(on_events), log
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

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    async def start(self) -> int:
        lobby = self.lobby
        self.sequencer = Sequencer(self.session, self._now(), self.silent_after,
                                   self.step_timeout, min_players=int(lobby.get("min_players", 0)),
                                   lobby_timeout=lobby.get("lobby_timeout", LOBBY_TIMEOUT),
                                   start_after=lobby.get("start_after", START_AFTER),
                                   reconnect_window=int(lobby.get("reconnect_window",
                                                                  RECONNECT_WINDOW)))
        listener = self._listener or socket.create_server((self.bind, self.port), backlog=128)
        listener.setblocking(False)
        self._listener = listener
        self.port = listener.getsockname()[1]
        self._accepting = asyncio.create_task(self._accept(listener))
        self.flush()
        return self.port

    async def _accept(self, listener: socket.socket) -> None:
        """Take new connections, at most ``ACCEPT_RATE`` a second; out of descriptors, they
        wait (one line per burst, no traceback)."""
        loop = asyncio.get_running_loop()
        tokens, last = ACCEPT_BURST, loop.time()
        while True:
            now = loop.time()
            tokens, last = min(ACCEPT_BURST, tokens + (now - last) * ACCEPT_RATE), now
            if tokens < 1:
                await asyncio.sleep((1 - tokens) / ACCEPT_RATE)
                continue
            try:
                client, _ = await loop.sock_accept(listener)
            except OSError as error:
                if error.errno not in NO_DESCRIPTORS:
                    raise
                self._out_of_descriptors()
                await asyncio.sleep(1.0)
                continue
            tokens -= 1
            self._refusing = False
            if len(self.writers) >= MAX_CONNECTIONS:
                client.close()
                continue
            task = asyncio.create_task(self._open(client))
            self._handlers.add(task)
            task.add_done_callback(self._handlers.discard)

    def _out_of_descriptors(self) -> None:
        if not self._refusing:
            self._refusing = True
            self.session.events.append(Event("busy", "too many connections for this machine's "
                                             "open-file limit: new ones wait until some close"))
            self.on_events(self.session, self.session.take_events())

    async def _open(self, client: socket.socket) -> None:
        try:  # asyncio sets no TCP_NODELAY on a socket it did not make (proto 0)
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            reader, writer = await asyncio.open_connection(sock=client)
        except OSError:
            client.close()
            return
        await self._handle(reader, writer)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        assert self.sequencer is not None
        conn = next(self._ids)
        self.writers[conn] = writer
        self.sequencer.connect(conn, self._now())
        self.flush()
        if conn not in self.writers:
            return
        try:
            while data := await _read(reader, writer):
                self.sequencer.receive(conn, data, self._now())
                self.flush()
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
        """Tick until the game is over or the table ended, then let the last frames go out."""
        assert self.sequencer is not None
        while not _finished(self.session):
            await asyncio.sleep(TICK)
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
            self._listener.close()
            self._listener = None


async def run_joiner(session: PeerSession, host: str, port: int, on_events: EventSink,
                     log: LogWriter | None, silent_after: float = 10.0,
                     retry_for: float = RETRY_FOR, listen: bool = False,
                     relay: Relay | None = None, catch_window: float = 0.0,
                     reconnect_window: int = RECONNECT_WINDOW,
                     announcer: Announcer | None = None) -> None:
    """Connect to a host and take part until the game ends or the table is lost.

    A connection lost mid-game (a Wi-Fi drop, the host's link) is tried again every second for
    ``retry_for`` seconds: the host keeps the seat for its return (SPEC §7, "Reconnect"). With
    ``listen``, this joiner listens for a takeover: if the host's pageone stops, the next seat
    takes the table over and the others follow it there (SPEC §7, "Failover"), and the others'
    keys for its cards come to it directly too. ``relay``: a benchmark's delaying proxy in front
    of the listener; ``catch_window`` and ``reconnect_window``: what this joiner keeps if it
    takes the table over (SPEC §7), and ``announcer`` tells the LAN where the table is then."""
    on_events = _guarded(on_events)
    loop = asyncio.get_running_loop()
    session.may_resume = retry_for > 0
    standby = Standby(session, relay) if listen else None
    mesh = Mesh(session.identity.public)
    round_trip = RoundTrip()  # kept across connections: a drop does not reset what we learnt
    first = (host, port)
    route, deadline = _Route(first), -1.0
    try:
        while True:
            target = route.next(session, standby)
            if target is None:  # the host is gone and we are next: we take the table over
                await _take_over(session, standby, on_events, log, silent_after, catch_window,
                                 reconnect_window, announcer)
                return
            session.via_successor = target != _current_host(session, first)
            outcome = await _take_part(session, *target, on_events, log, silent_after,
                                       standby, mesh, round_trip)
            route.note(target, outcome)
            if not session.dropped or _finished(session):
                return
            if session.log_read:  # that connection got back in: this drop has its own retry_for
                deadline = -1.0
                route.failed.clear()
            deadline = loop.time() + retry_for if deadline < 0 else deadline
            if loop.time() >= deadline:
                session.may_resume = False
                session.lost_host(session.dropped)
                on_events(session, session.take_events())
                return
            await asyncio.sleep(RETRY_EVERY)
            session.resume()
    finally:
        mesh.close()
        if standby is not None:
            standby.close()


def _current_host(session: PeerSession, first: tuple[str, int]) -> tuple[str, int]:
    return parse_endpoint(session.host_endpoint()) or first


class _Route:
    """Where a joiner whose host is lost connects next (SPEC §7, "Failover"): the host, and
    while it cannot be reached, by turns the host again and the first of the successors that
    has not failed us; or nobody (None) once every successor before us has failed and the host
    is gone: then we take over."""

    def __init__(self, first: tuple[str, int]) -> None:
        self.first = first
        self.failed: dict[tuple[str, int], str] = {}  # address -> "refused" or "unreachable"
        self.last: tuple[str, int] | None = None

    def note(self, target: tuple[str, int], outcome: str) -> None:
        if outcome:
            self.failed[target] = outcome
        else:
            self.failed.pop(target, None)

    def next(self, session: PeerSession, standby: Standby | None) -> tuple[str, int] | None:
        current = _current_host(session, self.first)
        host = self.failed.get(current, "")
        if (not host or self.last != current or session.game is None
                or session.me not in session.active):
            self.last = current
            return current  # the host first, and again between two tries elsewhere
        for seat in session.successors():
            if seat == session.me:
                gone = host == "refused" or (standby is not None and standby.witnessed)
                if gone and standby is not None and standby.listener is not None:
                    return None
                break
            endpoint = parse_endpoint(session.endpoints[session.keys[seat]])
            if endpoint is not None and endpoint not in self.failed:
                self.last = endpoint  # there, we are its witness
                return endpoint
        self.last = current
        return current


async def _take_over(session: PeerSession, standby: Standby | None, on_events: EventSink,
                     log: LogWriter | None, silent_after: float, catch_window: float,
                     reconnect_window: int, announcer: Announcer | None) -> None:
    """The host is gone and we are next: our listener becomes the table's sequencer."""
    assert standby is not None
    listener = standby.release()
    old = session.names[session.seat_of(session.host_key)]
    session.take_over()
    session.events.append(Event("takeover", f"{old}'s pageone (the host) stopped: this pageone "
                                "takes the table over, and the others reconnect to it…"))
    runner = HostRunner(session, "", 0, on_events, log, silent_after=silent_after,
                        lobby={"reconnect_window": reconnect_window}, listener=listener)
    port = await runner.start()
    assert runner.sequencer is not None
    runner.sequencer.catch_window = catch_window
    if announcer is None:
        await runner.run()
        return
    await announcer.start(port)
    try:
        await runner.run(announcer.tick)
    finally:
        await announcer.stop()


async def _take_part(session: PeerSession, host: str, port: int, on_events: EventSink,
                     log: LogWriter | None, silent_after: float,
                     standby: Standby | None = None, mesh: Mesh | None = None,
                     round_trip: RoundTrip | None = None) -> str:
    """One connection to the host, until the game ends, the table is lost, or the link drops
    while the seat may be resumed (``session.dropped``). "refused" if the host's machine refused
    the connection (nothing listens there: its pageone stopped), "unreachable" if nothing
    answered, else ""."""
    loop = asyncio.get_running_loop()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 5.0)
    except (OSError, TimeoutError) as error:
        why = os.strerror(error.errno) if isinstance(error, OSError) and error.errno else ""
        session.lost_host(f"could not connect to {host}:{port} ({why or 'no answer'})")
        on_events(session, session.take_events())
        return "refused" if isinstance(error, ConnectionRefusedError) else "unreachable"
    if standby is not None:
        standby.witnessed = False  # a host answers: whatever a peer said of it is old news
        if not session.endpoint:
            session.endpoint = await standby.open(writer.get_extra_info("sockname")[0])
    client = Client(session, loop.time(), silent_after)
    if round_trip is not None:
        round_trip.forget_probe()  # an echo on the old connection will never come
        client.rtt = round_trip

    def flush() -> None:
        if log is not None:
            try:
                log.sync(session)
            except LocalFault as fault:  # our disk, not the network: leave, blaming nobody
                session.local_fault(str(fault), loop.time())
                client.collect()
        if client.out and not writer.is_closing():
            writer.write(b"".join(client.out))
        client.out.clear()
        if mesh is not None:
            for endpoint, raw in session.direct_out:
                mesh.send(endpoint, raw)
        session.direct_out.clear()
        on_events(session, session.take_events())

    def wake() -> None:  # a peer's keys, sent to us directly, let us act
        client.collect()
        flush()

    async def read() -> None:
        while data := await _read(reader):
            client.receive(data, loop.time())
            flush()
        client.gone = True  # after the game's end, a hang-up is no fault of anyone's
        if not _finished(session) and not session.dropped:
            client.closed()
            flush()

    reading = asyncio.create_task(read())
    if standby is not None:
        standby.wake = wake
    try:
        while not client.finished(loop.time()) and not session.dropped:
            await asyncio.sleep(TICK)
            client.tick(loop.time())
            flush()
        flush()
        with contextlib.suppress(ConnectionError, OSError, TimeoutError):
            await asyncio.wait_for(writer.drain(), 2.0)
    finally:
        reading.cancel()
        writer.close()
        if standby is not None:
            standby.wake = None
    return ""
