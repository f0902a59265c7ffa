"""A watcher's side of the asyncio transport: one connection to the host, and when it is lost,
to the host again or to whichever seat took the table over, until the game ends. Bytes only:
what the entries mean is for whoever folds them (``on_entries``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from ..session.reattach import RETRY_EVERY, RETRY_FOR
from ..session.watch import Watcher
from .runner import Waker, read_frame

Address = tuple[str, int]


async def run_watcher(watcher: Watcher, first: Address, on_entries: Callable[[list[bytes]], None],
                      finished: Callable[[], bool], candidates: Callable[[], list[Address]],
                      retry_for: float = RETRY_FOR,
                      key_at: Callable[[Address], bytes] = lambda _: b"") -> str:
    """Watch until ``finished()``: "" then, else why watching stopped. ``candidates()``: where
    the table may be now (its host, then the seats that would take it over, from the log);
    ``key_at(address)``: the key that listens there, if the log says (the only one our watch
    proves our key to)."""
    loop = asyncio.get_running_loop()
    target, tried, deadline = first, [first], -1.0
    while True:
        watched = await _watch_once(watcher, target, on_entries, finished, key_at(target))
        if finished():
            return ""
        if watcher.ended:
            return watcher.ended
        if watched:  # it worked a while: a new retry period, every place worth a try again
            deadline, tried = -1.0, [target]
        deadline = loop.time() + retry_for if deadline < 0 else deadline
        if loop.time() >= deadline:
            return (f"lost the table: no host let us watch for {retry_for:.0f} s ({watcher.lost}"
                    "); its pageone stopped, or the network between us is down")
        await asyncio.sleep(RETRY_EVERY)
        places = candidates() or [first]
        untried = [a for a in places if a not in tried]
        target = untried[0] if untried else places[0]
        tried = [*tried, target] if untried else [target]


async def _watch_once(watcher: Watcher, target: Address,
                      on_entries: Callable[[list[bytes]], None],
                      finished: Callable[[], bool], expect: bytes) -> bool:
    """One connection, until the game ends or it is lost; True if the host let us watch."""
    loop = asyncio.get_running_loop()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(*target), 5.0)
    except (OSError, TimeoutError) as error:
        watcher.lost = f"{target[0]}:{target[1]}: {getattr(error, 'strerror', '') or 'no answer'}"
        return False
    watcher.reconnect(loop.time(), expect)
    woken = Waker(watcher.next_wake, loop.time)

    async def read() -> None:
        while data := await read_frame(reader):
            watcher.receive(data, loop.time())
            on_entries(watcher.take_entries())
            writer.write(b"".join(watcher.take_out()))
            if finished() or watcher.ended:
                break
        watcher.lost = watcher.lost or "the host closed the connection"
        woken.now()

    reading = asyncio.create_task(read())
    try:
        writer.write(b"".join(watcher.take_out()))
        while not (finished() or watcher.ended or watcher.lost):
            await woken.sleep()
            watcher.tick(loop.time())
            writer.write(b"".join(watcher.take_out()))
        with contextlib.suppress(ConnectionError, OSError, TimeoutError):
            await asyncio.wait_for(writer.drain(), 2.0)
    finally:
        reading.cancel()
        writer.close()
    return watcher.answered
