"""An in-memory table whose every frame passes through a scheduler the adversary steers.

Three channels carry frames: ``down`` (the host to a joiner), ``up`` (a joiner to the host) and
``mesh`` (a joiner to another joiner's listener). Each link is a TCP stream: what one side writes
arrives in order, after the link's delay. A frame sent or received by a corrupt party passes
through the adversary first (it may drop, delay, duplicate or reorder it); honest faults (a
stopped process, a stalled link) hold frames until they end, as TCP would.
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
from ..session.memory import MemoryTable, make_peer
from ..session.peer import PeerSession
from ..session.reach import DropReach
from ..session.reattach import RETRY_FOR, still_heard, stop_retrying
from ..session.route import Route as Way
from .frames import classify, logged, payloads

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
        self.delay, self.route = delay, route
        self.unanswered: Callable[[int, float], bool] = lambda conn, now: False
        self.faults: list[HonestFault] = []
        self.queue: list[Frame] = []
        self.last_due: dict[tuple[str, int, int], float] = {}
        self.counter = 0
        self.crashed: set[int] = set()  # corrupt parties whose code fell over (or killed)
        self.corrupt: set[int] = set()
        # joiners whose connection the host closed, and when: each tries again, as pageone
        # does, at a host that does not answer (the simulator has no reconnect)
        self.cut: dict[int, float] = {}
        self.sent: dict[str, int] = {}
        # party -> (when, its moment) it sent a Page One call up; a logged catch -> (when,
        # target, the moment it caught in)
        self.calls: dict[int, list[tuple[float, tuple[int, int]]]] = {}
        self.catches: dict[bytes, tuple[float, int, tuple[int, int]]] = {}

    def party(self, index: int) -> PeerSession:
        return self.sessions[index]

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

    def send(self, channel: str, src: int, dst: int, data: bytes) -> None:
        self.sent[channel] = self.sent.get(channel, 0) + 1
        self._note_calls(channel, src, data)
        frame = Frame(0.0, 0, channel, src, dst, data)
        for extra, payload in self.route(frame, self.now):
            self._enqueue(channel, src, dst, payload, extra)

    def _note_calls(self, channel: str, src: int, data: bytes) -> None:
        if channel == "mesh" or (b"call" not in data and b"catch" not in data):
            return
        cls = classify(data, channel)
        if cls == "entry:move/call" and channel == "up":
            self.calls.setdefault(src, []).append((self.now, self._moment(src)))
        elif cls == "entry:move/catch" and channel == "down":
            for payload in payloads(data, channel):
                env = open_envelope(logged(payload))
                hand, moves = self._moment(HOST)  # the catch is folded: one move after
                self.catches.setdefault(env.raw, (self.now, env.data["target"],
                                                  (hand, moves - 1)))

    def _moment(self, index: int) -> tuple[int, int]:
        """(hand, moves made in it) as party ``index`` folded the log."""
        session = self.sessions[index]
        game = session.game
        return (session.hand, game.deal.moves) if game is not None else (session.hand, -1)

    def _enqueue(self, channel: str, src: int, dst: int, data: bytes, extra: float) -> None:
        link = (channel, src, dst)
        base = max(self.now, self._held_until(src, dst, self.now))
        due = base + self.delay + self._slow(src, dst, self.now) + abs(extra)
        in_order = extra >= 0
        if in_order:
            due = max(due, self.last_due.get(link, 0.0))
            self.last_due[link] = due
        self.counter += 1
        self.queue.append(Frame(due, self.counter, channel, src, dst, data, in_order))

    def gone(self, index: int) -> bool:
        """Dead, fallen over, or a corrupt party whose session ended (its process exits, as
        pageone does when its table ends)."""
        return (index in self.dead or index in self.crashed
                or (index in self.corrupt and bool(self._session(index).ended)))

    def _session(self, index: int) -> PeerSession:
        return self.sequencer.host if index == HOST else self.clients[index - 1].session

    def _collect(self) -> None:
        out, self.sequencer.out = self.sequencer.out, []
        for conn, data in out:
            if conn < len(self.sessions):
                self.send("down", HOST, conn, data)
        for conn in self.sequencer.to_close:  # the host hung up: that joiner's process goes
            if conn not in self.cut and 0 < conn < len(self.sessions):  # on, on the mesh
                self.cut[conn] = self.now
                # the simulator has no reconnect: a joiner the host would take back ends (as
                # one that lost its table); one the host reads nothing from keeps trying, as
                # pageone does, at a host that never answers
                self.clients[conn - 1].session.attachment.may_resume = self.unanswered(conn,
                                                                                       self.now)
                self.guarded(conn, self.clients[conn - 1].closed)
        self.sequencer.to_close.clear()
        for index, client in enumerate(self.clients, start=1):
            chunks, client.out = client.out, []
            sent, client.session.outbox.direct_out = client.session.outbox.direct_out, []
            if self.gone(index):
                continue
            for chunk in chunks:
                self.send("up", index, HOST, chunk)
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
        if frame.channel != "mesh" and (frame.src in self.cut or frame.dst in self.cut):
            return
        if self.stopped(frame.dst, self.now):  # it reads its socket when it runs again
            self._enqueue(frame.channel, frame.src, frame.dst, frame.data, 0.0)
            return
        self.guarded(frame.dst, lambda: self._hand(frame))

    def _hand(self, frame: Frame) -> None:
        if frame.channel == "up":
            self.sequencer.receive(frame.src, frame.data, self.now)
        elif frame.channel == "down":
            self.clients[frame.dst - 1].receive(frame.data, self.now)
        else:
            client = self.clients[frame.dst - 1]
            client.session.direct(frame.data, self.now)
            client.collect()

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
        if not self.gone(HOST) and not self.stopped(HOST, now):
            self.guarded(HOST, lambda: self.sequencer.tick(now))
        for index, client in enumerate(self.clients, start=1):
            if not self.gone(index) and not self.stopped(index, now):
                self.guarded(index, lambda c=client: c.tick(now))  # type: ignore[misc]
        self._stop_retrying(now)
        while self.step():
            pass

    def _stop_retrying(self, now: float) -> None:
        """A cut joiner's retry window ends as ``Reattach`` ends it (``still_heard``)."""
        for index, since in self.cut.items():
            session = self.clients[index - 1].session
            if (session.attachment.dropped and not session.ended
                    and now >= since + RETRY_FOR and not still_heard(session, now)):
                self.guarded(index, lambda s=session: stop_retrying(  # type: ignore[misc]
                    s, Way(("", 0)), DropReach(), RETRY_FOR))

    def next_due(self) -> float:
        return min((f.due for f in self.queue), default=float("inf"))


def identity_of(table: SimTable, index: int) -> Identity:
    return table.sessions[index].identity


def client_of(table: SimTable, index: int) -> Client:
    return table.clients[index - 1]


def seeded(seed: int, salt: str) -> random.Random:
    return random.Random(f"{seed}/{salt}")
