#!/usr/bin/env python3
"""Time to shuffle and lock a deck (all peers, in memory, points msgpack-encoded between peers as
on the wire), beside the crypto floor measured in the same run.

    python scripts/bench_deal.py [--json] [--repeat R]

The floor is the library work the protocol cannot avoid: per peer, one pass decoding each wire
point and multiplying it by one scalar, and one pass decoding each point and multiplying it by a
per-position scalar. Target: at most 1.25x the floor in every row.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time

from p2p_pageone.crypto import ec
from p2p_pageone.crypto.mental import DeckPeer
from p2p_pageone.wire.codec import pack, unpack

DECK = "1/main"


def protocol_run(peers: int, cards: int) -> float:
    contexts = [b"bench|%d" % i for i in range(peers)]
    seeds = [hashlib.sha256(b"bench%d" % i).digest() for i in range(peers)]
    start = time.perf_counter()
    table = [DeckPeer(i, seeds[i], contexts, cards) for i in range(peers)]
    for peer in table:
        for other in table:
            peer.record_commitment(other.seat, other.commitment)
        peer.start_round(DECK, list(range(cards)))
    for _ in range(2 * peers):
        for peer in table:
            result = peer.my_pass(DECK)
            if result is None:
                continue
            step, points = result
            data = pack({"deck": DECK, "points": points})
            for other in table:
                if other is not peer:
                    other.receive_pass(DECK, step, peer.seat, unpack(data)["points"])
            break
    return time.perf_counter() - start


def floor_run(peers: int, cards: int) -> float:
    points = list(ec.card_points(cards))
    scalars = [ec.scalar_from(hashlib.sha512(b"%d" % i).digest()) for i in range(cards)]
    start = time.perf_counter()
    for _ in range(peers):
        private = ec.key(scalars[0])
        points = [ec.mul(x, private) for x in points]
        points = [ec.mul(x, ec.key(k)) for x, k in zip(points, scalars, strict=True)]
    return time.perf_counter() - start


def measure(peers: int, cards: int, repeat: int) -> dict[str, object]:
    ec.card_points(cards)
    protocol = min(protocol_run(peers, cards) for _ in range(repeat))
    floor = min(floor_run(peers, cards) for _ in range(repeat))
    return {"peers": peers, "cards": cards, "seconds": round(protocol, 4),
            "floor_seconds": round(floor, 4), "ratio": round(protocol / floor, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--repeat", type=int, default=5, help="best of R runs (default 5)")
    args = parser.parse_args()
    rows = [measure(p, c, args.repeat) for p in (2, 4, 6) for c in (53, 108)]
    if args.json:
        print(json.dumps(rows))
        return
    print(f"{'peers':>5} {'cards':>5} {'seconds':>9} {'floor':>9} {'ratio':>6}")
    for row in rows:
        print(f"{row['peers']:>5} {row['cards']:>5} {row['seconds']:>9} "
              f"{row['floor_seconds']:>9} {row['ratio']:>6}")
    print("target: ratio <= 1.25 in every row")


if __name__ == "__main__":
    main()
