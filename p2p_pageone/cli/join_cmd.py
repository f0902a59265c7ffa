"""`pageone join`: find a table (mDNS, or --connect), sit down, play."""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

from ..net.discovery import TableAdvert, browse
from ..net.joiner import RETRY_FOR, run_joiner
from ..net.runner import LogWriter
from ..session.peer import PeerSession
from .cpu import cpu_bot, cpu_name
from .playing import EXIT_ENDED, play_seat
from .repl import Terminal
from .seed_file import SeedFile, sweep
from .table_cmds import (
    Refusal,
    TakeoverAdvert,
    _run,
    default_log,
    default_nick,
    identity,
    log_place,
)
from .wrap import complain


def parse_connect(text: str) -> tuple[str, int]:
    host, _, port_text = text.rpartition(":")
    if not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise Refusal("--connect takes HOST:PORT with a port 1-65535, e.g. 192.168.1.20:7420")
    return host, int(port_text)


async def _join(args: argparse.Namespace) -> int:
    explicit = log_place(args, "join")
    me = identity()
    if args.connect:
        address, port = parse_connect(args.connect)
    else:
        advert = await find_table(args, me.fingerprint)
        if advert is None:
            return EXIT_ENDED
        address, port = advert.address, advert.port
        print(f"joining {advert.name!r} at {address}:{port}", flush=True)
    if args.name is None:
        args.name = cpu_name(random.randrange(8)) if args.bot else default_nick()
    think = args.think if args.bot else 0.0
    bot = cpu_bot(args.level if args.bot else "normal", time.monotonic, think,
                  args.catch_window if args.bot else 0.0, random.Random(),
                  args.cpu_forgets / 100 if args.bot else 0.0)
    seeds = SeedFile(me.fingerprint)
    sweep()
    session = PeerSession(me, args.name, os.urandom, bot=bot, rng=random.Random(),
                          autoplay=args.bot or args.autoplay, seeds=seeds)
    log = LogWriter(default_log("join", explicit))
    interactive = not (args.bot or args.autoplay)
    terminal = Terminal(session, interactive=interactive, log=log, catch_window=args.catch_window,
                        plain=args.plain)
    if interactive:
        terminal.seated_note = "  waiting for the game to start… (type help; quit to leave)"
    # Found over mDNS: if this pageone takes the table over, it advertises it in turn.
    announcer = None if args.connect else TakeoverAdvert(args, session, me, terminal.say)
    table = run_joiner(session, address, port, terminal.show, log, args.silent_after,
                       listen=True, catch_window=args.catch_window, announcer=announcer)
    code = await play_seat(session, terminal, table, [log])
    if session.attachment.dropped and not session.attachment.network and not terminal.quitting:
        again = " ".join(sys.argv[1:]) or "join"
        complain(f"could not get back to the table for {RETRY_FOR:.0f} s; if the host keeps seats "
              f"longer (pageone host --reconnect-window), run pageone {again} again to return")
    else:  # the table is over for this seat: its hand secrets are of no more use
        seeds.forget()
    return code


async def find_table(args: argparse.Namespace, me: str) -> TableAdvert | None:
    """Browse until a table with a seat fits (by its name or its host's); tables that fit but
    have no seat are reported at once, with why. ``me``: this user's fingerprint."""
    print("looking for tables…", flush=True)
    deadline = time.monotonic() + args.wait
    seen: dict[str, TableAdvert] = {}
    while True:
        for t in await browse(min(2.0, args.wait), args.interface):
            seen[t.service] = t
        tables = [t for t in seen.values() if not args.table or t.matches(args.table)]
        open_ = [t for t in tables if t.free > 0]
        if len(open_) == 1:
            return open_[0]
        if open_:
            return choose_table(open_)
        if tables:
            for t in tables:
                complain(f"pageone join: {no_seat(t, me)}")
            return None
        if time.monotonic() >= deadline:
            break
    _nothing_found(args, list(seen.values()))
    return None


def no_seat(t: TableAdvert, me: str) -> str:
    """Why a table seen has no seat for us, and what to do."""
    if t.state == "over":
        return f"the game at {t.name!r} is over; host a new one with pageone host"
    if t.under_way() and t.left_by(me):
        return (f"the game at {t.name!r} is under way and you left it: a seat given up is not "
                "kept; host a new table with pageone host")
    if t.under_way():
        return (f"the game at {t.name!r} is under way ({t.players_text()}): it takes no new "
                "players; wait for the next table, or host one with pageone host")
    return (f"the table {t.name!r} is full ({t.taken} of {t.taken + t.free} seats taken); "
            "host one with pageone host")


def choose_table(tables: list[TableAdvert]) -> TableAdvert | None:
    """Several tables fit: list them (the host's name and key tell two of one name apart) and
    ask, or at no terminal say how to pick one."""
    print("several tables have a free seat:")
    for index, t in enumerate(tables, start=1):
        host = f"host {t.nick} {t.fingerprint}" if t.nick else f"host {t.fingerprint}"
        print(f"  {index}. {t.name}  ({t.rules}, {t.free} free, {host}, {t.address}:{t.port})")
    if not sys.stdin.isatty():
        names = {t.name.casefold() for t in tables}
        hint = (f"pageone join {tables[0].name!r}" if len(names) == len(tables) else
                f"pageone join --connect {tables[0].address}:{tables[0].port}")
        complain(f"pageone join: pick one, e.g. {hint}")
        return None
    while True:
        try:
            answer = input(f"join which? (1-{len(tables)}, or q) ").strip()
        except (EOFError, KeyboardInterrupt):
            return None
        if answer.lower() in ("q", "quit"):
            return None
        if answer.isdigit() and 1 <= int(answer) <= len(tables):
            return tables[int(answer) - 1]
        named = [t for t in tables if t.name.casefold() == answer.casefold()]
        if len(named) == 1:
            return named[0]
        if named:
            print("  several tables have that name: answer with its number")


def _nothing_found(args: argparse.Namespace, tables: list[TableAdvert]) -> None:
    """Nothing fits: no table at all, or none of that name (the ones seen are listed)."""
    if args.table:
        names = ", ".join(f"{t.name!r} (host {t.nick or t.fingerprint})" for t in tables)
        complain(f"pageone join: found no table named {args.table!r} or hosted by "
              f"{args.table!r} in {args.wait:g} s (tables seen: {names or 'none'}); try "
              "pageone tables, or --connect HOST:PORT")
        return
    complain(f"pageone join: found no table in {args.wait:g} s; host one with pageone host, "
          "or use --connect HOST:PORT where multicast is blocked")


def run_join(args: argparse.Namespace) -> int:
    return _run(_join(args), "join")

