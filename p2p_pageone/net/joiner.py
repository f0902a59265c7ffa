"""A joiner's side of the asyncio transport: one connection to the host after another (a drop
is tried again; a lost host is followed to its successor, or taken over), each pumping bytes
between the socket and the sans-I/O client. No game logic here; where to connect next is
``session.route``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Sequence

from ..crypto.statements import proof_of_key
from ..session.attachment import MINORITY, lost_frame
from ..session.client import Client
from ..session.common import Event, parse_endpoint
from ..session.fold.lost import listening_seats
from ..session.links import RECONNECT_WINDOW
from ..session.peer import PeerSession
from ..session.reach import DropReach, nobody_reached
from ..session.route import Route
from ..session.rtt import RoundTrip
from ..wire.codec import FrameDecoder, ProtocolError, unpack
from ..wire.messages import validate_control
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

RETRY_FOR = 60.0  # a joiner whose connection drops mid-game tries again for this long
RETRY_EVERY = 1.0  # between two tries in the lobby (a busy door)
RETRY_IN_GAME = 0.25  # between two tries mid-game: the host again, the successor once it serves
LOST_ANSWER = 0.5  # how long a lost statement's answer is waited for (it decides nothing)
HOST_AGAIN = 5.0  # a host the successor lost too is tried again no sooner than this


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
    on_events = guarded(on_events)
    loop = asyncio.get_running_loop()
    session.attachment.may_resume = retry_for > 0
    standby = Standby(session, relay) if listen else None
    mesh = Mesh(session.identity, lambda endpoint: _key_at(session, parse_endpoint(endpoint)))
    round_trip = RoundTrip()  # kept across connections: a drop does not reset what we learnt
    route, deadline = Route((host, port)), -1.0
    reach = DropReach()  # whom this drop's attempts reached: none at all is our own network
    telling, was_up = _Telling(), False
    try:
        while True:
            listening = standby is not None and standby.listener is not None
            target = route.next(session, listening, session.lost_majority())
            if target is None:  # a majority lost the host and we are next: we take over
                await _take_over(session, standby, on_events, log, silent_after, catch_window,
                                 reconnect_window, announcer)
                return
            address = route.host(session)
            target = await telling.aim(session, route, target, address, loop.time())
            expect = _key_at(session, target) or (session.host_key if target == address else b"")
            outcome = await _take_part(session, *target, on_events, log, silent_after,
                                       standby, mesh, round_trip, expect)
            outcome = _failed(session, target == address, outcome)
            route.note(target, outcome)
            reach.note(target, outcome)
            if not session.attachment.dropped or finished(session):
                return
            if up := session.attachment.log_read:  # it got in: this drop has its retry_for
                deadline = -1.0
                route.failed.clear()
                session.attachment.lost.clear()  # the host answered: old news
                reach.clear()
            deadline = loop.time() + retry_for if deadline < 0 else deadline
            if loop.time() >= deadline or route.nobody_left(session):
                _stop(session, route, reach, retry_for)
                on_events(session, session.take_events())
                return
            now_up, was_up = up and not was_up, up  # one that worked: again at once, not twice
            await asyncio.sleep(0.0 if now_up else RETRY_IN_GAME if session.game else RETRY_EVERY)
            session.resume()
    finally:
        mesh.close()
        if standby is not None:
            standby.close()


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


class _Telling:
    """Where our signed word that we lost the host went (each successor gets it once), and
    when we last tried the host's address."""

    def __init__(self) -> None:
        self.told: dict[tuple[str, int], bytes] = {}  # the lost statement a successor took
        self.host_tried = -HOST_AGAIN

    async def aim(self, session: PeerSession, route: Route, target: tuple[str, int],
                  address: tuple[str, int], now: float) -> tuple[str, int]:
        """Where to connect now (``target``, or the successor instead of a failed host); our
        lost statement goes first to a successor that does not have it yet."""
        lost = session.attachment.lost.get(session.identity.public, b"")
        if now - self.host_tried < HOST_AGAIN:
            target = _past_host(session, route, target, address, self.told, lost)
        if target == address:
            self.host_tried = now
        session.attachment.via_successor = target != address
        if target != address and self.told.get(target) != lost:
            outcome = await tell_lost(session, *target, _key_at(session, target))
            self.told[target] = lost if outcome == "taken" else b""
            route.note(target, "" if outcome == "taken" else outcome)
        return target


def _past_host(session: PeerSession, route: Route, target: tuple[str, int],
               address: tuple[str, int], told: dict[tuple[str, int], bytes],
               lost: bytes) -> tuple[str, int]:
    """The host failed us and the successor standing next took our lost statement (it lost the
    host too): we try it, not the host between (a stopped host's machine costs a challenge's
    wait each time; a successor that still had the host would have refused the statement),
    the host again only ``HOST_AGAIN`` after the last try (it may have come back)."""
    if target != address or not route.failed.get(address) or not lost:
        return target
    seat = route.next_standing(session)
    endpoint = parse_endpoint(session.endpoints.get(session.keys[seat], "")) if seat >= 0 else None
    return endpoint if endpoint is not None and told.get(endpoint) == lost else target


def _failed(session: PeerSession, to_host: bool, outcome: str) -> str:
    """How a connection failed us: as it says, or, one to the host that never answered our
    intro, or that we left signing that it does not serve the table, "unanswered". A failed
    host is lost: we sign that (kept for the successor)."""
    at = session.attachment
    if (not outcome and to_host and at.dropped
            and (not at.answered or session.identity.public in at.lost)):
        outcome = "unanswered"
    if to_host and outcome:
        session.sign_lost(f"{at.dropped or 'the host is gone'} ({outcome} again)")
    return outcome


def _stop(session: PeerSession, route: Route, reach: DropReach, retry_for: float) -> None:
    """The retry window is over and no takeover came: who lost what decides the words."""
    session.attachment.may_resume = False
    if route.nobody_left(session):
        session.network_stop("nobody of this table answers any more (the host and every seat "
                             "that listens refused): the game most likely ended, or went on "
                             "without this machine, while it could not take part; nobody is to "
                             "blame")
    elif reach.nobody():  # every attempt failed: this machine's network (exit 5)
        session.network_lost(nobody_reached(retry_for))
    elif session.identity.public in session.attachment.lost and session.may_take_over():
        session.network_stop(MINORITY)  # the others did not lose the host: we did
    else:
        session.lost_host(session.attachment.dropped)


def _key_at(session: PeerSession, where: tuple[str, int] | None) -> bytes:
    """The key of the seat that announced the endpoint ``where`` (b"" if none did): what must
    answer there before we prove our key to it."""
    return next((key for key, endpoint in session.endpoints.items()
                 if where is not None and parse_endpoint(endpoint) == where), b"")


async def tell_lost(session: PeerSession, host: str, port: int, expect: bytes = b"") -> str:
    """Our ``lost`` statement to the successor listening at ``host``:``port``, over a
    connection that proves our key (its challenge signed, if ``expect``, the key that announced
    that endpoint, sent it). "refused"/"unreachable" if that address failed us, "taken" if it
    took the statement without a word, else "" (it said why not: then we go on)."""
    raw = session.attachment.lost.get(session.identity.public, b"")
    if not raw:
        return ""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 5.0)
    except (OSError, TimeoutError) as error:
        return "refused" if isinstance(error, ConnectionRefusedError) else "unreachable"
    decoder = FrameDecoder()
    try:
        frames = await asyncio.wait_for(_answer(reader, decoder), 2.0)
        value = unpack(frames[0])
        if (isinstance(value, dict) and validate_control(value, ("challenge",))
                and (not expect or value["from"] == expect)):  # never signed for a relay
            proof = proof_of_key(session.identity, value["nonce"], value["from"], "lost")
            writer.write(lost_frame(session, raw, proof))
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
    listener = standby.release()
    old = session.names[session.seat_of(session.host_key)]
    gone = (f"{old}'s machine (the host) cannot write its log and handed the table over"
            if session.handed_over >= 0 else f"{len(session.lost_statements())} of the "
            f"{len(listening_seats(session))} seats that listen lost {old}'s pageone (the "
            "host), a majority")
    session.take_over()
    session.events.append(Event("takeover", f"{gone}: this pageone takes the table over, "
                                "and the others reconnect to it…"))
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
        session.lost_host(f"could not connect to {host}:{port} ({why or 'no answer'})")
        on_events(session, session.take_events())
        return "refused" if isinstance(error, ConnectionRefusedError) else "unreachable"
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
        at = session.attachment
        if at.dropped and not at.answered and not at.via_successor:  # it took our intro and
            lost = session.sign_lost(f"{at.dropped}; a new connection was not answered")
            if lost and not writer.is_closing():  # said nothing: it reads this once it runs
                writer.write(lost_frame(session, lost))
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
        if self.mesh is not None:
            for endpoint, raw in session.outbox.direct_out:
                self.mesh.send(endpoint, raw)
        session.outbox.direct_out.clear()
        self.on_events(session, session.take_events())

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
