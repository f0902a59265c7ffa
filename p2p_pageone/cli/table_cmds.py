"""`pageone host` and `pageone tables`: sockets, mDNS, CPU peers and the player's terminal."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import errno
import getpass
import json
import os
import random
import shutil
import sys
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from ..bots import parse_bot_levels
from ..crypto.identity import Identity, fingerprint
from ..engine.settings import SettingError, Settings
from ..net.discovery import SERVICE, Advertiser, browse, host_addresses, instance_name
from ..net.joiner import start_cpu_peers
from ..net.logwriter import check_writable
from ..net.runner import HostRunner, LocalFault, LogWriter
from ..session.peer import PeerSession
from .cpu import cpu_bot, cpu_name
from .identity_store import IdentityFileError, data_dir, load_or_create
from .playing import EXIT_FILES, EXIT_OK, EXIT_USAGE, play_seat
from .repl import Terminal
from .wrap import complain


class Refusal(Exception):
    """Bad usage or an unusable machine: the message says what to do; ``code`` is the exit."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def identity() -> Identity:
    try:
        return load_or_create()
    except IdentityFileError as error:
        raise Refusal(str(error), EXIT_FILES) from None


def log_place(args: argparse.Namespace, role: str) -> Path | None:
    """``--log PATH`` (never over an existing file), or None for a unique default name. Either
    way the log's directory must be writable now, before this machine joins anything."""
    path = Path(args.log) if getattr(args, "log", "") else None
    if path is not None and path.exists() and role == "join":
        # the same join again (a return to the table): this visit's log goes beside it
        complain(f"--log {path} exists: this visit's log is written beside it (-2, -3, …)")
    elif path is not None and path.exists():
        raise Refusal(f"--log {path} already exists: logs are never overwritten, choose "
                      "another path")
    if path is not None and not path.parent.exists():  # a typo must not make directories
        raise Refusal(f"--log {path}: there is no directory {path.parent}; create it first, or "
                      "choose another path")
    directory = path.parent if path is not None else data_dir() / "logs"
    advice = ("choose a writable place with --log PATH" if path is not None else
              "fix that directory's permissions, set XDG_DATA_HOME, or use --log PATH")
    try:
        check_writable(directory, advice)
    except LocalFault as fault:
        raise Refusal(str(fault), EXIT_FILES) from None
    return path


def default_log(role: str, explicit: Path | None) -> Path | LogWriterPath:
    return explicit if explicit is not None else LogWriterPath(role)


class LogWriterPath:
    """A unique, time-stamped log name per table and peer, decided at the log's first entry."""

    def __init__(self, role: str) -> None:
        self.role = role
        self.stamp = time.strftime("%Y%m%d-%H%M%S")

    def __call__(self, session: PeerSession) -> Path:
        name = (f"{self.stamp}-{session.table_id.hex()[:8]}-{self.role}-"
                f"{session.identity.fingerprint[:8]}.pageone-log")
        return data_dir() / "logs" / name


def cpu_session(index: int, level: str, think: float, window: float,
                forget: float = 0.0) -> PeerSession:
    rng = random.Random()
    bot = cpu_bot(level, time.monotonic, think, window, rng, forget)
    return PeerSession(Identity(os.urandom(32)), cpu_name(index), os.urandom, bot=bot,
                       rng=rng, autoplay=True)


def _seating(args: argparse.Namespace, settings: Settings) -> tuple[list[str], int]:
    """The CPU players' levels and the seats, or a refusal saying what to change."""
    try:
        levels = parse_bot_levels(args.bots, args.level)
    except ValueError as error:
        raise Refusal(f"--bots: {error}") from None
    if len(levels) > 5:
        raise Refusal(f"--bots {args.bots}: at most 5 CPU players (6 seats with you)")
    seats = args.seats or max(2, len(levels) + 1)
    settings.check_players(seats)
    if len(levels) >= seats:
        raise Refusal(f"--bots {args.bots} leaves no seat for you at {seats} seats: use "
                      f"--seats {len(levels) + 1} or fewer --bots")
    if args.min_players > seats:
        raise Refusal(f"--min-players {args.min_players} is more than the {seats} seats: use "
                      f"--seats {args.min_players} or more, or fewer --min-players")
    return levels, seats


async def _host(args: argparse.Namespace, settings: Settings) -> int:
    levels, seats = _seating(args, settings)
    explicit = log_place(args, "host")
    me = identity()
    table_name = args.table or f"{args.name}'s table"
    all_cpu = args.autoplay and seats == len(levels) + 1
    window = 0.0 if all_cpu else args.catch_window
    think = 0.0 if all_cpu else args.think
    session = PeerSession(me, args.name, os.urandom,
                          bot=cpu_bot("normal", time.monotonic, think, window, random.Random()),
                          rng=random.Random(), autoplay=args.autoplay,
                          host_table=(table_name, settings, seats))
    log = LogWriter(default_log("host", explicit))
    terminal = Terminal(session, interactive=not args.autoplay, log=log, catch_window=window,
                        plain=args.plain)
    terminal.paused = True
    runner = HostRunner(session, args.interface or "0.0.0.0", args.port, terminal.show, log,
                        silent_after=args.silent_after, lobby=_sequencer_options(args))
    try:
        port = await runner.start()
    except OSError as error:
        raise Refusal(listen_problem(args, error)) from None
    assert runner.sequencer is not None
    runner.sequencer.catch_window = window
    advertiser = await _advertise(args, port, me, session)
    print(f"hosting {table_name!r}: {settings.family}, {seats} seats, port {port}", flush=True)
    _how_to_join(args.interface, table_name, port, advertised=advertiser is not None)
    forget = 0.0 if all_cpu else args.cpu_forgets / 100
    bots = [cpu_session(i, level, think, window, forget) for i, level in enumerate(levels)]
    bot_logs = [LogWriter(LogWriterPath(f"cpu{i + 1}")) for i in range(len(levels))]
    here = args.interface or "127.0.0.1"  # where the server listens
    tasks = start_cpu_peers(runner, bots, here, port, bot_logs, args.silent_after)
    terminal.resume()
    waiting = seats - 1 - len(levels)
    if waiting and not args.autoplay:
        print(f"waiting for {waiting} more player{'s' if waiting > 1 else ''}… "
              "(type help; quit to stop)", flush=True)

    async def on_tick() -> None:
        if advertiser is not None:
            await advertiser.update(advert_fields(session, args.name))

    async def table() -> None:
        try:
            await runner.run(on_tick)
        finally:
            await runner.close()
            if advertiser is not None:
                await advertiser.stop()
            if tasks:  # the CPU players read the table's last entry before they are stopped
                await asyncio.wait(tasks, timeout=2.0)
            for task in tasks:
                task.cancel()

    return await play_seat(session, terminal, table(), [log, *bot_logs])


def _sequencer_options(args: argparse.Namespace) -> dict[str, float]:
    """The lobby, reconnect and watcher settings the host's sequencer runs with."""
    return {"min_players": args.min_players, "start_after": args.start_after,
            "lobby_timeout": args.lobby_timeout, "reconnect_window": args.reconnect_window,
            "watchers": args.watchers, "watcher_chat": args.watcher_chat}


def _how_to_join(interface: str, table_name: str, port: int, advertised: bool) -> None:
    """The command others type, with this machine's real address."""
    addresses = host_addresses(interface)
    connect = f"pageone join --connect {addresses[0]}:{port}"
    if advertised:
        print(f"others join with: pageone join {table_name!r}   (or {connect})", flush=True)
    else:
        print(f"not advertised: others join with {connect}", flush=True)
    if len(addresses) > 1:
        print(f"this machine's addresses: {', '.join(addresses)}", flush=True)


def listen_problem(args: argparse.Namespace, error: OSError) -> str:
    where = f"{args.interface or 'all addresses'} port {args.port or '(any)'}"
    if error.errno == errno.EADDRINUSE:
        return (f"cannot listen on {where}: the port is already in use on this machine (another "
                "pageone or another program has it). This is a problem of this machine, not of "
                "the table: choose another --port, or leave --port out to take a free one")
    return (f"cannot listen on {where}: {error.strerror or error}. Use an address of this "
            "machine for --interface, or another --port")


def _printed(text: str, problem: bool) -> None:
    complain(text) if problem else print(text, flush=True)


async def _advertise(args: argparse.Namespace, port: int, me: Identity, session: PeerSession,
                     tell: Callable[[str, bool], None] = _printed) -> Advertiser | None:
    """Advertise the table; ``tell(text, problem)`` says how it went (printed before the
    terminal runs, a story line while the table screen is up)."""
    if getattr(args, "no_mdns", False):
        return None
    advertiser = Advertiser(args.interface, port, me.fingerprint)
    try:
        service = await advertiser.start(advert_fields(session, args.name))
    except Exception as error:  # zeroconf raises many kinds; the table works without it
        tell(f"could not advertise the table over mDNS ({error}); others can still join "
             "with --connect", True)
        return None
    if service != instance_name(str(advert_fields(session, args.name)["name"]), me.fingerprint):
        tell(f"advertised on the LAN (as {service.removesuffix('.' + SERVICE)!r}: another "
             "table had the same name)", False)
    else:
        tell("advertised on the LAN", False)
    return advertiser


class TakeoverAdvert:
    """A joiner that took its table over advertises it from here, as its host did, so that a
    player coming back with ``pageone join NAME`` finds the table where it is now. The game is
    running by then, so how it went is told through ``say`` (the terminal), never printed."""

    def __init__(self, args: argparse.Namespace, session: PeerSession, me: Identity,
                 say: Callable[[str], None]) -> None:
        self.args, self.session, self.me, self.say = args, session, me, say
        self.advertiser: Advertiser | None = None

    async def start(self, port: int) -> None:
        self.advertiser = await _advertise(self.args, port, self.me, self.session,
                                           lambda text, problem: self.say(f"  {text}"))

    async def tick(self) -> None:
        if self.advertiser is not None:
            await self.advertiser.update(advert_fields(self.session, self.args.name))

    async def stop(self) -> None:
        if self.advertiser is not None:
            await self.advertiser.stop()
            self.advertiser = None


def advert_fields(session: PeerSession, nick: str) -> dict[str, object]:
    settings = session.settings or (session.host_table[1] if session.host_table else None)
    changed = ""
    if settings is not None:
        default = type(settings)()
        changed = " ".join(f"{f.name}={getattr(settings, f.name)}"
                           for f in dataclasses.fields(settings)
                           if getattr(settings, f.name) != getattr(default, f.name))
    state, left = "lobby", ""
    if session.game is not None:
        state = "over" if session.game_over else "playing"
        left = ",".join(fingerprint(key)[:9] for seat, key in enumerate(session.keys)
                        if seat not in session.active and seat not in session.away)
    return {**session.advert(), "nick": nick, "settings": changed, "state": state,
            "left": left}


async def _tables(args: argparse.Namespace) -> int:
    complain("looking for tables…")
    found = await browse(args.timeout, args.interface)
    tables = [t for t in found if args.all or t.free > 0]
    if args.json:
        print(json.dumps([t.as_dict() for t in tables]))
        return EXIT_OK
    if not tables:
        full = len(found) - len(tables)
        print("no tables with a free seat" + (f" ({full} full or playing; --all lists them)" if full
                                               else "") + " — host one: pageone host")
        return EXIT_OK
    from .tables_list import table_lines

    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else 0
    print("\n".join(table_lines(tables, width)))
    return EXIT_OK


def run_host(args: argparse.Namespace, settings: Settings) -> int:
    return _run(_host(args, settings), "host")


def run_tables(args: argparse.Namespace) -> int:
    return _run(_tables(args), "tables")


def _run(main: Coroutine[Any, Any, int], command: str) -> int:
    try:
        return asyncio.run(main)
    except (Refusal, SettingError) as error:
        complain(f"pageone {command}: {error}")
        return error.code if isinstance(error, Refusal) else EXIT_USAGE
    except KeyboardInterrupt:
        complain(f"pageone {command}: stopped")
        return 4


def default_nick() -> str:
    try:
        name = "".join(c for c in getpass.getuser() if c.isprintable()).strip()
        return name[:32] or "player"
    except (KeyError, OSError):
        return "player"

