"""An in-memory table whose every frame passes through a scheduler the adversary steers.

Three channels carry frames: ``down`` (a host to a joiner), ``up`` (a joiner to a host) and
``mesh`` (a joiner to another joiner's listener). The first host is party 0; an honest joiner
that takes the table over becomes a host too (``hosts``), and each connection reaches one.
Each link is a TCP stream: what one side writes arrives in order, after the link's delay. A
frame sent or received by a corrupt party passes through the adversary first (it may drop,
delay, duplicate or reorder it); honest faults (a stopped process, a stalled link) hold frames
until they end, as TCP would.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from ..bots.normal import NormalBot
from ..crypto.envelope import open_envelope
from ..crypto.identity import Identity
from ..engine.moves import Catch, Move
from ..engine.settings import Settings
from ..engine.view import SeatView
from ..session.client import Client
from ..session.common import parse_endpoint
from ..session.handover import start_takeover
from ..session.memory import MemoryTable, make_peer
from ..session.mesh_gate import Admit, admit
from ..session.peer import PeerSession
from ..session.route import Address
from ..session.sequencer import Sequencer
from .frames import classify, logged, payloads
from .rejoin import SILENT_AFTER, Links

HOST = 0
FORGET = 0.25


@dataclass(order=True)
class Frame:
    due: float
    order: int
    channel: str = field(compare=False)  # "down", "up" or "mesh"
    src: int = field(compare=False)  # 0: the host, i: joiner i
    dst: int = field(compare=False)
    data: bytes = field(compare=False)
    in_order: bool = field(default=True, compare=False)  # False: the adversary reordered it
    conn: int = field(default=-1, compare=False)  # the host's connection ("up", "down")
    signal: str = field(default="", compare=False)  # "open" or "close" that connection


Route = Callable[[Frame, float], list[tuple[float, bytes]]]


def _no_adversary(frame: Frame, now: float) -> list[tuple[float, bytes]]:
    return [(0.0, frame.data)]


@dataclass
class HonestFault:
    """A fault of honest parties: ``stop`` (a process runs nothing), ``stall`` (a link passes
    nothing: frames wait), ``slow`` (a link's frames take ``delay`` more) over [start, end)."""

    kind: str
    parties: tuple[int, ...]
    start: float
    end: float
    delay: float = 0.0

    def active(self, now: float) -> bool:
        return self.start <= now < self.end

    def on_link(self, a: int, b: int) -> bool:
        return a in self.parties and (self.kind == "stop" or len(self.parties) == 1
                                      or b in self.parties)


class SlowToCatch(NormalBot):
    """A person who does not notice a missed call: it never catches one (the Page One window
    then stays open for the late call, and for a friend's catch the host may have set up)."""

    def choose(self, view: SeatView, rng: random.Random) -> Move | None:
        move = super().choose(view, rng)
        if not isinstance(move, Catch):
            return move
        if view.turn != view.seat:
            return None
        return self.decide(view, [m for m in view.legal_moves() if not isinstance(m, Catch)],
                           rng)


class SimTable(MemoryTable):
    """``players`` peers (the first hosts), every joiner listening on the mesh. ``window``: the
    Page One window the host keeps (as at a table of people), in which nobody honest catches."""

    def __init__(self, settings: Settings, players: int, seed: int, delay: float = 0.01,
                 route: Route = _no_adversary, window: float = 0.0) -> None:
        peers = [make_peer(f"byz{seed}/0", "p0", host_table=("sim", settings, players))]
        peers += [make_peer(f"byz{seed}/{i}", f"p{i}") for i in range(1, players)]
        for peer in peers:  # honest players forget a call now and then: calls to catch
            bot = SlowToCatch() if window else NormalBot()
            bot.forget = FORGET
            peer.bot = bot
        super().__init__(settings, players, peers=peers, direct=True, catch_window=window)
        self.delay, self.route, self.players, self.window = delay, route, players, window
        self.faults: list[HonestFault] = []
        self.queue: list[Frame] = []
        self.last_due: dict[tuple[str, int, int, int], float] = {}
        self.counter = 0
        self.crashed: set[int] = set()  # corrupt parties whose code fell over (or killed)
        self.corrupt: set[int] = set()
        self.links = Links(self, [])  # set by ``connect_honest`` once the corrupt are known
        self.hosts: dict[int, Sequencer] = {HOST: self.sequencer}  # party -> its sequencer
        self.sent: dict[str, int] = {}
        # party -> (when, its moment) it sent a Page One call up; a logged catch -> (when,
        # target, the moment it caught in)
        self.calls: dict[int, list[tuple[float, tuple[int, int]]]] = {}
        self.catches: dict[bytes, tuple[float, int, tuple[int, int]]] = {}

    def party(self, index: int) -> PeerSession:
        return self.sessions[index]

    def connect_honest(self, honest: list[int]) -> None:
        """The honest joiners keep their connections and come back as ``pageone join`` does."""
        self.links = Links(self, honest)

    def session(self, party: int) -> PeerSession:
        return self._session(party)

    def client(self, party: int) -> Client:
        return self.clients[party - 1]

    def at_endpoint(self, address: Address) -> int:
        return next((i for i, c in enumerate(self.clients, start=1)
                     if parse_endpoint(c.session.attachment.endpoint) == address), -1)

    def replace_client(self, party: int, client: Client) -> None:
        self.clients[party - 1] = client
        self.by_endpoint[client.session.attachment.endpoint] = client

    def send_up(self, party: int, conn: int, data: bytes) -> None:
        self.send("up", party, self.links.host_of(conn), data, conn)

    def open_up(self, party: int, conn: int) -> None:
        self._enqueue("up", party, self.links.host_of(conn), b"", 0.0, conn, "open")

    def close_up(self, party: int, conn: int) -> None:
        self._enqueue("up", party, self.links.host_of(conn), b"", 0.0, conn, "close")

    def take_over(self, party: int, now: float) -> None:
        """Honest joiner ``party`` takes the table over, as ``net/joiner`` does: its session
        becomes a new host's sequencer, which the others reach at its endpoint."""
        start_takeover(self.sessions[party])
        self.hosts[party] = Sequencer(self.sessions[party], now, SILENT_AFTER,
                                      catch_window=self.window)

    def stopped(self, index: int, now: float) -> bool:
        return any(f.kind == "stop" and index in f.parties and f.active(now) for f in self.faults)

    def _held_until(self, a: int, b: int, now: float) -> float:
        until = now
        for fault in self.faults:
            if fault.kind in ("stop", "stall") and fault.active(now) and (
                    fault.on_link(a, b) or fault.on_link(b, a)):
                until = max(until, fault.end)
        return until

    def _slow(self, a: int, b: int, now: float) -> float:
        return sum(f.delay for f in self.faults if f.kind == "slow" and f.active(now)
                   and (f.on_link(a, b) or f.on_link(b, a)))

    def send(self, channel: str, src: int, dst: int, data: bytes, conn: int | None = None) -> None:
        """A frame on ``channel``; "up" and "down" go on the joiner's present connection
        unless ``conn`` says which."""
        if conn is None:
            conn = self.links.conn_of(dst if channel == "down" else src) if channel != "mesh" \
                else -1
        self.sent[channel] = self.sent.get(channel, 0) + 1
        self._note_calls(channel, src, data)
        frame = Frame(0.0, 0, channel, src, dst, data, conn=conn)
        for extra, payload in self.route(frame, self.now):
            self._enqueue(channel, src, dst, payload, extra, conn)

    def _note_calls(self, channel: str, src: int, data: bytes) -> None:
        if channel == "mesh" or (b"call" not in data and b"catch" not in data):
            return
        cls = classify(data, channel)
        if cls == "entry:move/call" and channel == "up":
            self.calls.setdefault(src, []).append((self.now, self._moment(src)))
        elif cls == "entry:move/catch" and channel == "down":
            for payload in payloads(data, channel):
                env = open_envelope(logged(payload))
                hand, moves = self._moment(src)  # the catch is folded: one move after,
                waits = any(claim.env.raw == env.raw  # unless it waits for its witnesses
                            for claim in self.sessions[src].claims)
                self.catches.setdefault(env.raw, (self.now, env.data["target"],
                                                  (hand, moves if waits else moves - 1)))

    def _moment(self, index: int) -> tuple[int, int]:
        """(hand, moves made in it) as party ``index`` folded the log."""
        session = self.sessions[index]
        game = session.game
        return (session.hand, game.deal.moves) if game is not None else (session.hand, -1)

    def _enqueue(self, channel: str, src: int, dst: int, data: bytes, extra: float,
                 conn: int = -1, signal: str = "") -> None:
        link = (channel, src, dst, conn)  # a new connection is a new stream
        base = max(self.now, self._held_until(src, dst, self.now))
        due = base + self.delay + self._slow(src, dst, self.now) + abs(extra)
        in_order = extra >= 0
        if in_order:
            due = max(due, self.last_due.get(link, 0.0))
            self.last_due[link] = due
        self.counter += 1
        self.queue.append(Frame(due, self.counter, channel, src, dst, data, in_order, conn,
                                signal))

    def gone(self, index: int) -> bool:
        """Dead, fallen over, or a corrupt party whose session ended (its process exits, as
        pageone does when its table ends)."""
        return (index in self.dead or index in self.crashed
                or (index in self.corrupt and bool(self._session(index).ended)))

    def _session(self, index: int) -> PeerSession:
        return self.sequencer.host if index == HOST else self.clients[index - 1].session

    def _collect(self) -> None:
        links = self.links
        for host, sequencer in self.hosts.items():
            out, sequencer.out = sequencer.out, []
            for conn, data in out:
                if conn in links.host_open:
                    self.send("down", host, links.party_at[conn], data, conn)
            for conn in sequencer.to_close:  # the host hung up: the joiner reads the end
                if conn in links.host_open:  # after what was sent before
                    links.host_open.discard(conn)
                    self._enqueue("down", host, links.party_at[conn], b"", 0.0, conn, "close")
            sequencer.to_close.clear()
        for index, client in enumerate(self.clients, start=1):
            chunks, client.out = client.out, []
            sent, client.session.outbox.direct_out = client.session.outbox.direct_out, []
            if self.gone(index) or index in self.hosts:
                continue
            conn = links.conn_of(index)
            for chunk in chunks if conn >= 0 else []:
                self.send("up", index, links.host_of(conn), chunk, conn)
            for endpoint, raw in sent:
                owner = self.by_endpoint.get(endpoint)
                if owner is not None:
                    self.send("mesh", index, self.clients.index(owner) + 1, raw)

    def step(self) -> bool:
        self._collect()
        due = sorted(f for f in self.queue if f.due <= self.now)
        if not due:
            return False
        taken = {id(f) for f in due}
        self.queue = [f for f in self.queue if id(f) not in taken]
        for frame in due:
            self._deliver(frame)
        self._collect()
        return True

    def _deliver(self, frame: Frame) -> None:
        if self.gone(frame.dst) or frame.src in self.dead:  # what an ended process wrote
            return  # before it exited still arrives
        if frame.channel == "up" and frame.conn not in self.links.host_open:
            return  # the host closed that connection
        if frame.channel == "down" and not self.links.reads(frame.dst, frame.conn):
            return  # the joiner closed it
        if frame.channel == "mesh" and frame.dst in self.hosts:
            return  # a new host's listener takes no direct frames
        if self.stopped(frame.dst, self.now):  # it reads its socket when it runs again
            self._enqueue(frame.channel, frame.src, frame.dst, frame.data, 0.0, frame.conn,
                          frame.signal)
            return
        self.guarded(frame.dst, lambda: self._hand(frame))

    def _hand(self, frame: Frame) -> None:
        if frame.signal:
            self._signal(frame)
        elif frame.channel == "up":
            self.hosts[self.links.host_of(frame.conn)].receive(frame.conn, frame.data, self.now)
        elif frame.channel == "down":
            self.clients[frame.dst - 1].receive(frame.data, self.now)
        else:  # the mesh: what the listener takes of a connection proven as the sender's
            client = self.clients[frame.dst - 1]
            if admit(client.session, frame.data,
                     self.sessions[frame.src].identity.public) in (Admit.TAKE, Admit.HOLD):
                client.session.direct(frame.data, self.now)
                client.collect()

    def _signal(self, frame: Frame) -> None:
        if frame.channel == "down":
            self.links.host_closed(frame.dst, frame.conn)
        elif frame.signal == "open":
            self.hosts[self.links.host_of(frame.conn)].connect(frame.conn, self.now,
                                                               f"p{frame.src}")
        else:
            self.links.host_open.discard(frame.conn)
            self.hosts[self.links.host_of(frame.conn)].disconnect(frame.conn, self.now)

    def guarded(self, index: int, run: Callable[[], None]) -> None:
        """Run a party's code: a corrupt party's may fall over (it is then gone); an honest
        party's exception is the simulator's finding."""
        if index not in self.corrupt:
            run()
            return
        try:
            run()
        except Exception:
            self.crashed.add(index)

    def advance(self, now: float) -> None:
        while self.step():
            pass
        self.now = now
        while self.step():
            pass
        for host, sequencer in self.hosts.items():
            if not self.gone(host) and not self.stopped(host, now):
                self.guarded(host, lambda s=sequencer: s.tick(now))  # type: ignore[misc]
        for index, client in enumerate(self.clients, start=1):
            if self.gone(index) or self.stopped(index, now) or index in self.hosts:
                continue  # between connections, only the session's mesh duties run (net/joiner)
            tick = client.tick if self.links.conn_of(index) >= 0 else client.session.tick
            self.guarded(index, lambda t=tick: t(now))  # type: ignore[misc]
        self.links.tick(now)
        while self.step():
            pass

    def next_due(self) -> float:
        return min((f.due for f in self.queue), default=float("inf"))


def identity_of(table: SimTable, index: int) -> Identity:
    return table.sessions[index].identity


def client_of(table: SimTable, index: int) -> Client:
    return table.clients[index - 1]


def seeded(seed: int, salt: str) -> random.Random:
    return random.Random(f"{seed}/{salt}")
