"""Audit time per hand, beside the time the peers spent on the same crypto.

Plays a 4-peer classic game and a 6-peer qdan game in memory (real deck, real signatures), then
audits one peer's log. For each it prints:

- ``audit_seconds_per_hand``: the whole audit (framing, signatures, chain, the fold, the deck
  re-derived from the seeds, every move with every card known), divided by the hands;
- ``rederive_seconds_per_hand``: the part of that audit spent re-deriving the deck rounds from
  the seeds (``session/deckcheck.py``) - the floor the audit is measured against;
- ``peer_crypto_seconds_per_hand``: what one peer spent, on average, on deck crypto during play:
  proving its own passes, verifying every other peer's pass (on receipt, or as the sequencer
  before relaying it), its own unlock keys, checking every key it receives, opening its cards
  and the shown ones, and checking the other peers' reveals;
Every figure is processor time (``time.process_time``), the best of several runs: the machine's
other load only adds time.

- ``ratio_to_peer_crypto``: audit / the peer's deck crypto (target: at most 1.5);
- ``ratio_to_rederive``: audit / re-deriving the deck alone (what the audit adds to the floor:
  signatures, chain, the fold, the engine).

``--every-proof`` audits verifying every proof's bytes as live peers do (SPEC §9), for comparison.

Usage: python scripts/bench_audit.py [--json] [--deals N] [--every-proof]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.crypto.deck import DeckRound
from p2p_pageone.engine import make_settings
from p2p_pageone.session.fold import dealing, rounds
from p2p_pageone.session.hand import HandDeck, HandSecrets
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.wire.codec import frame


class Clock:
    def __init__(self) -> None:
        self.seconds = 0.0
        self.depth = 0

    def wrap(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            if self.depth:  # count nested calls once
                return function(*args, **kwargs)
            self.depth += 1
            start = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds += time.process_time() - start
                self.depth -= 1
        return timed


@contextmanager
def timing(clock: Clock, targets: list[tuple[Any, str]]) -> Iterator[None]:
    saved = [(owner, name, getattr(owner, name)) for owner, name in targets]
    for owner, name, function in saved:
        setattr(owner, name, clock.wrap(function))
    try:
        yield
    finally:
        for owner, name, function in saved:
            setattr(owner, name, function)


REDERIVE = [(dealing, "check_reveal"), (rounds, "round_cards")]
PEER_CRYPTO = [
    *REDERIVE,  # the other peers' reveals, and every card of the hand opened after them
    (HandSecrets, "compute_pass"), (HandSecrets, "key_for"), (HandSecrets, "open_own"),
    (HandDeck, "start"),  # a deck round's start points, decoded
    (DeckRound, "check"),  # every other peer's pass verified (proof included), once per peer
    (HandDeck, "refusal"),  # the sequencer's checks before relaying a deck message
    (HandDeck, "check_keys"), (HandDeck, "open_public"), (HandDeck, "check_shown"),
]


def measure(rules: str, peers: int, options: dict[str, Any], repeat: int = 3,
            every_proof: bool = False) -> dict[str, Any]:
    """Best of ``repeat`` runs for each figure: the machine's other load only adds time."""
    settings = make_settings(rules, options)
    peer_seconds = []
    for _ in range(2):  # the same seed: the same hands, the same work
        peer_clock = Clock()
        with timing(peer_clock, PEER_CRYPTO):
            table = MemoryTable(settings, peers, seed=7)
            table.run(limit=24 * 3600)
        peer_seconds.append(peer_clock.seconds)
    session = table.sessions[1]
    hands = len(session.history)
    data = b"".join(frame(raw) for raw in session.log)
    audits, rederives = [], []
    for _ in range(repeat):
        rederive = Clock()
        with timing(rederive, REDERIVE):
            start = time.process_time()
            audit = audit_bytes(data, every_proof=every_proof)
            audits.append(time.process_time() - start)
        rederives.append(rederive.seconds)
        assert audit.ok, audit.fault
    per = max(1, hands)
    audit_seconds, peer_crypto = min(audits), min(peer_seconds) / peers
    return {"rules": rules, "peers": peers, "hands": hands, "entries": audit.entries,
            "audit_seconds_per_hand": round(audit_seconds / per, 4),
            "rederive_seconds_per_hand": round(min(rederives) / per, 4),
            "peer_crypto_seconds_per_hand": round(peer_crypto / per, 4),
            "ratio_to_peer_crypto": round(audit_seconds / peer_crypto, 2),
            "ratio_to_rederive": round(audit_seconds / min(rederives), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--deals", type=int, default=3, help="classic deals to play")
    parser.add_argument("--every-proof", action="store_true",
                        help="audit checking every proof on receipt (as --every-proof)")
    args = parser.parse_args()
    results = [measure("classic", 4, {"deals": args.deals}, every_proof=args.every_proof),
               measure("qdan", 6, {}, every_proof=args.every_proof)]
    if args.json:
        print(json.dumps(results, indent=1))
        return
    for r in results:
        print(f"{r['rules']:8} {r['peers']} peers, {r['hands']} hands ({r['entries']} entries): "
              f"audit {r['audit_seconds_per_hand'] * 1000:.0f} ms/hand; a peer's own deck crypto "
              f"{r['peer_crypto_seconds_per_hand'] * 1000:.0f} ms/hand (ratio "
              f"{r['ratio_to_peer_crypto']}, target <= 1.5); re-deriving the deck inside the "
              f"audit {r['rederive_seconds_per_hand'] * 1000:.0f} ms/hand (audit / that: "
              f"{r['ratio_to_rederive']})")


if __name__ == "__main__":
    main()
