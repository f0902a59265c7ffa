"""`pageone host`, `pageone join`, `pageone tables`: sockets, mDNS and the player's terminal."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import os
import random
import shlex
import signal
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from ..bots import make_bot, parse_bot_levels
from ..crypto.identity import Identity
from ..engine.settings import SettingError, Settings
from ..net.discovery import Advertiser, TableAdvert, browse
from ..net.runner import HostRunner, LogWriter, run_joiner
from ..session.peer import PeerSession
from .identity_store import IdentityFileError, data_dir, load_or_create
from .repl import Terminal

EXIT_OK, EXIT_ENDED, EXIT_USAGE = 0, 3, 2


def _identity() -> Identity:
    try:
        return load_or_create()
    except IdentityFileError as error:
        raise SystemExit(f"pageone: {error}") from None


def _log_path(args: argparse.Namespace, session: PeerSession, tag: str) -> Path:
    if getattr(args, "log", None):
        return Path(args.log)
    return data_dir() / "logs" / f"{tag}-{session.identity.fingerprint}.pageone-log"


def _bot_session(index: int, level: str) -> PeerSession:
    return PeerSession(Identity(os.urandom(32)), f"cpu{index}-{level}", os.urandom,
                       bot=make_bot(level), rng=random.Random(), autoplay=True)


async def _host(args: argparse.Namespace, settings: Settings) -> int:
    try:
        levels = parse_bot_levels(args.bots, args.level)
        seats = args.seats or len(levels) + 1
        settings.check_players(seats)
    except (SettingError, ValueError) as error:
        print(f"pageone host: {error}", file=sys.stderr)
        return EXIT_USAGE
    if len(levels) >= seats:
        print("pageone host: --bots must leave a seat for you (use --seats)", file=sys.stderr)
        return EXIT_USAGE
    identity = _identity()
    table_name = args.name or f"{args.nick}'s table"
    session = PeerSession(identity, args.nick, os.urandom, bot=make_bot("normal"),
                          rng=random.Random(), autoplay=args.autoplay,
                          host_table=(table_name, settings, seats))
    log = LogWriter(_log_path(args, session, session.table_id.hex()[:12]))
    terminal = Terminal(session, interactive=not args.autoplay)
    runner = HostRunner(session, args.interface or "0.0.0.0", args.port, terminal.show, log,
                        silent_after=args.silent_after)
    port = await runner.start()
    advertiser = None
    if not args.no_mdns:
        advertiser = Advertiser(args.interface, port, identity.fingerprint)
        service = await advertiser.start(session.advert())
        print(f"advertising {service!r} on port {port} (fingerprint {identity.fingerprint})")
    else:
        print(f"hosting {table_name!r} on port {port}, not advertised "
              f"(join with --connect HOST:{port}); fingerprint {identity.fingerprint}")
    bot_sessions = [_bot_session(i + 1, level) for i, level in enumerate(levels)]
    bot_logs = [LogWriter(_log_path(argparse.Namespace(), bot, session.table_id.hex()[:12]))
                for bot in bot_sessions]  # every peer keeps the log, CPU peers too
    bots = [asyncio.create_task(run_joiner(bot, "127.0.0.1", port, lambda s, e: None, log_file,
                                           args.silent_after))
            for bot, log_file in zip(bot_sessions, bot_logs, strict=True)]

    async def on_tick() -> None:
        if advertiser is not None:
            await advertiser.update(session.advert())

    try:
        await asyncio.gather(runner.run(on_tick), terminal.run())
    finally:
        if advertiser is not None:
            await advertiser.stop()
        for task in bots:
            task.cancel()
        for log_file in [log, *bot_logs]:
            log_file.close()
    return _finish(session, log.path)


def _finish(session: PeerSession, log_path: Path) -> int:
    print(f"log: {log_path}")
    print(f"check it: pageone audit {shlex.quote(str(log_path))}")
    if session.game_over:
        return EXIT_OK
    print(f"pageone: {session.ended or 'the table ended'}", file=sys.stderr)
    return EXIT_ENDED


async def _join(args: argparse.Namespace) -> int:
    if args.connect:
        host, _, port_text = args.connect.rpartition(":")
        if not host or not port_text.isdigit():
            print("pageone join: --connect takes HOST:PORT, e.g. 192.168.1.20:7420",
                  file=sys.stderr)
            return EXIT_USAGE
        address, port = host, int(port_text)
    else:
        advert = await _find_table(args)
        if advert is None:
            return EXIT_ENDED
        address, port = advert.address, advert.port
        print(f"joining {advert.name!r} at {address}:{port} (host {advert.fingerprint})")
    identity = _identity()
    level = args.level if args.bot else "normal"
    session = PeerSession(identity, args.name, os.urandom, bot=make_bot(level),
                          rng=random.Random(), autoplay=args.bot or args.autoplay)
    log = LogWriter(_log_path(args, session, f"join-{address}-{port}"))
    terminal = Terminal(session, interactive=not (args.bot or args.autoplay))
    try:
        await asyncio.gather(run_joiner(session, address, port, terminal.show, log,
                                        args.silent_after), terminal.run())
    finally:
        log.close()
    return _finish(session, log.path)


async def _find_table(args: argparse.Namespace) -> TableAdvert | None:
    for _ in range(max(1, int(args.wait // 2))):
        tables = await browse(2.0, args.interface)
        wanted = [t for t in tables if t.free > 0 and (not args.table or t.name == args.table)]
        if wanted:
            return wanted[0]
    what = f"a table named {args.table!r}" if args.table else "a table with a free seat"
    print(f"pageone join: found no {what} (try pageone tables, or --connect HOST:PORT)",
          file=sys.stderr)
    return None


async def _tables(args: argparse.Namespace) -> int:
    tables = await browse(args.timeout, args.interface)
    if args.json:
        print(json.dumps([t.as_dict() for t in tables]))
        return EXIT_OK
    if not tables:
        print("no tables found")
    for t in tables:
        print(f"{t.name:24} {t.rules:8} seats {t.taken} taken, {t.free} free   "
              f"{t.address}:{t.port}  host {t.fingerprint}")
    return EXIT_OK


async def _until_signalled(main: Coroutine[Any, Any, int]) -> int:
    """Run ``main``; SIGTERM cancels it like Ctrl-C, so adverts are withdrawn and logs closed."""
    task = asyncio.ensure_future(main)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, task.cancel)
    try:
        return await task
    except asyncio.CancelledError:
        print("pageone: stopped", file=sys.stderr)
        return EXIT_ENDED


def run_host(args: argparse.Namespace, settings: Settings) -> int:
    return asyncio.run(_until_signalled(_host(args, settings)))


def run_join(args: argparse.Namespace) -> int:
    return asyncio.run(_until_signalled(_join(args)))


def run_tables(args: argparse.Namespace) -> int:
    return asyncio.run(_tables(args))


def default_nick() -> str:
    try:
        return getpass.getuser()[:32] or "player"
    except (KeyError, OSError):
        return "player"
