"""Taking a connection from a listening socket, in the task that asked for it.

``loop.sock_accept`` (Python 3.11) accepts in a reader callback: when the task awaiting it
is cancelled in the same turn of the loop that the socket became readable, the callback
still accepts, fails on the cancelled future and the connection it took is dropped, with a
traceback. That happens when a joiner's listener is handed to its new sequencer at a
takeover, the moment the others reconnect. Here the callback only wakes the task, and the
task accepts: a cancelled task takes nothing.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any


async def accept(listener: socket.socket) -> tuple[socket.socket, Any]:
    """The next connection on the non-blocking ``listener``, set non-blocking. Whoever
    closes the listener while this waits removes its reader first."""
    loop = asyncio.get_running_loop()
    while True:
        try:
            client, address = listener.accept()
        except (BlockingIOError, InterruptedError):
            pass
        else:
            client.setblocking(False)
            return client, address
        readable: asyncio.Future[None] = loop.create_future()
        fd = listener.fileno()
        loop.add_reader(fd, _wake, readable)
        try:
            await readable
        finally:
            if listener.fileno() == fd:  # closed, its number may be another socket's now
                loop.remove_reader(fd)


def _wake(readable: asyncio.Future[None]) -> None:
    if not readable.done():
        readable.set_result(None)
