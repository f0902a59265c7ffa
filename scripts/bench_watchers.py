"""Watchers cost the table nothing it can feel: a 4-seat table of CPU players (host and three
joiners, in this process, on loopback) is played to its end with no watcher and with 20
(``--watchers``), in turns, the same deals each time; the game's time is printed for both, and
their ratio (the target: at most 1.2).

The watchers run in a process of their own, as they would on other machines, and receive the
whole log; ``--fold`` makes each also fold and check every entry as ``pageone watch`` does (20
referees sharing this machine's two cores with the table: the ratio then shows the cores, not
the table).

    python scripts/bench_watchers.py [--watchers 20] [--deals 2] [--rounds 3] [--fold] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import statistics
import time
from typing import Any

from p2p_pageone.audit.live import LiveAudit
from p2p_pageone.bots import make_bot
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.engine import make_settings
from p2p_pageone.net.joiner import run_joiner
from p2p_pageone.net.runner import HostRunner
from p2p_pageone.net.watching import run_watcher
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.session.watch import Watcher


def peer(name: str, seed: int, host_table: Any = None) -> PeerSession:
    randbytes = random.Random(f"{seed}/{name}").randbytes
    return PeerSession(Identity(randbytes(32)), name, randbytes, bot=make_bot("normal"),
                       rng=random.Random(name), autoplay=True, host_table=host_table)


async def watchers(port: int, count: int, fold: bool) -> int:
    """``count`` watchers to the table's end; how many saw it end."""
    async def one(index: int) -> bool:
        watcher = Watcher(Identity(bytes([index + 1]) * 32), asyncio.get_running_loop().time())
        live = LiveAudit()
        ended: list[bool] = [False]

        def entries(new: list[bytes]) -> None:
            for raw in new:
                if fold:
                    live.add(raw)
                ended[0] = ended[0] or b"game_over" in raw
            ended[0] = ended[0] or (fold and live.state.game_over)

        why = await run_watcher(watcher, ("127.0.0.1", port), entries,
                                lambda: live.state.game_over if fold else False,
                                lambda: [("127.0.0.1", port)], retry_for=30.0)
        return not why or "closed" in why or "no host" in why

    return sum(await asyncio.gather(*(one(i) for i in range(count))))


def _watch_child(port: int, count: int, fold: bool, done: Any) -> None:
    done.put(asyncio.run(watchers(port, count, fold)))


async def table(deals: int, seed: int, count: int, fold: bool) -> float:
    settings = make_settings("classic", {"deals": deals})
    host = peer("host", seed, ("bench", settings, 4))
    runner = HostRunner(host, "127.0.0.1", 0, lambda s, e: None, None,
                        lobby={"watchers": count})
    port = await runner.start()
    context = multiprocessing.get_context("fork")
    done = context.Queue()
    child = context.Process(target=_watch_child, args=(port, count, fold, done))
    if count:
        child.start()
        deadline = time.perf_counter() + 60
        while runner.sequencer is not None and runner.sequencer.watching() < count:
            if time.perf_counter() > deadline:
                raise SystemExit(f"only {runner.sequencer.watching()} of {count} watchers "
                                 "came in 60 s")
            await asyncio.sleep(0.01)
    start = time.perf_counter()
    joiners = [asyncio.create_task(run_joiner(peer(f"cpu{i}", seed), "127.0.0.1", port,
                                              lambda s, e: None, None)) for i in (1, 2, 3)]
    await runner.run()
    seconds = time.perf_counter() - start
    await asyncio.gather(*joiners)
    if count:
        child.kill()  # the table is over: its watchers would try again for a while
        await asyncio.to_thread(child.join, 30)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--watchers", type=int, default=20)
    parser.add_argument("--deals", type=int, default=2, help="classic deals per game")
    parser.add_argument("--rounds", type=int, default=3, help="games with and without, in turns")
    parser.add_argument("--fold", action="store_true", help="each watcher folds every entry")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    without, with_ = [], []
    for round_ in range(args.rounds):
        without.append(asyncio.run(table(args.deals, round_, 0, args.fold)))
        with_.append(asyncio.run(table(args.deals, round_, args.watchers, args.fold)))
    ratio = statistics.median(w / o for w, o in zip(with_, without, strict=True))
    figures = {"watchers": args.watchers, "deals": args.deals, "fold": args.fold,
               "without_s": [round(s, 3) for s in without],
               "with_s": [round(s, 3) for s in with_], "ratio_median": round(ratio, 3),
               "target": 1.2}
    if args.json:
        print(json.dumps(figures))
        return
    print(f"4-seat classic table, {args.deals} deals, CPU players, loopback; watchers "
          f"{'folding every entry' if args.fold else 'receiving the log'}")
    print(f"without watchers: {', '.join(f'{s:.2f}' for s in without)} s")
    print(f"with {args.watchers}:  {', '.join(f'{s:.2f}' for s in with_)} s")
    print(f"ratio (median of the rounds): {ratio:.2f}  (target: at most 1.2)")


if __name__ == "__main__":
    main()
