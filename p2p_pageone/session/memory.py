"""A whole table in memory: a sequencer and its clients pumped with simulated time.

Used by the tests and to check the protocol without sockets. Deterministic for a given seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..bots import make_bot
from ..crypto.identity import Identity
from ..engine.settings import Settings
from .client import Client
from .fold.obligations import BOUNDS
from .mesh_gate import Admit, admit
from .peer import PeerSession
from .sequencer import Sequencer
from .watch import Watcher

WATCHER_CONN = 1000  # watchers' connections are numbered from here


def make_peer(seed: str, name: str, level: str = "normal", autoplay: bool = True,
              host_table: tuple[str, Settings, int] | None = None) -> PeerSession:
    rng = random.Random(seed)
    return PeerSession(Identity(rng.randbytes(32)), name, rng.randbytes, bot=make_bot(level),
                       rng=random.Random(seed + "/bot"), autoplay=autoplay,
                       host_table=host_table)


class MemoryTable:
    """``peers``: the sessions to seat (the first hosts, with ``host_table`` set); by default
    CPU peers ``p0``, ``p1``, … made from ``seed``. ``pageone play`` runs one of these with the
    player's own session first, pumped in real time by the terminal."""

    def __init__(self, settings: Settings, players: int, seed: int = 0,
                 levels: list[str] | None = None, silent_after: float = 10.0,
                 step_timeout: float = BOUNDS.step, peers: list[PeerSession] | None = None,
                 catch_window: float = 0.0, now: float = 0.0, direct: bool = False) -> None:
        levels = levels or ["normal"] * players
        self.now = now
        if peers is None:
            peers = [make_peer(f"{seed}/0", "p0", levels[0],
                               host_table=("memory", settings, players))]
            peers += [make_peer(f"{seed}/{i}", f"p{i}", levels[i % len(levels)])
                      for i in range(1, players)]
        self.sequencer = Sequencer(peers[0], self.now, silent_after, step_timeout,
                                   catch_window=catch_window)
        self.clients = [Client(peer, self.now, silent_after) for peer in peers[1:]]
        self.dead: set[int] = set()
        # ``direct``: every joiner "listens", and the keys envelopes it sends to another
        # joiner's endpoint reach that joiner at once, ahead of the sequencer's relay.
        self.by_endpoint: dict[str, Client] = {}
        if direct:
            for index, client in enumerate(self.clients, start=1):
                client.session.attachment.endpoint = f"127.0.0.1:{40000 + index}"
                self.by_endpoint[client.session.attachment.endpoint] = client
        for conn in range(1, players):
            self.sequencer.connect(conn, self.now)
        self.watchers: dict[int, Watcher] = {}  # connection -> a watcher (from WATCHER_CONN)

    def watch(self, secret: bytes) -> Watcher:
        """A watcher whose identity is ``secret`` connects now."""
        conn = WATCHER_CONN + len(self.watchers)
        self.watchers[conn] = watcher = Watcher(Identity(secret), self.now)
        self.sequencer.connect(conn, self.now)
        return watcher

    @property
    def sessions(self) -> list[PeerSession]:
        return [self.sequencer.host] + [c.session for c in self.clients]

    def kill(self, conn: int) -> None:
        """Peer ``conn`` (1..) vanishes without a word."""
        self.dead.add(conn)

    def step(self) -> bool:
        """Deliver everything pending once; True if anything moved."""
        moved = False
        out, self.sequencer.out = self.sequencer.out, []
        for conn, data in out:
            if conn in self.watchers and conn not in self.dead:
                self.watchers[conn].receive(data, self.now)
                moved = True
            elif conn not in self.dead:
                self.clients[conn - 1].receive(data, self.now)
                moved = True
        self.dead.update(self.sequencer.to_close)  # closed after what was sent before
        self.sequencer.to_close.clear()
        moved = self._direct() or moved
        for index, client in enumerate(self.clients, start=1):
            chunks, client.out = client.out, []
            if index in self.dead:
                continue
            for chunk in chunks:
                self.sequencer.receive(index, chunk, self.now)
                moved = True
        for conn, watcher in self.watchers.items():
            for chunk in watcher.take_out() if conn not in self.dead else []:
                self.sequencer.receive(conn, chunk, self.now)
                moved = True
        return moved

    def _direct(self) -> bool:
        moved = False
        for index, client in enumerate(self.clients, start=1):
            sent, client.session.outbox.direct_out = client.session.outbox.direct_out, []
            key = client.session.identity.public
            for endpoint, raw in sent if index not in self.dead else []:
                owner = self.by_endpoint.get(endpoint)
                if (owner is not None and self.clients.index(owner) + 1 not in self.dead
                        and admit(owner.session, raw, key) in (Admit.TAKE, Admit.HOLD)):
                    owner.session.direct(raw, self.now)
                    owner.collect()
                    moved = True
        return moved

    def finished(self) -> bool:
        live = [s for i, s in enumerate(self.sessions) if i not in self.dead]
        return all(s.game_over or s.ended for s in live)

    def advance(self, now: float) -> None:
        """Move the clock to ``now``: deliver everything, then let every peer's timers run."""
        while self.step():
            pass
        self.now = now
        self.sequencer.tick(now)
        for index, client in enumerate(self.clients, start=1):
            if index not in self.dead:
                client.tick(now)
        for conn, watcher in self.watchers.items():
            if conn not in self.dead:
                watcher.tick(now)
        while self.step():
            pass

    def run(self, limit: float = 3600.0, dt: float = 0.5) -> None:
        """Pump until every live peer has finished (or ``limit`` simulated seconds pass)."""
        while not self.finished() and self.now < limit:
            self.advance(self.now + dt)
        while self.step():
            pass


class SlowLinkTable(MemoryTable):
    """A ``MemoryTable`` whose ``slow`` connections pass through a model of a slow, lossy TCP
    link (as net/proxy.py's): what one side writes in one go arrives ``delay`` seconds later
    plus ``wait()``, the time its lost transmissions took to be retransmitted; in order, so a
    late burst holds back everything behind it. ``longest``: the longest such wait drawn."""

    def __init__(self, settings: Settings, players: int, seed: int, slow: set[int],
                 delay: float, wait: Callable[[], float], silent_after: float = 10.0,
                 step_timeout: float = BOUNDS.step) -> None:
        super().__init__(settings, players, seed=seed, silent_after=silent_after,
                         step_timeout=step_timeout)
        self.slow, self.delay, self.wait = slow, delay, wait
        self.queues: dict[tuple[bool, int], list[tuple[float, bytes]]] = {}  # (down?, conn)
        self.longest = 0.0

    def _send(self, down: bool, conn: int, data: bytes) -> None:
        queue = self.queues.setdefault((down, conn), [])
        wait = self.wait() if conn in self.slow else 0.0
        self.longest = max(self.longest, wait)
        due = self.now + (self.delay + wait if conn in self.slow else 0.0)
        queue.append((max([due] + [last for last, _ in queue[-1:]]), data))

    def step(self) -> bool:
        out, self.sequencer.out = self.sequencer.out, []
        bursts: dict[int, list[bytes]] = {}
        for conn, data in out:
            bursts.setdefault(conn, []).append(data)
        for conn, chunks in bursts.items():
            self._send(True, conn, b"".join(chunks))
        self.dead.update(self.sequencer.to_close)
        self.sequencer.to_close.clear()
        for conn, client in enumerate(self.clients, start=1):
            chunks, client.out = client.out, []
            if chunks:
                self._send(False, conn, b"".join(chunks))
        moved = False
        for (down, conn), queue in self.queues.items():
            while queue and queue[0][0] <= self.now:
                data = queue.pop(0)[1]
                if conn in self.dead:
                    continue
                moved = True
                if down:
                    self.clients[conn - 1].receive(data, self.now)
                else:
                    self.sequencer.receive(conn, data, self.now)
        return moved

    def advance(self, now: float) -> None:
        while self.step():
            pass
        self.now = now
        while self.step():  # what is due by now arrives before any timer looks
            pass
        super().advance(now)
