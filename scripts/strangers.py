#!/usr/bin/env python3
"""Strangers and a ping flood against a table on loopback, beside the same table left alone.

    python scripts/strangers.py [--deals 3] [--seed 1] [--idle 1000] [--nofile 100]
                                [--sources 1] [--json]

Plays one seeded 3-seat classic table (the same deals every run) three times, each in a process
of its own, its host and two CPU joiners on one event loop over loopback TCP as
`scripts/bench_table.py` plays them, the process's open-file limit at NOFILE: "alone"; "flood",
where a helper process, once the first hand is dealt, floods the host with valid pings from
connection after connection; and "loaded", the same flood while IDLE connections that never say a
word are opened and held (they exhaust the host's descriptors). Prints for each: the game's time
(first deal to game over) and the table's CPU time, how long the host took to close after game
over, the process's peak resident memory, the host's "busy" lines, whether anything printed a
traceback, and the game times over the lone one's.

    python scripts/strangers.py load --port PORT [--idle N] [--flood]

is that helper on its own: it runs until stopped (SIGTERM) and prints its counts as JSON.
    python scripts/strangers.py lan [--deals 2] [--idle 1000] [--rounds 3] [--json]

plays a seeded 4-seat table of CPU players (think 0) on a LAN of network namespaces (as
tests/netns.py makes them; needs root): its host in one namespace, a joiner in each of three
more, and, once the first hand is dealt, IDLE silent connections and a ping flood from a fifth
(one address). It plays the table alone and under the crowd by turns, ROUNDS times each, and
prints the game times and the ratio of the medians (the bound is 1.5).

Traffic goes to 127.0.0.1, or stays inside the namespaces made, only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import json
import random
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

FAST = ["--think", "0", "--catch-window", "0"]
RUNS = ("alone", "flood", "loaded")
PING = b"\x00\x00\x00\x0e\x81\xa7control\xa4ping"  # one framed {"control": "ping"}


# --- the helper: strangers ------------------------------------------------------------------------


def _raise_nofile(wanted: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        top = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))


def load(port: int, idle: int, flood: bool, host: str = "127.0.0.1",
         sources: int = 1) -> dict[str, int]:
    """Flood pings from connection after connection while ``idle`` silent connections are
    opened and held (on loopback, from ``sources`` addresses 127.0.0.2, …, by turns), until
    SIGTERM; return the counts."""
    _raise_nofile(idle + 64)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    counts = {"idle_opened": 0, "flood_connections": 0, "flood_bytes": 0}
    flooding = threading.Thread(target=_flood, args=(host, port, stop, counts), daemon=True)
    if flood:
        flooding.start()
    held: list[socket.socket] = []
    for n in range(idle):
        s = socket.socket()
        s.setblocking(False)
        if sources > 1:
            s.bind((f"127.0.{2 + n % sources // 250}.{2 + n % sources % 250}", 0))
        if s.connect_ex((host, port)) in (0, errno.EINPROGRESS):
            held.append(s)
            counts["idle_opened"] += 1
        else:
            s.close()
    stop.wait()
    if flood:
        flooding.join()
    for s in held:
        s.close()
    return counts


def _flood(host: str, port: int, stop: threading.Event, counts: dict[str, int]) -> None:
    burst = PING * 4096
    while not stop.is_set():
        try:
            with socket.create_connection((host, port), timeout=0.5) as s:
                counts["flood_connections"] += 1
                while not stop.is_set():
                    counts["flood_bytes"] += s.send(burst)
        except OSError:
            time.sleep(0.001)  # refused, closed by the host or timed out: connect again


# --- the measurement ----------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _rss_mib(pid: int) -> float:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    rss = [int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS")]
    return round(rss[0] / 1024, 1) if rss else 0.0


def _seeded_peer(seed: int, name: str,
                 host_table: tuple[str, Any, int] | None = None) -> Any:
    from p2p_pageone.bots import make_bot
    from p2p_pageone.crypto.identity import Identity
    from p2p_pageone.session.peer import PeerSession

    randbytes = random.Random(f"{seed}/{name}").randbytes
    return PeerSession(Identity(randbytes(32)), name, randbytes, bot=make_bot("normal"),
                       rng=random.Random(f"{seed}/{name}/bot"), autoplay=True,
                       host_table=host_table)


async def _table(seed: int, deals: int, seats: int = 3, bind: str = "127.0.0.1",
                 remote: bool = False) -> dict[str, Any]:
    """A seeded table on ``bind``, every peer in this process as bench_table.py plays it (or,
    ``remote``, its joiners are other processes: ``seat``); says ``port N``, ``seated K`` as
    seats fill and ``dealt`` on stdout, and returns its figures."""
    from p2p_pageone.engine import make_settings
    from p2p_pageone.net.joiner import run_joiner
    from p2p_pageone.net.runner import HostRunner

    host = _seeded_peer(seed, "host", ("strangers", make_settings("classic", {"deals": deals}),
                                       seats))
    busy: list[str] = []
    moments: dict[str, float] = {}

    def seen(session: Any, events: list[Any]) -> None:
        busy.extend(e.text for e in events if e.kind == "busy")
        if remote and len(session.keys) > moments.get("seated", 1):
            moments["seated"] = len(session.keys)
            print(f"seated {len(session.keys)}", flush=True)
        if session.game is not None and "dealt" not in moments:
            moments["dealt"] = time.monotonic()
            print("dealt", flush=True)
        if session.game_over and "over" not in moments:
            moments["over"], moments["cpu_over"] = time.monotonic(), time.process_time()

    runner = HostRunner(host, bind, 0, seen, None)
    port = await runner.start()
    print(f"port {port}", flush=True)
    cpu = time.process_time()
    joiners = [] if remote else [
        asyncio.create_task(run_joiner(_seeded_peer(seed, f"cpu{i}"), bind, port,
                                       lambda s, e: None, None)) for i in range(1, seats)]
    await runner.run()
    moments["closed"] = time.monotonic()
    await asyncio.gather(*joiners)
    over = moments.get("over", 0.0)
    return {"game_over": host.game_over, "ended": host.ended,
            "game_s": round(over - moments["dealt"], 2) if over else None,
            "table_cpu_s": round(moments.get("cpu_over", 0.0) - cpu, 2),
            "exit_after_game_s": round(moments["closed"] - over, 2) if over else None,
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "busy_lines": len(busy)}


def run_table(seed: int, deals: int, nofile: int, seats: int = 3, bind: str = "127.0.0.1",
              remote: bool = False) -> None:
    if nofile:
        resource.setrlimit(resource.RLIMIT_NOFILE,
                           (nofile, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    started = time.monotonic()
    result = asyncio.run(_table(seed, deals, seats, bind, remote))
    result["process_s"] = round(time.monotonic() - started, 2)
    print(json.dumps(result), flush=True)


def play(seed: int, deals: int, idle: int, flood: bool, nofile: int,
         sources: int = 1) -> dict[str, Any]:
    """One table in its own process, with strangers once the first hand is dealt if ``idle`` or
    ``flood``."""
    table = subprocess.Popen([sys.executable, __file__, "table", "--seed", str(seed), "--deals",
                              str(deals), "--nofile", str(nofile)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    assert table.stdout is not None and table.stderr is not None
    helper: subprocess.Popen[str] | None = None
    result: dict[str, Any] = {}
    try:
        port = int(table.stdout.readline().split()[1])
        if table.stdout.readline().strip() != "dealt":
            raise RuntimeError("the table did not deal")
        if idle or flood:
            helper = subprocess.Popen(
                [sys.executable, __file__, "load", "--port", str(port), "--idle", str(idle),
                 "--sources", str(sources), *(["--flood"] if flood else [])],
                stdout=subprocess.PIPE, text=True)
        result.update(json.loads(table.stdout.readline()))
        err = table.stderr.read()
        table.wait(timeout=60)
    finally:
        _stop_strangers(helper, result)
        if table.poll() is None:
            table.kill()
    result.update(traceback="Traceback" in err, stderr_lines=len(err.splitlines()))
    return result


def _stop_strangers(helper: subprocess.Popen[str] | None, result: dict[str, Any]) -> None:
    """Stop the strangers' process; what it measured goes into ``result``."""
    if helper is None:
        return
    helper.send_signal(signal.SIGTERM)
    with contextlib.suppress(ValueError, subprocess.TimeoutExpired):
        result["strangers"] = json.loads(helper.communicate(timeout=30)[0] or "{}")


def measure(seed: int, deals: int, idle: int, nofile: int, sources: int = 1) -> dict[str, Any]:
    runs = {"alone": play(seed, deals, 0, False, nofile),
            "flood": play(seed, deals, 0, True, nofile),
            "loaded": play(seed, deals, idle, True, nofile, sources)}
    alone = runs["alone"]["game_s"]
    ratios = {f"{run}_game_time_ratio": round(runs[run]["game_s"] / alone, 2)
              for run in ("flood", "loaded") if runs[run]["game_s"] and alone}
    return {"deals": deals, "idle": idle, "nofile": nofile, "sources": sources, **runs,
            **ratios}


# --- on a LAN of network namespaces ---------------------------------------------------------------


def _lines_until(proc: subprocess.Popen[str], needle: str) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.strip() == needle:
            return
    raise RuntimeError(f"the table ended before it said {needle!r}")


def play_lan(hosts: list[Any], seed: int, deals: int, idle: int, crowd: bool,
             profile: str = "") -> dict[str, Any]:
    """One seeded 4-seat table: its host in ``hosts[0]``, a CPU joiner in each of the next
    three, and with ``crowd``, once the first hand is dealt, ``idle`` silent connections and a
    ping flood from ``hosts[4]`` (one address)."""
    me = [sys.executable, __file__]
    table = subprocess.Popen(hosts[0].command(*me, "table", "--seats", "4", "--remote",
                                              "--bind", hosts[0].address, "--seed", str(seed),
                                              "--deals", str(deals),
                                              *(["--profile", profile] if profile else [])),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert table.stdout is not None and table.stderr is not None
    seats: list[subprocess.Popen[str]] = []
    helper: subprocess.Popen[str] | None = None
    result: dict[str, Any] = {}
    try:
        port = int(table.stdout.readline().split()[1])
        for i in range(1, 4):
            seats.append(subprocess.Popen(hosts[i].command(
                *me, "seat", "--seed", str(seed), "--name", f"cpu{i}", "--connect",
                f"{hosts[0].address}:{port}"), stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, text=True))
            _lines_until(table, f"seated {i + 1}")
        _lines_until(table, "dealt")
        if crowd:
            helper = subprocess.Popen(hosts[4].command(
                *me, "load", "--host", hosts[0].address, "--port", str(port), "--idle",
                str(idle), "--flood"), stdout=subprocess.PIPE, text=True)
        result.update(json.loads(table.stdout.readline()))
        err = table.stderr.read()
        table.wait(timeout=60)
    finally:
        _stop_strangers(helper, result)
        for proc in [table, *seats]:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=30)
            if proc.poll() is None:
                proc.kill()
    result.update(traceback="Traceback" in err, stderr_lines=len(err.splitlines()))
    return result


def measure_lan(seed: int, deals: int, idle: int, rounds: int,
                profile: str = "") -> dict[str, Any]:
    """Alone and under the crowd, by turns, ``rounds`` times each on one namespace LAN."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests import netns

    why = netns.available()
    if why:
        raise SystemExit(f"strangers.py lan: {why}")
    runs: dict[str, list[dict[str, Any]]] = {"alone": [], "crowd": []}
    with netns.lan(5, "s") as hosts:
        for _ in range(rounds):
            for run in runs:
                runs[run].append(play_lan(hosts, seed, deals, idle, run == "crowd",
                                          f"{profile}.{run}" if profile else ""))
    times = {run: sorted(r["game_s"] for r in rs if r["game_s"]) for run, rs in runs.items()}
    medians = {run: t[len(t) // 2] if t else None for run, t in times.items()}
    ratio = (round(medians["crowd"] / medians["alone"], 2)
             if medians["crowd"] and medians["alone"] else None)
    return {"deals": deals, "idle": idle, "seats": 4, "rounds": rounds, "game_s": times,
            "median_game_s": medians, "crowd_over_alone": ratio, "bound": 1.5,
            "within_bound": ratio is not None and ratio <= 1.5, "runs": runs}


def lan_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="strangers.py lan", description=(
        "a 4-seat table of CPU players (think 0) on a LAN of network namespaces, alone and "
        "with IDLE silent connections and a ping flood from one address (needs root)"))
    parser.add_argument("--deals", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--idle", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", default="",
                        help="write cProfiles of the host (PROFILE.alone, PROFILE.crowd)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = measure_lan(args.seed, args.deals, args.idle, args.rounds, args.profile)
    if args.json:
        print(json.dumps(result))
    else:
        for run in ("alone", "crowd"):
            cpu = [r["table_cpu_s"] for r in result["runs"][run]]
            print(f"{run:5} game times {result['game_s'][run]} s (median "
                  f"{result['median_game_s'][run]} s), the host's CPU {cpu} s")
        crowd = result["runs"]["crowd"]
        print(f"strangers: {[r.get('strangers') for r in crowd]}")
        print(f"crowd/alone: {result['crowd_over_alone']} (bound 1.5)")
    ok = all(r["game_over"] and not r["traceback"] for rs in result["runs"].values()
             for r in rs)
    return 0 if ok else 1


async def _seat(seed: int, name: str, host: str, port: int) -> None:
    """One seeded CPU joiner of a remote table (``--think 0``: it answers at once)."""
    from p2p_pageone.net.joiner import run_joiner

    await run_joiner(_seeded_peer(seed, name), host, port, lambda s, e: None, None, listen=True)


def main() -> int:
    if sys.argv[1:2] == ["table"]:
        parser = argparse.ArgumentParser(prog="strangers.py table")
        parser.add_argument("table")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--deals", type=int, default=3)
        parser.add_argument("--nofile", type=int, default=0)
        parser.add_argument("--seats", type=int, default=3)
        parser.add_argument("--bind", default="127.0.0.1")
        parser.add_argument("--remote", action="store_true")
        parser.add_argument("--profile", default="", help="write a cProfile of the table here")
        a = parser.parse_args()
        if a.profile:
            import cProfile

            cProfile.runctx("run_table(a.seed, a.deals, a.nofile, a.seats, a.bind, a.remote)",
                            globals(), {"a": a}, a.profile)
        else:
            run_table(a.seed, a.deals, a.nofile, a.seats, a.bind, a.remote)
        return 0
    if sys.argv[1:2] == ["seat"]:
        parser = argparse.ArgumentParser(prog="strangers.py seat")
        parser.add_argument("seat")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--name", required=True)
        parser.add_argument("--connect", required=True)
        a = parser.parse_args()
        address, _, port = a.connect.rpartition(":")
        asyncio.run(_seat(a.seed, a.name, address, int(port)))
        return 0
    if sys.argv[1:2] == ["lan"]:
        return lan_main(sys.argv[2:])
    if sys.argv[1:2] == ["load"]:
        parser = argparse.ArgumentParser(prog="strangers.py load")
        parser.add_argument("load")
        parser.add_argument("--port", type=int, required=True)
        parser.add_argument("--idle", type=int, default=1000)
        parser.add_argument("--flood", action="store_true")
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--sources", type=int, default=1)
        a = parser.parse_args()
        print(json.dumps(load(a.port, a.idle, a.flood, a.host, a.sources)), flush=True)
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1, help="the same deals in every run")
    parser.add_argument("--idle", type=int, default=1000)
    parser.add_argument("--nofile", type=int, default=100,
                        help="the host's open-file limit (default 100)")
    parser.add_argument("--sources", type=int, default=1,
                        help="the idle connections come from this many loopback addresses "
                        "(a host keeps 4 unproven ones per address)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.seed, args.deals, args.idle, args.nofile, args.sources)
    if args.json:
        print(json.dumps(result))
    else:
        for run in RUNS:
            r = result[run]
            print(f"{run:7} game {r['game_s']} s (table CPU {r['table_cpu_s']} s), closed "
                  f"{r['exit_after_game_s']} s after game over, process {r['process_s']} s, "
                  f"peak {r['peak_rss_mib']} MiB, busy lines {r['busy_lines']}, traceback "
                  f"{r['traceback']}, game over {r['game_over']} {r.get('strangers', '')}")
        print(f"game time flood/alone: {result.get('flood_game_time_ratio')}, "
              f"loaded/alone: {result.get('loaded_game_time_ratio')}")
    ok = all(result[run]["game_over"] and not result[run]["traceback"] for run in RUNS)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
