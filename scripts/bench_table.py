#!/usr/bin/env python3
"""Per-hand wall time of whole tables over loopback TCP with the real deck, beside the
engine-only time of the very same deals (replayed from the revealed cards and the moves).

    python scripts/bench_table.py [--json] [--deals N] [--tables N] [--seed S] [--delay MS]
                                  [--loss P] [--processes]

A 4-peer classic table of --deals deals, and --tables 6-peer qdan tables (a qdan game is one
hand), one after another. Every peer (the host and its CPU peers) runs in this one process on one
event loop, each with its own identity, secrets and TCP connection, started by the code that
starts `pageone host --bots N --autoplay`'s CPU players (net/joiner.start_cpu_peers; here each
also listens, as a `pageone join` does, so keys and signs of life go over the mesh too); with
--processes each CPU peer runs in a process of its own, as each player has a machine of their
own (their work then runs side by side on this machine's cores instead of taking turns on one
loop). Beside the wall time per hand (the table's, lobby included, over its hands), the process
time per hand (comparable on a shared machine: all the table's work) and the lobby's time per
table (seating, ready and the coin toss, before the first deal). The deals are random: hands
with more reshuffles cost more (a 4-peer classic hand holds 2 to 6 deck rounds), so compare runs
over many deals or with one --seed (--processes seats the peers in the order they connect, so its
deals differ from run to run).
Target: under 0.8 s per 4-peer classic hand on an idle 2-core machine.

With --delay/--loss every joiner's connection goes through an in-process proxy (net/proxy.py),
and so does every connection to a joiner's own listener (keys sent to their owner directly),
that delays each direction by MS milliseconds and models TCP retransmission of lost segments; the
figure to watch is then round trips per move: the hands' time (the table's, less its lobby)
over their moves, in units of the link's round trip (target at 50 ms: at most 1.10; "+lobby" is
the same with the lobby counted in). Every peer keeps the default silence floor
(10 s) and step timeout (30 s); a slow or lossy link widens its silence threshold by itself
(session/rtt.py). "drops" counts the seats taken for gone meanwhile (each `away` and `timeout`
in the log): on a lossy link, 0 is the target. --silent-factor 0 shows the fixed 10 s of before.
With a delay, "breakdown" (printed with --breakdown) sorts the gaps between logged moves by what
came before the next one (a play, a draw, a deck round) and who moves next (the host moves in no
time after a joiner's move reaches it), each in round trips: where a move's time goes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import resource
import time
from dataclasses import dataclass

from p2p_pageone.bots import make_bot
from p2p_pageone.crypto import group
from p2p_pageone.crypto.envelope import Envelope, open_envelope
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.engine import make_settings
from p2p_pageone.engine.settings import Settings
from p2p_pageone.net.joiner import run_joiner, start_cpu_peers
from p2p_pageone.net.proxy import DelayProxy, Link
from p2p_pageone.net.runner import HostRunner
from p2p_pageone.net.standby import Relay
from p2p_pageone.session import rtt
from p2p_pageone.session.fold.records import replay_hand
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.wire.kinds import EntryKind

NO_DELAY = Link()


# --seed: the same identities, secrets and deals every run; then the table's number
SEED: list[int | None] = [None, 0]


def peer(name: str, host_table: tuple[str, Settings, int] | None = None) -> PeerSession:
    seed = SEED[0]
    table = f"/{SEED[1]}" if SEED[1] else ""  # the first table as before --tables
    randbytes = (os.urandom if seed is None else
                 random.Random(f"{seed}{table}/{name}").randbytes)
    return PeerSession(Identity(randbytes(32)), name, randbytes, bot=make_bot("normal"),
                       rng=random.Random(name), autoplay=True, host_table=host_table)


def relaying(link: Link, relays: list[DelayProxy]) -> Relay | None:
    """With a delay, every joiner's own listener (other joiners send it keys directly) is
    behind a delaying proxy too, so every link between two machines has the same delay."""
    if link == NO_DELAY:
        return None

    async def relay(address: str, listening: int) -> int:
        relays.append(DelayProxy((address, listening), link, seed=len(relays) + 2))
        return await relays[-1].start()

    return relay


async def joiner(name: str, port: int, link: Link) -> None:
    """One CPU peer in a process of its own (--processes)."""
    relays: list[DelayProxy] = []
    await run_joiner(peer(name), "127.0.0.1", port, lambda s, e: None, None, listen=True,
                     relay=relaying(link, relays))
    for relayed in relays:
        await relayed.close()


def _child(name: str, ports: multiprocessing.Queue[int], link: Link) -> None:
    asyncio.run(joiner(name, ports.get(), link))


@dataclass
class Run:
    host: PeerSession
    seconds: float  # from the host's start to the end of the game
    lobby: float  # from the host's start to the first deal's: no hand's time
    cpu: float


async def table(settings: Settings, peers: int, link: Link, spread: bool) -> Run:
    """One table to its end. ``spread``: each CPU peer in a process of its own, as each player
    has a machine: their work runs side by side on this machine's cores instead of taking turns
    on one event loop (the CPU time is then the host's and its children's)."""
    children: list[multiprocessing.process.BaseProcess] = []
    context = multiprocessing.get_context("fork")  # before this loop runs anything of theirs
    ports: multiprocessing.Queue[int] = context.Queue()
    if spread:
        children = [context.Process(target=_child, args=(f"cpu{i}", ports, link))
                    for i in range(1, peers)]
        for child in children:
            child.start()
    host = peer("host", ("bench", settings, peers))
    dealt = _note_first_deal(host)
    runner = HostRunner(host, "127.0.0.1", 0, lambda s, e: None, None)
    start, cpu, used = time.perf_counter(), time.process_time(), _children_cpu()
    port = await runner.start()
    proxy = DelayProxy(("127.0.0.1", port), link, seed=1)
    if link != NO_DELAY:
        port = await proxy.start()
    for _ in children:
        ports.put(port)
    relays: list[DelayProxy] = []
    cpus = [] if spread else [peer(f"cpu{i}") for i in range(1, peers)]
    joiners = start_cpu_peers(runner, cpus, "127.0.0.1", port, [None] * len(cpus),
                              listen=True, relay=relaying(link, relays))
    await runner.run()
    end = time.perf_counter()
    await asyncio.gather(*joiners)
    for relayed in relays:
        await relayed.close()
    for child in children:
        await asyncio.to_thread(child.join, 60)
    await proxy.close()
    first = dealt[0] or start
    return Run(host, end - start, first - start,
               time.process_time() - cpu + _children_cpu() - used)


# --breakdown: when the host logged each entry (one table's worth at a time)
LOGGED: list[tuple[float, bytes]] = []


def _note_first_deal(host: PeerSession) -> list[float]:
    """When the host's game starts (its first deal): the lobby before it is no hand's time."""
    dealt = [0.0]
    on_log = host.on_log

    def noted(raw: bytes, now: float, env: Envelope | None = None) -> None:
        on_log(raw, now, env)
        LOGGED.append((time.perf_counter(), raw))
        if not dealt[0] and host.game is not None:
            dealt[0] = time.perf_counter()

    host.on_log = noted  # type: ignore[method-assign]
    return dealt


DECK_ROUND = {EntryKind.SHUFFLE, EntryKind.LOCK}  # a deal or a reshuffle; not a draw's keys


def breakdown(logged: list[tuple[float, bytes]], round_trip: float,
              gaps: dict[str, list[float]]) -> None:
    """Sort the gaps between logged moves by what came before the next one: a play or a draw,
    the next mover the host or a joiner, a deck round (a reshuffle, the next hand's deal)
    between them. Each gap in round trips of the link."""
    host_key, last, before, between = b"", -1.0, "", False
    for moment, raw in logged:
        env = open_envelope(raw)
        host_key = host_key or env.sender
        if env.kind != EntryKind.MOVE:
            between = between or env.kind in DECK_ROUND
            continue
        if last >= 0:
            mover = "the host" if env.sender == host_key else "a joiner"
            after = "a deck round" if between else f"a {before}"
            gaps.setdefault(f"after {after}, {mover} moves", []).append(
                (moment - last) / round_trip)
        last, before, between = moment, env.data["kind"], False


def _breakdown_rows(gaps: dict[str, list[float]]) -> list[dict[str, object]]:
    rows = [{"gap": name, "count": len(values), "mean_round_trips": round(sum(values) /
             len(values), 2), "round_trips": round(sum(values), 1)}
            for name, values in gaps.items()]
    return sorted(rows, key=lambda row: -float(row["round_trips"]))  # type: ignore[arg-type]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(rules: str, peers: int, options: dict[str, object], link: Link = NO_DELAY,
            spread: bool = False, tables: int = 1) -> dict[str, object]:
    """``tables`` tables one after another (each with its own identities and deals), summed."""
    settings = make_settings(rules, options)
    hands = moves = entries = drops = 0
    seconds = lobby = cpu = engine = 0.0
    gaps: dict[str, list[float]] = {}
    for number in range(tables):
        SEED[1] = number
        LOGGED.clear()
        run = asyncio.run(table(settings, peers, link, spread))
        if link.delay:
            breakdown(LOGGED, 2 * link.delay, gaps)
        host = run.host
        if not host.game_over:
            raise SystemExit(f"the {rules} table did not finish: {host.ended}")
        start = time.perf_counter()
        for record in host.history:
            replay_hand(settings, peers, record)
        engine += time.perf_counter() - start
        seconds, lobby, cpu = seconds + run.seconds, lobby + run.lobby, cpu + run.cpu
        hands += len(host.history)
        moves += sum(len(record.moves) for record in host.history)
        entries += len(host.log)
        drops += sum(open_envelope(raw).kind in ("away", "timeout") for raw in host.log)
    row: dict[str, object] = {
        "rules": rules, "peers": peers, "tables": tables, "hands": hands,
        "seconds_per_hand": round(seconds / hands, 4),
        "cpu_seconds_per_hand": round(cpu / hands, 4),
        "engine_seconds_per_hand": round(engine / hands, 6),
        "lobby_seconds_per_table": round(lobby / tables, 3),
        "log_entries": entries, "moves_per_hand": round(moves / hands, 1),
        "processes": peers if spread else 1}
    if link != NO_DELAY:
        row.update(delay_ms=round(link.delay * 1000), loss=link.loss, drops=drops)
        if link.delay:  # the table's time less its lobby's, over its moves, in round trips
            row.update(round_trips_per_move=round((seconds - lobby) / moves / (2 * link.delay), 2),
                       with_lobby=round(seconds / moves / (2 * link.delay), 2),
                       breakdown=_breakdown_rows(gaps))
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
    parser.add_argument("--tables", type=int, default=5, metavar="N",
                        help="qdan tables (a qdan game is one hand; default 5)")
    parser.add_argument("--processes", action="store_true",
                        help="each CPU peer in a process of its own, as at a real table "
                        "(default: every peer on this process's one event loop)")
    parser.add_argument("--rules", choices=("classic", "qdan", "both"), default="both")
    parser.add_argument("--breakdown", action="store_true",
                        help="with --delay: print the gaps between logged moves by what came "
                        "before (always in --json)")
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
        rows.append(measure("classic", 4, {"deals": args.deals, **options}, link,
                            args.processes))
    if args.rules in ("qdan", "both"):
        rows.append(measure("qdan", 6, options, link, args.processes, args.tables))
    if args.json:
        print(json.dumps(rows))
        return
    print(f"{'rules':8} {'peers':>5} {'hands':>5} {'lobby s':>7} {'s/hand':>8} {'cpu s/hand':>10} "
          f"{'engine s/hand':>14} {'log entries':>11} {'moves/hand':>10} {'RTT/move':>8} "
          f"{'+lobby':>6} {'drops':>5}")
    for row in rows:
        print(f"{row['rules']:8} {row['peers']:>5} {row['hands']:>5} "
              f"{row['lobby_seconds_per_table']:>7} "
              f"{row['seconds_per_hand']:>8} {row['cpu_seconds_per_hand']:>10} "
              f"{row['engine_seconds_per_hand']:>14} "
              f"{row['log_entries']:>11} {row['moves_per_hand']:>10} "
              f"{row.get('round_trips_per_move') or '-':>8} {row.get('with_lobby') or '-':>6} "
              f"{row.get('drops', '-'):>5}")
    for row in rows:
        if args.breakdown and row.get("breakdown"):
            print(f"\n{row['rules']}: gaps between logged moves, in round trips")
            for gap in row["breakdown"]:  # type: ignore[attr-defined]
                print(f"  {gap['gap']:42} {gap['count']:>5} x {gap['mean_round_trips']:>5} "
                      f"= {gap['round_trips']:>6}")
    if link == NO_DELAY:
        print("target: under 0.8 s per 4-peer classic hand (idle 2-core machine)")
    else:
        print(f"link: {args.delay:g} ms one way, loss {args.loss:g}; "
              "target at 50 ms: at most 1.10 round trips per move (1.15 with loss); drops: 0")


if __name__ == "__main__":
    main()
