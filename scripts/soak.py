#!/usr/bin/env python3
"""Soak: six peers, each its own process, play a long classic table on loopback.

    python scripts/soak.py [--hands 200] [--peers 6] [--json]

`pageone host --autoplay` and five `pageone join --bot` processes (no mDNS, loopback only) play
one classic table of HANDS deals. Every two seconds each process's open descriptors and resident
memory are read from /proc; the figures at the start (the first sample once every peer is seated
and the first hand is under way) and at the end (the last sample while all six still play) show
any growth.
Then every peer's log is audited, together and one by one. Prints hands per minute, the per-process
figures and the audit's verdicts; exit 0 only if the table finished and every audit passed.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FAST = ["--think", "0", "--catch-window", "0", "--no-mdns"]
SAMPLE_EVERY = 2.0


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "p2p_pageone.cli.main", *args]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def sample(pid: int) -> tuple[int, float] | None:  # (descriptors, MiB)
    """(open descriptors, resident MiB) of a live process, None once it is gone."""
    try:
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    rss = [int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS")]
    return (fds, round(rss[0] / 1024, 1)) if rss else None  # an exited, unreaped process: none


def start(home: Path, args: list[str], out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
           "XDG_CONFIG_HOME": str(home / "config"),  # each peer its own identity
           "NO_COLOR": "1"}
    home.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(command(*args), env=env, stdin=subprocess.DEVNULL,
                            stdout=out.open("wb"), stderr=subprocess.STDOUT)


Figures = tuple[int, float]  # open descriptors, resident MiB


@dataclass
class Run:
    seconds: float
    exits: list[int]
    first: list[Figures | None]
    last: list[Figures | None]
    logs: list[Path]

    def process(self, i: int) -> dict[str, object]:
        first, last = self.first[i], self.last[i]
        return {"peer": i, "exit": self.exits[i],
                "fds_start": first and first[0], "fds_end": last and last[0],
                "rss_mib_start": first and first[1], "rss_mib_end": last and last[1]}


def play(work: Path, hands: int, peers: int, timeout: float) -> Run:
    port = free_port()
    logs = [work / f"peer{i}.pageone-log" for i in range(peers)]
    procs = [start(work / "h0", ["host", "--seats", str(peers), "--autoplay", "--deals",
                                 str(hands), "--name", "host", "--interface", "127.0.0.1",
                                 "--port", str(port), "--log", str(logs[0]), *FAST],
                   work / "peer0.out")]
    time.sleep(1.0)
    for i in range(1, peers):
        procs.append(start(work / f"h{i}", ["join", "--bot", "--name", f"bot{i}", "--connect",
                                            f"127.0.0.1:{port}", "--log", str(logs[i]),
                                            "--think", "0", "--catch-window", "0"],
                           work / f"peer{i}.out"))
    first: list[Figures | None] = [None] * peers
    last: list[Figures | None] = [None] * peers
    began = time.monotonic()
    while any(p.poll() is None for p in procs) and time.monotonic() - began < timeout:
        seated = all(log.exists() and log.stat().st_size > 20_000 for log in logs)
        playing = all(proc.poll() is None for proc in procs)  # the end: the last such sample
        for i, proc in enumerate(procs):
            figures = sample(proc.pid) if playing else None
            if figures is not None:
                last[i] = figures
                if first[i] is None and seated:
                    first[i] = figures
        time.sleep(SAMPLE_EVERY)
    seconds = time.monotonic() - began
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
    return Run(seconds, [p.wait() for p in procs], first, last, logs)


def audit(logs: list[Path]) -> tuple[dict[str, Any], list[bool]]:
    together = subprocess.run(command("audit", "--json", *map(str, logs)), capture_output=True)
    alone = [subprocess.run(command("audit", "--quiet", str(log)), capture_output=True)
             .returncode == 0 for log in logs]
    try:
        document: dict[str, Any] = json.loads(together.stdout)
    except ValueError:
        document = {"ok": False, "error": together.stderr.decode(errors="replace")[-500:]}
    return document, alone


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200, help="classic deals (1-200)")
    parser.add_argument("--peers", type=int, default=6, help="processes at the table (2-6)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="give up after S seconds")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the logs and outputs")
    args = parser.parse_args()
    if not (1 <= args.hands <= 200 and 2 <= args.peers <= 6):
        parser.error("--hands 1-200 and --peers 2-6")
    work = Path(tempfile.mkdtemp(prefix="pageone-soak-"))
    run = play(work, args.hands, args.peers, args.timeout)
    document, alone = audit(run.logs)
    logs = document.get("logs") or [{}]
    hands = [h for h in logs[0].get("hands", []) if h.get("status") in ("ok", "void")]
    processes = [run.process(i) for i in range(args.peers)]
    ok = (len(hands) == args.hands and bool(document.get("ok")) and all(alone)
          and all(code == 0 for code in run.exits))
    result = {
        "peers": args.peers, "hands": len(hands), "seconds": round(run.seconds, 1),
        "hands_per_minute": round(60 * len(hands) / run.seconds, 1), "processes": processes,
        "audit_together_ok": bool(document.get("ok")), "audit_each_ok": alone,
        "work_dir": str(work) if args.keep else None, "ok": ok,
    }
    if not args.keep:
        subprocess.run(["rm", "-rf", str(work)], check=False)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['hands']} hands by {args.peers} processes in {result['seconds']} s: "
              f"{result['hands_per_minute']} hands/minute")
        print(f"{'peer':>4} {'exit':>4} {'fds start':>9} {'fds end':>7} {'RSS MiB start':>13} "
              f"{'RSS MiB end':>11}")
        for p in processes:
            print(f"{p['peer']:>4} {p['exit']:>4} {p['fds_start']!s:>9} {p['fds_end']!s:>7} "
                  f"{p['rss_mib_start']!s:>13} {p['rss_mib_end']!s:>11}")
        print(f"audit of all logs together: {'OK' if result['audit_together_ok'] else 'FAIL'}; "
              f"one by one: {sum(alone)}/{len(alone)} OK")
        print("verdict:", "OK" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
