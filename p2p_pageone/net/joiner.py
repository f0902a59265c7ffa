"""A joiner's side of the asyncio transport: one connection to the host after another (a drop
is tried again; a lost host is followed to its successor, or taken over), each pumping bytes
between the socket and the sans-I/O client. No game logic and no decisions here: where each
attempt goes, what its end means and when to try again is ``session.reattach``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Sequence

from ..session.client import Client
from ..session.common import parse_endpoint
from ..session.handover import offer_lost, start_takeover, unanswered_word
from ..session.links import RECONNECT_WINDOW
from ..session.peer import PeerSession
from ..session.reattach import (
    RETRY_FOR,
    Outcome,
    Reattach,
    Retry,
    Stopped,
    TakeOver,
    Wait,
    could_not_connect,
    key_at,
)
from ..session.rtt import RoundTrip
from ..wire.codec import FrameDecoder, ProtocolError
from .logwriter import LocalFault, LogWriter
from .mesh import Mesh
from .runner import (
    Announcer,
    EventSink,
    HostRunner,
    Waker,
    finished,
    guarded,
    read_frame,
)
from .standby import Relay, Standby

__all__ = ["RETRY_FOR", "run_joiner", "start_cpu_peers"]

LOST_ANSWER = 0.5  # how long a lost statement's answer is waited for (it decides nothing)
IDLE_TICK = 0.5  # between connections, how often the session's mesh duties run


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
    takes the table over (SPEC §7), and ``announcer`` tells the LAN where the table is then.
    Where each attempt goes and what its end means is ``session.reattach``."""
    on_events = guarded(on_events)
    loop = asyncio.get_running_loop()
    reattach = Reattach(session, (host, port), retry_for)
    standby = Standby(session, relay) if listen else None
    mesh = Mesh(session.identity, lambda endpoint: key_at(session, parse_endpoint(endpoint)))
    round_trip = RoundTrip()  # kept across connections: a drop does not reset what we learnt
    try:
        while True:
            listening = standby is not None and standby.listener is not None
            step = reattach.next_step(listening, loop.time())
            if isinstance(step, Wait):
                await _between_connections(session, step.pause, on_events, log, mesh)
                continue
            if isinstance(step, TakeOver):
                await _take_over(session, standby, on_events, log, silent_after, catch_window,
                                 reconnect_window, announcer)
                return
            if step.tell:
                told = await tell_lost(session, *step.target, reattach.expected_key(step),
                                       step.tell)
                reattach.told_lost(step, told, loop.time())
            outcome = await _take_part(session, *step.target, on_events, log, silent_after,
                                       standby, mesh, round_trip, reattach.expected_key(step))
            after = reattach.attempted(step, outcome, loop.time())
            if not isinstance(after, Retry):
                if isinstance(after, Stopped):
                    on_events(session, session.take_events())
                return
            await _between_connections(session, after.pause, on_events, log, mesh)
            session.resume()
    finally:
        mesh.close()
        if standby is not None:
            standby.close()


async def _between_connections(session: PeerSession, pause: float, on_events: EventSink,
                               log: LogWriter | None, mesh: Mesh | None) -> None:
    """No connection to the host for ``pause`` seconds (a retry's pause, a successor's wait):
    what the session does on the mesh goes on (its signs of life, the log served to a seat
    behind, its steps through the others: SPEC §7), as the Byzantine simulator runs it."""
    loop = asyncio.get_running_loop()
    until = loop.time() + pause
    while True:
        session.tick(loop.time())
        _pump(session, on_events, log, mesh)
        left = until - loop.time()
        if left <= 0:
            return
        await asyncio.sleep(min(IDLE_TICK, left))


def _pump(session: PeerSession, on_events: EventSink, log: LogWriter | None,
          mesh: Mesh | None) -> None:
    """The log to disk, the session's frames to the mesh, its events to the terminal."""
    if log is not None:
        try:
            log.sync(session)
        except LocalFault as fault:  # our disk, not the network: leave, blaming nobody
            session.local_fault(str(fault), asyncio.get_running_loop().time())
    if mesh is not None:
        for endpoint, raw in session.outbox.direct_out:
            mesh.send(endpoint, raw)
    session.outbox.direct_out.clear()
    on_events(session, session.take_events())


def start_cpu_peers(runner: HostRunner, peers: Sequence[PeerSession], host: str, port: int,
                    logs: Sequence[LogWriter | None], silent_after: float = 10.0,
                    listen: bool = False, relay: Relay | None = None) -> list[asyncio.Task[None]]:
    """The CPU players a host starts (``pageone host --bots``, ``scripts/bench_table.py``): each
    a peer with its own identity and connection to ``host``:``port``, all at once (a door that
    closes one at accept, its address busy, sees it back a second later). The sequencer knows
    them: their moves too wait out a catch window, and a dropped one is not kept."""
    assert runner.sequencer is not None
    runner.sequencer.cpu_keys = {peer.identity.public for peer in peers}
    return [asyncio.create_task(run_joiner(peer, host, port, lambda s, e: None, log,
                                           silent_after, listen=listen, relay=relay))
            for peer, log in zip(peers, logs, strict=True)]


async def tell_lost(session: PeerSession, host: str, port: int, expect: bytes = b"",
                    statement: bytes = b"") -> Outcome:
    """Our ``lost`` ``statement`` to the successor listening at ``host``:``port``, over a
    connection that proves our key (its challenge signed, if ``expect``, the key that announced
    that endpoint, sent it). "refused"/"unreachable" if that address failed us, "taken" if it
    took the statement without a word, else "" (it said why not: then we go on)."""
    if not statement:
        return ""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 5.0)
    except (OSError, TimeoutError) as error:
        return "refused" if isinstance(error, ConnectionRefusedError) else "unreachable"
    decoder = FrameDecoder()
    try:
        frames = await asyncio.wait_for(_answer(reader, decoder), 2.0)
        if offer := offer_lost(session, statement, frames[0], expect):
            writer.write(offer)
            # a listener answers at once (or closes); a successor that took over already says
            # nothing: the answer changes nothing we do, so it is not waited for long
            try:
                answer = await asyncio.wait_for(_answer(reader, decoder), LOST_ANSWER)
            except TimeoutError:
                answer = []
            return "" if answer else "taken"  # a refusal: the host still answers there, or
            # it does not count; none: the listener took it (or took the table over already)
    except (OSError, TimeoutError, ProtocolError, EOFError, IndexError):
        pass
    finally:
        writer.close()
    return ""


async def _answer(reader: asyncio.StreamReader, decoder: FrameDecoder) -> list[bytes]:
    """The next whole frames, or [] once the connection is closed."""
    while data := await read_frame(reader):
        frames = decoder.feed(data)
        if frames:
            return frames
    return []


async def _take_over(session: PeerSession, standby: Standby | None, on_events: EventSink,
                     log: LogWriter | None, silent_after: float, catch_window: float,
                     reconnect_window: int, announcer: Announcer | None) -> None:
    """The host is gone and we are next: our listener becomes the table's sequencer."""
    assert standby is not None
    listener = await standby.hand_over()
    start_takeover(session)
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
                     round_trip: RoundTrip | None = None, expect: bytes = b"") -> str:
    """One connection to the host, until the game ends, the table is lost, or the link drops
    while the seat may be resumed (``session.attachment.dropped``). "refused" if the host's machine
    refused
    the connection (nothing listens there: its pageone stopped), "unreachable" if nothing
    answered, else ""."""
    loop = asyncio.get_running_loop()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 5.0)
    except (OSError, TimeoutError) as error:
        why = os.strerror(error.errno) if isinstance(error, OSError) and error.errno else ""
        outcome = could_not_connect(session, (host, port),
                                    isinstance(error, ConnectionRefusedError), why)
        on_events(session, session.take_events())
        return outcome
    if standby is not None and not session.attachment.endpoint:
        session.attachment.endpoint = await standby.open(writer.get_extra_info("sockname")[0])
    client = Client(session, loop.time(), silent_after, expect=expect)
    if round_trip is not None:
        round_trip.forget_probe()  # an echo on the old connection will never come
        client.rtt = round_trip
    link = _Connection(session, client, writer, on_events, log, mesh)
    woken = Waker(client.next_wake, loop.time)
    session.on_wake, link.nudge, link.ended = woken.now, woken.nudge, woken.now
    reading = asyncio.create_task(link.read(reader))
    if standby is not None:
        standby.wake = link.wake
    try:
        while not client.finished(loop.time()) and not session.attachment.dropped:
            await woken.sleep()
            client.tick(loop.time())
            link.flush()
        link.flush()
        if (word := unanswered_word(session)) and not writer.is_closing():
            writer.write(word)  # it took our intro and said nothing: it reads this once it runs
        with contextlib.suppress(ConnectionError, OSError, TimeoutError):
            await asyncio.wait_for(writer.drain(), 2.0)
    finally:
        reading.cancel()
        writer.close()
        session.on_wake = None
        if standby is not None:
            standby.wake = None
    return ""


class _Connection:
    """Moves one connection's bytes: the client's frames out, the log to disk, our keys to the
    peers they open cards of, the session's events to the terminal."""

    def __init__(self, session: PeerSession, client: Client, writer: asyncio.StreamWriter,
                 on_events: EventSink, log: LogWriter | None, mesh: Mesh | None) -> None:
        self.session, self.client, self.writer = session, client, writer
        self.on_events, self.log, self.mesh = on_events, log, mesh
        self.nudge: Callable[[], None] = lambda: None  # a frame may bring the next tick forward
        self.ended: Callable[[], None] = lambda: None  # the connection closed: tick at once

    def flush(self) -> None:
        session, client = self.session, self.client
        if self.log is not None:
            try:
                self.log.sync(session)
            except LocalFault as fault:  # our disk, not the network: leave, blaming nobody
                session.local_fault(str(fault), asyncio.get_running_loop().time())
                client.collect()
        if client.out and not self.writer.is_closing():
            self.writer.write(b"".join(client.out))
        client.out.clear()
        _pump(session, self.on_events, None, self.mesh)

    def wake(self) -> None:
        """A peer's keys, sent to us directly, let us act."""
        self.client.collect()
        self.flush()

    async def read(self, reader: asyncio.StreamReader) -> None:
        loop, session, client = asyncio.get_running_loop(), self.session, self.client
        while data := await read_frame(reader):
            client.receive(data, loop.time())
            self.flush()
            self.nudge()
        client.gone = True  # after the game's end, a hang-up is no fault of anyone's
        if not finished(session) and not session.attachment.dropped:
            client.closed()
            self.flush()
        self.ended()  # the connection's loop ends now, not at its next tick
