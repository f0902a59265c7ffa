"""An in-process TCP proxy that delays and "loses" traffic, for tests and benchmarks.

The kernel here has no netem, so slow and lossy links are modelled above TCP. Each chunk read on
one side is delivered to the other side ``delay`` seconds later, in order. Loss is modelled as TCP
sees it: nothing is dropped, but a lost segment is retransmitted after a retransmission timeout
(at least 200 ms, as Linux; doubling while retransmissions are lost too), and everything behind it
waits (head-of-line blocking). The randomness is seeded so a run repeats.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from dataclasses import dataclass

MIN_RTO = 0.2  # Linux's minimum retransmission timeout


@dataclass(frozen=True)
class Link:
    """One-way delay in seconds and the chance that a chunk's first transmission is lost."""

    delay: float = 0.0
    loss: float = 0.0

    def retransmission_wait(self, rng: random.Random) -> float:
        wait, rto = 0.0, max(MIN_RTO, 4 * self.delay)
        while self.loss and rng.random() < self.loss:
            wait += rto
            rto *= 2
        return wait


class DelayProxy:
    """Listens (on loopback by default) and forwards each connection to ``target`` through
    ``link``."""

    def __init__(self, target: tuple[str, int], link: Link, seed: int = 0) -> None:
        self.target, self.link = target, link
        self._rng = random.Random(seed)
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.chunks = 0

    async def start(self, bind: str = "127.0.0.1") -> int:
        """Starts listening on ``bind`` (loopback, or an address of a test's own network
        namespace) and returns the port to connect to instead."""
        self._server = await asyncio.start_server(self._accept, bind, 0)
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        for source, sink in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.create_task(self._pump(source, sink))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pump(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
        deliver = asyncio.create_task(self._deliver(queue, sink))
        loop = asyncio.get_running_loop()
        last = 0.0
        try:
            while chunk := await source.read(65536):
                self.chunks += 1
                due = loop.time() + self.link.delay + self.link.retransmission_wait(self._rng)
                last = max(last, due)  # TCP delivers in order: later bytes wait behind
                queue.put_nowait((last, chunk))
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            queue.put_nowait((last, b""))
            await deliver

    @staticmethod
    async def _deliver(queue: asyncio.Queue[tuple[float, bytes]],
                       sink: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                due, chunk = await queue.get()
                if due > loop.time():
                    await asyncio.sleep(due - loop.time())
                if not chunk:
                    break
                sink.write(chunk)
                await sink.drain()
        except OSError:
            pass
        finally:
            sink.close()
