#!/usr/bin/env python3
"""What a flood of direct frames costs the joiner that receives it (protocol/SPEC.md §7, "Keys
to their owner, directly"): the receiver's CPU share while a seated peer floods its listener.

    python scripts/bench_direct_flood.py [--seconds 10] [--json]

A 3-seat table is dealt in memory; seat 1's standby listener (net/standby.py) serves on
127.0.0.1 in this process, and a helper process holding seat 2's key (so it can prove it) floods
it, reconnecting as soon as it is cut off: "big", frames of 256 KiB (an array of small maps) in
a loop; "rate", tiny frames as fast as it can write them. Each run is measured against this
process left idle as long ("idle"). Prints the CPU share of each (cores: CPU seconds over wall
seconds, idle subtracted; the target is at most ~0.1), the connections the flooder made and the
bytes it wrote. Loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from typing import Any

from p2p_pageone.engine import make_settings
from p2p_pageone.net.standby import Standby
from p2p_pageone.session.links import answer_challenge
from p2p_pageone.session.memory import MemoryTable, make_peer
from p2p_pageone.wire.codec import FrameDecoder, frame, pack, unpack

SEED = 5
TARGET = 0.1  # cores
BIG = 256 * 1024


def _dealt() -> MemoryTable:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=SEED)
    while not all(s.game is not None and s.hand_known() for s in t.sessions):
        if not t.step():
            t.advance(t.now + 0.5)
    return t


def _big_frame() -> bytes:
    """One frame of about 256 KiB: an array of small maps."""
    small = {"a": 1, "b": "xy"}
    count = (BIG - 16) // len(pack(small))
    return frame(pack([small] * count))


async def _flood(port: int, mode: str, seconds: float) -> dict[str, int]:
    """Seat 2 proves its key and floods, reconnecting whenever it is cut off."""
    me = make_peer(f"{SEED}/2", "p2").identity
    payload = _big_frame() if mode == "big" else frame(pack({"n": 1})) * 4096
    counts = {"connections": 0, "bytes": 0}
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            counts["connections"] += 1
            decoder = FrameDecoder()
            while not (payloads := decoder.feed(await reader.read(4096))):
                if reader.at_eof():
                    raise ConnectionError
            writer.write(answer_challenge(unpack(payloads[0]), me, {"control": "direct"}))
            await asyncio.sleep(0.01)
            while time.monotonic() < end:
                writer.write(payload)
                await writer.drain()
                counts["bytes"] += len(payload)
        except (ConnectionError, OSError):
            await asyncio.sleep(0)
    return counts


async def _receive(seconds: float, mode: str) -> dict[str, Any]:
    t = _dealt()
    standby = Standby(t.sessions[1])
    port = int((await standby.open("127.0.0.1")).rsplit(":", 1)[1])
    helper = None
    if mode != "idle":
        helper = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "flood", "--port", str(port), "--mode", mode,
            "--seconds", str(seconds), stdout=subprocess.PIPE)
    cpu, wall = time.process_time(), time.monotonic()
    await asyncio.sleep(seconds)
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    result: dict[str, Any] = {"cpu_s": round(cpu, 3), "wall_s": round(wall, 2),
                              "banned": len(standby.banned)}
    if helper is not None:
        out, _ = await helper.communicate()
        result.update(json.loads(out or b"{}"))
    standby.close()
    return result


def measure(seconds: float) -> dict[str, Any]:
    runs = {mode: asyncio.run(_receive(seconds, mode)) for mode in ("idle", "big", "rate")}
    idle = runs["idle"]["cpu_s"] / runs["idle"]["wall_s"]
    for mode in ("big", "rate"):
        run = runs[mode]
        run["cores"] = round(max(0.0, run["cpu_s"] / run["wall_s"] - idle), 4)
    worst = max(runs["big"]["cores"], runs["rate"]["cores"])
    return {"seconds": seconds, "target_cores": TARGET, "worst_cores": worst,
            "within_target": worst <= TARGET, **runs}


def main() -> int:
    if sys.argv[1:2] == ["flood"]:
        parser = argparse.ArgumentParser(prog="bench_direct_flood.py flood")
        parser.add_argument("flood")
        parser.add_argument("--port", type=int, required=True)
        parser.add_argument("--mode", choices=("big", "rate"), required=True)
        parser.add_argument("--seconds", type=float, required=True)
        a = parser.parse_args()
        print(json.dumps(asyncio.run(_flood(a.port, a.mode, a.seconds))), flush=True)
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.seconds)
    if args.json:
        print(json.dumps(result))
    else:
        for mode in ("big", "rate"):
            r = result[mode]
            print(f"{mode:5} flood: receiver {r['cores']} cores ({r['cpu_s']} s CPU in "
                  f"{r['wall_s']} s), flooder {r.get('connections')} connections, "
                  f"{r.get('bytes', 0) / 2**20:.1f} MiB written, keys refused now "
                  f"{r['banned']}")
        print(f"idle: {result['idle']['cpu_s']} s CPU; worst {result['worst_cores']} cores "
              f"(target <= {TARGET})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
