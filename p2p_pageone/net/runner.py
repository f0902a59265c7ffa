"""asyncio TCP transport: pumps bytes between sockets and the sans-I/O sequencer and clients.

No game logic here. Time is the event loop's monotonic clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable

from ..session.client import Client
from ..session.common import Event
from ..session.peer import PeerSession
from ..session.sequencer import LOBBY_TIMEOUT, RECONNECT_WINDOW, START_AFTER, Sequencer
from .logwriter import LocalFault, LogWriter

__all__ = ["HostRunner", "LocalFault", "LogWriter", "run_joiner"]

EventSink = Callable[[PeerSession, list[Event]], None]
TICK = 0.1
MAX_CONNECTIONS = 64  # beyond this a new connection is closed before the sequencer sees it
LINGER = 10.0  # after the game, how long the host waits for joiners to take the last entries
RETRY_FOR = 60.0  # a joiner whose connection drops mid-game tries again for this long
RETRY_EVERY = 1.0


async def _read(reader: asyncio.StreamReader) -> bytes:
    """The next bytes from a peer, or b"" once the connection is gone. Only the network read
    is guarded: an error of this machine (its disk, its terminal) is never a lost peer."""
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
                 step_timeout: float = 30.0, lobby: dict[str, float] | None = None) -> None:
        self.session, self.bind, self.port = session, bind, port
        self.on_events, self.log = _guarded(on_events), log
        self.silent_after, self.step_timeout = silent_after, step_timeout
        self.lobby = lobby or {}  # Sequencer's min_players, start_after, lobby_timeout,
        # reconnect_window
        self.sequencer: Sequencer | None = None
        self.writers: dict[int, asyncio.StreamWriter] = {}
        self._ids = itertools.count(1)
        self._server: asyncio.Server | None = None

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
        self._server = await asyncio.start_server(self._handle, self.bind, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        self.flush()
        return self.port

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        assert self.sequencer is not None
        if len(self.writers) >= MAX_CONNECTIONS:
            writer.close()
            return
        conn = next(self._ids)
        self.writers[conn] = writer
        self.sequencer.connect(conn, self._now())
        self.flush()
        if conn not in self.writers:
            return
        try:
            while data := await _read(reader):
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
        """Let every seated joiner take the last entries and hang up, up to ``LINGER`` seconds.

        A joiner closes its connection only once it has the end of the game, so waiting for that
        (not for a fixed moment) is what delivers the final reveals over a slow link.
        """
        assert self.sequencer is not None
        deadline = self._now() + LINGER
        while self._now() < deadline:
            seated = [conn for conn, link in self.sequencer.links.items()
                      if link.key and conn in self.writers]
            if not seated:
                return
            self.sequencer.tick(self._now())
            self.flush()
            await asyncio.sleep(TICK)

    async def close(self) -> None:
        for writer in list(self.writers.values()):
            writer.close()
        self.writers.clear()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None


async def run_joiner(session: PeerSession, host: str, port: int, on_events: EventSink,
                     log: LogWriter | None, silent_after: float = 10.0,
                     retry_for: float = RETRY_FOR) -> None:
    """Connect to a host and take part until the game ends or the table is lost.

    A connection lost mid-game (a Wi-Fi drop, the host's link) is tried again every second for
    ``retry_for`` seconds: the host keeps the seat for its return (SPEC §7, "Reconnect")."""
    on_events = _guarded(on_events)
    loop = asyncio.get_running_loop()
    session.may_resume = retry_for > 0
    deadline = -1.0
    while True:
        await _take_part(session, host, port, on_events, log, silent_after)
        if not session.dropped or _finished(session):
            return
        if session.log_read:  # that connection got back in: this drop has its own retry_for
            deadline = -1.0
        deadline = loop.time() + retry_for if deadline < 0 else deadline
        if loop.time() >= deadline:
            session.may_resume = False
            session.lost_host(session.dropped)
            on_events(session, session.take_events())
            return
        await asyncio.sleep(RETRY_EVERY)
        session.resume()


async def _take_part(session: PeerSession, host: str, port: int, on_events: EventSink,
                     log: LogWriter | None, silent_after: float) -> None:
    """One connection to the host, until the game ends, the table is lost, or the link drops
    while the seat may be resumed (``session.dropped``)."""
    loop = asyncio.get_running_loop()
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except OSError as error:
        session.lost_host(f"could not connect to {host}:{port} ({error.strerror or error})")
        on_events(session, session.take_events())
        return
    client = Client(session, loop.time(), silent_after)

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
        on_events(session, session.take_events())

    async def read() -> None:
        while data := await _read(reader):
            client.receive(data, loop.time())
            flush()
        if not _finished(session) and not session.dropped:
            client.closed()
            flush()

    reading = asyncio.create_task(read())
    try:
        while not _finished(session) and not session.dropped:
            await asyncio.sleep(TICK)
            client.tick(loop.time())
            flush()
        with contextlib.suppress(ConnectionError, OSError, TimeoutError):
            await asyncio.wait_for(writer.drain(), 2.0)
    finally:
        reading.cancel()
        writer.close()
