#!/usr/bin/env python3
"""Per-hand wall time of whole tables over loopback TCP with the real deck, beside the
engine-only time of the very same deals (replayed from the revealed cards and the moves).

    python scripts/bench_table.py [--json] [--deals N] [--seed S] [--delay MS] [--loss P]

Every peer (the host and its CPU peers) runs in this one process on one event loop, each with
its own identity, secrets and TCP connection, as `pageone host --bots N --autoplay` does. Beside
the wall time per hand, the process time per hand (comparable on a shared machine; every peer
is in this process, so it is all the table's work). The deals are random: hands with more
reshuffles cost more (a 4-peer classic hand holds 2 to 6 deck rounds), so compare runs over many
deals (--deals 20) or with one --seed.
Target: under 0.8 s per 4-peer classic hand on an idle 2-core machine.

With --delay/--loss every joiner's connection goes through an in-process proxy (net/proxy.py),
and so does every connection to a joiner's own listener (keys sent to their owner directly),
that delays each direction by MS milliseconds and models TCP retransmission of lost segments; the
figure to watch is then round trips per move: the hand's time over its moves, in units of the
link's round trip (target at 50 ms: at most 1.5). Every peer keeps the default silence floor
(10 s) and step timeout (30 s); a slow or lossy link widens its silence threshold by itself
(session/rtt.py). "drops" counts the seats taken for gone meanwhile (each `away` and `timeout`
in the log): on a lossy link, 0 is the target. --silent-factor 0 shows the fixed 10 s of before.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time

from p2p_pageone.bots import make_bot
from p2p_pageone.crypto import group
from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.engine import make_settings
from p2p_pageone.engine.settings import Settings
from p2p_pageone.net.proxy import DelayProxy, Link
from p2p_pageone.net.runner import HostRunner, run_joiner
from p2p_pageone.session import rtt
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.session.records import replay_hand

NO_DELAY = Link()


SEED: list[int | None] = [None]  # --seed: the same identities, secrets and deals every run


def peer(name: str, host_table: tuple[str, Settings, int] | None = None) -> PeerSession:
    seed = SEED[0]
    randbytes = os.urandom if seed is None else random.Random(f"{seed}/{name}").randbytes
    return PeerSession(Identity(randbytes(32)), name, randbytes, bot=make_bot("normal"),
                       rng=random.Random(name), autoplay=True, host_table=host_table)


async def table(settings: Settings, peers: int,
                link: Link) -> tuple[PeerSession, float, float]:
    host = peer("host", ("bench", settings, peers))
    slow = link != NO_DELAY
    runner = HostRunner(host, "127.0.0.1", 0, lambda s, e: None, None)
    start, cpu = time.perf_counter(), time.process_time()
    port = await runner.start()
    proxy = DelayProxy(("127.0.0.1", port), link, seed=1)
    if slow:
        port = await proxy.start()
    relays: list[DelayProxy] = []

    async def relay(address: str, listening: int) -> int:
        """Each joiner's own listener (other joiners send it keys directly) is behind a
        delaying proxy too, so every link between two machines has the same delay."""
        relays.append(DelayProxy((address, listening), link, seed=len(relays) + 2))
        return await relays[-1].start()

    joiners = [asyncio.create_task(run_joiner(peer(f"cpu{i}"), "127.0.0.1", port,
                                              lambda s, e: None, None, listen=True,
                                              relay=relay if slow else None))
               for i in range(1, peers)]
    await runner.run()
    await asyncio.gather(*joiners)
    await proxy.close()
    for relayed in relays:
        await relayed.close()
    return host, time.perf_counter() - start, time.process_time() - cpu


def measure(rules: str, peers: int, options: dict[str, object],
            link: Link = NO_DELAY) -> dict[str, object]:
    settings = make_settings(rules, options)
    host, seconds, cpu = asyncio.run(table(settings, peers, link))
    if not host.game_over:
        raise SystemExit(f"the {rules} table did not finish: {host.ended}")
    start = time.perf_counter()
    for record in host.history:
        replay_hand(settings, peers, record)
    engine = time.perf_counter() - start
    hands = len(host.history)
    moves = sum(len(record.moves) for record in host.history)
    drops = sum(open_envelope(raw).kind in ("away", "timeout") for raw in host.log)
    row: dict[str, object] = {
        "rules": rules, "peers": peers, "hands": hands,
        "seconds_per_hand": round(seconds / hands, 4),
        "cpu_seconds_per_hand": round(cpu / hands, 4),
        "engine_seconds_per_hand": round(engine / hands, 6),
        "log_entries": len(host.log), "moves_per_hand": round(moves / hands, 1)}
    if link != NO_DELAY:
        row.update(delay_ms=round(link.delay * 1000), loss=link.loss, drops=drops,
                   round_trips_per_move=round(seconds / moves / (2 * link.delay), 2)
                   if link.delay else None)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--deals", type=int, default=20, help="classic deals (default 20)")
    parser.add_argument("--seed", type=int, default=None,
                        help="derive every identity and secret from this seed (same deals)")
    parser.add_argument("--delay", type=float, default=0.0, metavar="MS",
                        help="one-way delay of every joiner's link, in milliseconds")
    parser.add_argument("--loss", type=float, default=0.0, metavar="P",
                        help="chance that a chunk's first transmission is lost (0-1)")
    parser.add_argument("--silent-factor", type=float, default=rtt.SILENT_FACTOR, metavar="K",
                        help="the silence threshold's factor on SRTT + 4 RTTVAR (default "
                        f"{rtt.SILENT_FACTOR:g}; 0: the fixed 10 s floor alone)")
    parser.add_argument("--rules", choices=("classic", "qdan", "both"), default="both")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a table setting for every table (repeatable), e.g. exhausted=drawn")
    parser.add_argument("--threads", type=int, default=None, metavar="N",
                        help="threads for a batch of the deck's multiplications (default: one "
                        "per core, at most 4; 0: one multiplication a Python call)")
    args = parser.parse_args()
    if args.threads is not None:
        group.set_threads(args.threads)
    options = dict(option.split("=", 1) for option in args.option if "=" in option)
    if len(options) != len(args.option):
        parser.error("--option takes KEY=VALUE")
    if args.delay < 0 or not 0 <= args.loss < 1:
        parser.error("--delay must be >= 0 and --loss in [0, 1)")
    link = Link(args.delay / 1000, args.loss)
    rtt.SILENT_FACTOR = args.silent_factor
    SEED[0] = args.seed
    rows = []
    if args.rules in ("classic", "both"):
        rows.append(measure("classic", 4, {"deals": args.deals, **options}, link))
    if args.rules in ("qdan", "both"):
        rows.append(measure("qdan", 6, options, link))
    if args.json:
        print(json.dumps(rows))
        return
    print(f"{'rules':8} {'peers':>5} {'hands':>5} {'s/hand':>8} {'cpu s/hand':>10} "
          f"{'engine s/hand':>14} {'log entries':>11} {'moves/hand':>10} {'RTT/move':>8} "
          f"{'drops':>5}")
    for row in rows:
        print(f"{row['rules']:8} {row['peers']:>5} {row['hands']:>5} "
              f"{row['seconds_per_hand']:>8} {row['cpu_seconds_per_hand']:>10} "
              f"{row['engine_seconds_per_hand']:>14} "
              f"{row['log_entries']:>11} {row['moves_per_hand']:>10} "
              f"{row.get('round_trips_per_move') or '-':>8} {row.get('drops', '-'):>5}")
    if link == NO_DELAY:
        print("target: under 0.8 s per 4-peer classic hand (idle 2-core machine)")
    else:
        print(f"link: {args.delay:g} ms one way, loss {args.loss:g}; "
              "target at 50 ms: at most 1.5 round trips per move; drops: 0")


if __name__ == "__main__":
    main()
