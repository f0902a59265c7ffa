"""Running one seat at a table, whichever way it is reached: the terminal beside the table's own
loop, signals, the wind-down after quitting, and the exit code.

Exit codes (README): 0 the game was played to its end; 1 this machine's files are unusable;
2 bad usage; 3 the table ended early (a player left, the host closed it, a peer was named as a
cheater, or the host could not be reached); 4 you left (quit, Ctrl-C, or SIGTERM); 5 this
machine's network is most likely down (``session.local_network``: nobody could be reached, or a
host heard no player); or the rest of the table went on without it (a
minority side stops: ``session.attachment.network``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from ..net.runner import LocalFault, LogWriter
from ..session.peer import PeerSession
from .repl import Terminal
from .wrap import complain, labelled

EXIT_OK, EXIT_FILES, EXIT_USAGE, EXIT_ENDED, EXIT_QUIT, EXIT_NETWORK = 0, 1, 2, 3, 4, 5


async def play_seat(session: PeerSession, terminal: Terminal,
                    table: Coroutine[Any, Any, None], logs: list[LogWriter]) -> int:
    """Run ``table`` (the network or memory loop) and the terminal until the game ends or the
    player leaves; close the logs; print where this seat's log is. ``logs[0]`` is this seat's."""
    loop = asyncio.get_running_loop()
    table_task = asyncio.ensure_future(table)
    terminal_task = asyncio.ensure_future(terminal.run())

    def interrupted() -> None:
        """Ctrl-C as a signal (between prompts, or without one): as the key does at the prompt."""
        if terminal.quitting:
            table_task.cancel()  # a third time: stop now
        elif terminal.confirming or not (terminal.interactive and sys.stdin.isatty()):
            terminal.quit()
        else:
            terminal.ask_quit()

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, terminal.quit if signum == signal.SIGTERM
                                else interrupted)
    try:
        await asyncio.wait({table_task, terminal_task}, return_when=asyncio.FIRST_COMPLETED)
        if not table_task.done():
            # The player left: give the bye a moment to reach the table.
            await asyncio.wait({table_task}, timeout=3.0)
        await asyncio.wait({terminal_task}, timeout=1.0)
    finally:
        for task in (table_task, terminal_task):
            task.cancel()
        for task in (table_task, terminal_task):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
        for log in logs:
            if log is logs[0]:
                try:
                    log.sync(session)
                except LocalFault as fault:  # too late for a bye: the table is over for us
                    session.local = session.local or str(fault)
            log.close()
    terminal.narrator.idle()
    return finish(session, terminal, logs[0].path if logs else None)


def finish(session: PeerSession, terminal: Terminal, log_path: Path | None) -> int:
    for label, value in exit_lines(log_path):  # each path and command whole, to copy
        labelled(label, value)
    if session.local:  # this machine failed: say so last, where it is seen
        complain(f"pageone: {session.local}")
        return EXIT_NETWORK if session.local_network else EXIT_FILES
    if session.game_over:
        return EXIT_OK
    if session.attachment.network:
        complain(f"pageone: {session.attachment.network}")
        return EXIT_NETWORK
    if terminal.quitting:
        if terminal.offline:
            print("you quit the game", flush=True)
        elif session.is_host:
            print("you closed the table", flush=True)
        else:
            print("you left the table", flush=True)
        return EXIT_QUIT
    if not sys.stderr.isatty() and not _same_file(sys.stdout, sys.stderr):  # said once
        complain(f"pageone: {session.ended or 'the table ended'}")
    return EXIT_ENDED


def _same_file(one: Any, other: Any) -> bool:
    try:
        a, b = os.fstat(one.fileno()), os.fstat(other.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def exit_lines(log_path: Path | None) -> list[tuple[str, str]]:
    """The log and the command that checks it, as (label, value)."""
    if log_path is None or not log_path.exists():
        return []
    return [("log:", str(log_path)), ("check it with:", f"pageone audit {log_path}")]
