#!/usr/bin/env python3
"""Time a whole proven deal in one process: every peer shuffles and locks with proofs, every
other peer verifies each pass on receipt (msgpack-encoded between peers as on the wire), then
each seat is dealt 7 cards (every other peer's keys, checked on receipt) and opens them.

    python scripts/bench_deal.py [--json] [--repeat R]

Rows: peers, cards, seconds (the whole deal, best of R), prove_seconds_per_peer and
verify_seconds_per_peer (a peer's own proving, and its checking of everyone else's passes and
keys), unproven_seconds (the same passes with no proof and no check: the old protocol's work on
this group), cpu_seconds (the process time of the whole deal, best of R: comparable on a shared
machine, where wall time is not). Targets on an idle 2-core machine: 4x53 <= 0.5 s, 6x108 <= 2.5 s.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time

from p2p_pageone.crypto import group
from p2p_pageone.crypto.deck import DeckSecrets, Pass
from p2p_pageone.session.deckdriver import HandPeer, seat_peers
from p2p_pageone.wire.codec import pack, unpack

DECK = "1/main"
HAND = 7


def setup(peers: int, cards: int) -> list[HandPeer]:
    contexts = [b"bench|%d" % i for i in range(peers)]
    seeds = [hashlib.sha256(b"bench%d" % i).digest() for i in range(peers)]
    table = seat_peers(seeds, contexts, cards)
    for peer in table:
        peer.start_round(DECK, list(range(cards)))
    return table


def proven_run(peers: int, cards: int) -> tuple[float, float, float, float]:
    """(whole deal, proving time, verifying time, process time of the whole deal), all peers
    together."""
    start, cpu = time.perf_counter(), time.process_time()
    table = setup(peers, cards)
    prove = verify = 0.0
    for _ in range(2 * peers):
        for peer in table:
            t0 = time.perf_counter()
            result = peer.my_pass(DECK)
            prove += time.perf_counter() - t0
            if result is None:
                continue
            step, sent = result
            data = pack({"deck": DECK, **sent.fields()})
            for other in table:
                if other is not peer:
                    t0 = time.perf_counter()
                    other.receive_pass(DECK, step, peer.seat, Pass.from_fields(unpack(data)))
                    verify += time.perf_counter() - t0
            break
    for to in range(peers):
        positions = list(range(to * HAND, (to + 1) * HAND))
        for sender in table:
            keys = sender.deal_keys(DECK, positions, to)
            for receiver in table:
                if receiver is not sender and keys:
                    t0 = time.perf_counter()
                    receiver.receive_keys(DECK, sender.seat, positions, keys)
                    verify += time.perf_counter() - t0
        for position in positions:
            table[to].open_own(DECK, position)
    return time.perf_counter() - start, prove, verify, time.process_time() - cpu


def unproven_run(peers: int, cards: int) -> float:
    """Each peer's shuffle and lock pass with no proof and no check."""
    secrets = [DeckSecrets.derive(hashlib.sha256(b"%d" % i).digest(), b"bench|%d" % i, DECK,
                                  cards) for i in range(peers)]
    start = time.perf_counter()
    points = [group.decode(x) for x in group.card_points(cards)]
    for s in secrets:
        points = s.shuffle(points)
    for s in secrets:
        points = s.lock(points)
    return time.perf_counter() - start


def measure(peers: int, cards: int, repeat: int) -> dict[str, object]:
    group.card_points(cards)
    group.generators(cards)
    runs = [proven_run(peers, cards) for _ in range(repeat)]
    whole, prove, verify, _ = min(runs)
    cpu = min(run[3] for run in runs)
    unproven = min(unproven_run(peers, cards) for _ in range(repeat))
    return {"peers": peers, "cards": cards, "seconds": round(whole, 4),
            "prove_seconds_per_peer": round(prove / peers, 4),
            "verify_seconds_per_peer": round(verify / peers, 4),
            "unproven_seconds": round(unproven, 4), "cpu_seconds": round(cpu, 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--repeat", type=int, default=3, help="best of R runs (default 3)")
    args = parser.parse_args()
    rows = [measure(p, c, args.repeat) for p in (2, 4, 6) for c in (53, 108)]
    if args.json:
        print(json.dumps(rows))
        return
    print(f"{'peers':>5} {'cards':>5} {'seconds':>9} {'prove/peer':>11} {'verify/peer':>12} "
          f"{'unproven':>9} {'cpu':>7}")
    for row in rows:
        print(f"{row['peers']:>5} {row['cards']:>5} {row['seconds']:>9} "
              f"{row['prove_seconds_per_peer']:>11} {row['verify_seconds_per_peer']:>12} "
              f"{row['unproven_seconds']:>9} {row['cpu_seconds']:>7}")
    print("targets on an idle 2-core machine: 4x53 <= 0.5 s, 6x108 <= 2.5 s")


if __name__ == "__main__":
    main()
