#!/usr/bin/env python3
"""How often a live link is taken for a dead one, by silence threshold: whole tables in memory
(simulated time, fast) whose joiners' links follow the delaying proxy's model of a slow, lossy
TCP link (net/proxy.py: a lost burst is retransmitted after an RTO of at least 200 ms, doubling).

    python scripts/silence_sim.py [--json] [--delay MS] [--loss P] [--games N] [--factor K ...]

For each factor K (0: the fixed threshold, the floor of 10 s alone; else the adaptive one,
max(10 s, min(60 s, K·(SRTT + 4·RTTVAR))), session/rtt.py), N three-peer classic games of 3 deals
with both joiners on such a link: how many games saw a live seat dropped (away, timeout, or a
joiner giving up on its host; and of those, for silence rather than a step timed out), the
simulated hours played, the longest retransmission wait drawn,
and the joiners' thresholds at the end (median). The same seeds for every K.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics

from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.engine import make_settings
from p2p_pageone.net.proxy import Link
from p2p_pageone.session import rtt
from p2p_pageone.session.memory import SlowLinkTable


def dropped(t: SlowLinkTable) -> tuple[bool, bool]:
    """(a live seat was dropped at all, for silence)"""
    signs = [str(open_envelope(raw).data) for raw in t.sessions[0].log
             if open_envelope(raw).kind in ("away", "timeout")]
    signs += [s.attachment.dropped or s.ended for s in t.sessions[1:]
              if s.attachment.dropped or s.ended]
    return bool(signs), any("sent nothing for" in sign for sign in signs)


def run(factor: float, link: Link, games: int) -> dict[str, object]:
    rtt.SILENT_FACTOR = factor
    bad, silent, hours, longest, limits = 0, 0, 0.0, 0.0, []
    for seed in range(games):
        rng = random.Random(seed)
        t = SlowLinkTable(make_settings("classic", {"deals": 3}), 3, seed, {1, 2}, link.delay,
                          lambda rng=rng: link.retransmission_wait(rng), step_timeout=60.0)
        t.run(limit=7200, dt=0.1)
        any_drop, for_silence = dropped(t)
        bad, silent = bad + any_drop, silent + for_silence
        hours += t.now / 3600
        longest = max(longest, t.longest)
        limits += [c.rtt.silent_after(c.silent_after) for c in t.clients]
    return {"factor": factor, "delay_ms": round(link.delay * 1000), "loss": link.loss,
            "games": games, "games_with_a_drop": bad,
            "dropped_for_silence": silent, "hours": round(hours, 2),
            "longest_wait_s": round(longest, 1),
            "median_threshold_s": round(statistics.median(limits), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--delay", type=float, default=50.0, metavar="MS")
    parser.add_argument("--loss", type=float, default=0.3, metavar="P")
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--factor", type=float, action="append", default=[], metavar="K",
                        help=f"repeatable (default: 0, 16 and {rtt.SILENT_FACTOR:g})")
    args = parser.parse_args()
    link = Link(args.delay / 1000, args.loss)
    factors = args.factor or [0.0, 16.0, rtt.SILENT_FACTOR]
    rows = [run(factor, link, args.games) for factor in dict.fromkeys(factors)]
    if args.json:
        print(json.dumps(rows))
        return
    print(f"link: {args.delay:g} ms one way, loss {args.loss:g}; {args.games} games per factor")
    print(f"{'K':>4} {'games with a drop':>17} {'for silence':>11} {'hours':>6} "
          f"{'longest wait s':>14} {'median threshold s':>18}")
    for row in rows:
        print(f"{row['factor']:>4g} {row['games_with_a_drop']:>17} "
              f"{row['dropped_for_silence']:>11} {row['hours']:>6} "
              f"{row['longest_wait_s']:>14} {row['median_threshold_s']:>18}")


if __name__ == "__main__":
    main()
