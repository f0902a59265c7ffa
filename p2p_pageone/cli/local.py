"""`pageone play`: an offline table in memory, with CPU peers, through the same session, deck
and terminal as `host` and `join` (only the sockets are missing)."""

from __future__ import annotations

import argparse
import asyncio
import random

from ..crypto.identity import Identity
from ..engine.settings import Settings
from ..net.runner import LocalFault, LogWriter
from ..session.memory import MemoryTable
from ..session.peer import PeerSession
from .cpu import cpu_bot, cpu_name
from .playing import play_seat
from .repl import Terminal
from .table_cmds import _run, default_log, identity, log_place

TICK = 0.05


async def _play(args: argparse.Namespace, settings: Settings) -> int:
    players = args.bots + 1
    settings.check_players(players)
    explicit = log_place(args, "play")
    rng = random.Random(args.seed) if args.seed is not None else random.Random()
    loop = asyncio.get_running_loop()
    start = loop.time()

    def clock() -> float:
        return loop.time() - start

    window = 0.0 if args.autoplay else args.catch_window
    think = 0.0 if args.autoplay else args.think
    rng.randbytes(32)  # a throwaway key's secret once: still drawn, so a --seed deals as before
    me = PeerSession(identity(), args.name, rng.randbytes,
                     bot=cpu_bot("normal", clock, 0.0, 0.0, random.Random(rng.random())),
                     rng=random.Random(rng.random()), autoplay=args.autoplay,
                     host_table=("offline", settings, players))
    cpus = []
    for index in range(args.bots):
        bot_rng = random.Random(rng.random())
        cpus.append(PeerSession(Identity(rng.randbytes(32)), cpu_name(index), rng.randbytes,
                                bot=cpu_bot(args.level, clock, think, window, bot_rng,
                                            0.0 if args.autoplay else args.cpu_forgets / 100),
                                rng=bot_rng, autoplay=True))
    log = LogWriter(default_log("play", explicit))
    terminal = Terminal(me, interactive=not args.autoplay, log=log, catch_window=window,
                        offline=True, plain=args.plain)
    table = MemoryTable(settings, players, peers=[me, *cpus], catch_window=window,
                        silent_after=1e9, step_timeout=1e9)
    table.sequencer.cpu_keys = {cpu.identity.public for cpu in cpus}
    names = ", ".join(cpu.name for cpu in cpus)
    terminal.say(f"Page One ({settings.family}), offline: you and {names}. Type help for "
                 "commands.")

    async def pump() -> None:
        while not table.finished():
            table.advance(clock())
            try:
                log.sync(me)
            except LocalFault as fault:  # this machine's disk: stop, saying so
                me.local_fault(str(fault), clock())
            terminal.show(me, me.take_events())
            await asyncio.sleep(TICK if not args.autoplay else 0)

    return await play_seat(me, terminal, pump(), [log])


def run_local(args: argparse.Namespace, settings: Settings) -> int:
    if args.bots < 1:
        print("pageone play: --bots must be at least 1 (a table needs 2 players)")
        return 2
    return _run(_play(args, settings), "play")



