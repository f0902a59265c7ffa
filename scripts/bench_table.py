#!/usr/bin/env python3
"""Per-hand wall time of whole tables over loopback TCP with the real deck, beside the
engine-only time of the very same deals (replayed from the revealed cards and the moves).

    python scripts/bench_table.py [--json] [--deals N]

Every peer (the host and its CPU peers) runs in this one process on one event loop, each with
its own identity, secrets and TCP connection, as `pageone host --bots N --autoplay` does. Beside
the wall time per hand, the process time per hand (comparable on a shared machine; every peer
is in this process, so it is all the table's work). The deals are random: hands with more
reshuffles cost more, so compare runs over several deals.
Target: under 1 s per 4-peer classic hand.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time

from p2p_pageone.bots import make_bot
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.engine import make_settings
from p2p_pageone.engine.settings import Settings
from p2p_pageone.net.runner import HostRunner, run_joiner
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.session.records import replay_hand


def peer(name: str, host_table: tuple[str, Settings, int] | None = None) -> PeerSession:
    return PeerSession(Identity(os.urandom(32)), name, os.urandom, bot=make_bot("normal"),
                       rng=random.Random(name), autoplay=True, host_table=host_table)


async def table(settings: Settings, peers: int) -> tuple[PeerSession, float, float]:
    host = peer("host", ("bench", settings, peers))
    runner = HostRunner(host, "127.0.0.1", 0, lambda s, e: None, None)
    start, cpu = time.perf_counter(), time.process_time()
    port = await runner.start()
    joiners = [asyncio.create_task(run_joiner(peer(f"cpu{i}"), "127.0.0.1", port,
                                              lambda s, e: None, None))
               for i in range(1, peers)]
    await runner.run()
    await asyncio.gather(*joiners)
    return host, time.perf_counter() - start, time.process_time() - cpu


def measure(rules: str, peers: int, options: dict[str, object]) -> dict[str, object]:
    settings = make_settings(rules, options)
    host, seconds, cpu = asyncio.run(table(settings, peers))
    if not host.game_over:
        raise SystemExit(f"the {rules} table did not finish: {host.ended}")
    start = time.perf_counter()
    for record in host.history:
        replay_hand(settings, peers, record)
    engine = time.perf_counter() - start
    hands = len(host.history)
    return {"rules": rules, "peers": peers, "hands": hands,
            "seconds_per_hand": round(seconds / hands, 4),
            "cpu_seconds_per_hand": round(cpu / hands, 4),
            "engine_seconds_per_hand": round(engine / hands, 6),
            "log_entries": len(host.log)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--deals", type=int, default=5, help="classic deals (default 5)")
    args = parser.parse_args()
    rows = [measure("classic", 4, {"deals": args.deals}), measure("qdan", 6, {})]
    if args.json:
        print(json.dumps(rows))
        return
    print(f"{'rules':8} {'peers':>5} {'hands':>5} {'s/hand':>8} {'cpu s/hand':>10} "
          f"{'engine s/hand':>14} {'log entries':>11}")
    for row in rows:
        print(f"{row['rules']:8} {row['peers']:>5} {row['hands']:>5} "
              f"{row['seconds_per_hand']:>8} {row['cpu_seconds_per_hand']:>10} "
              f"{row['engine_seconds_per_hand']:>14} {row['log_entries']:>11}")
    print("target: under 1 s per 4-peer classic hand")


if __name__ == "__main__":
    main()
