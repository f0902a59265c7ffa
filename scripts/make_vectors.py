#!/usr/bin/env python3
"""Write protocol/vectors/: golden envelopes, a complete small transcript (2 peers, 53 cards) and
the deck's proofs (valid ones, and invalid ones every peer must refuse).

    python scripts/make_vectors.py [--check]

Everything is derived from fixed seeds (Ed25519 signatures are deterministic), so running this
again must reproduce the files byte for byte; ``--check`` fails if it does not.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from p2p_pageone.crypto import group
from p2p_pageone.crypto.deck import DeckSecrets, proof_context
from p2p_pageone.crypto.envelope import extend, genesis, seal
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.crypto.statements import proof_of_key, seal_statement
from p2p_pageone.session.deckdriver import seat_peers
from p2p_pageone.wire.codec import frame, pack

OUT = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
TABLE = bytes(range(16))
DECK = "1/main"


def fixed(name: str) -> bytes:
    return hashlib.sha256(b"pageone test vector " + name.encode()).digest()


def lost_statement() -> bytes:
    """Bob's signed word that he lost the host (alice) of TABLE after 7 entries, for alice,
    whose ``takeover`` case carries it (the bytes only: no fold reads these cases)."""
    return seal_statement(Identity(fixed("bob")), "lost", {
        "table": TABLE, "host": Identity(fixed("alice")).public, "index": 7,
        "head": fixed("head"), "why": "the connection to the host closed; it refused a new one",
        "for": Identity(fixed("alice")).public})


def envelopes() -> dict[str, Any]:
    alice = Identity(fixed("alice"))
    lost = lost_statement()
    cases = [
        ("ready", {}),
        ("say", {"text": "hello"}),
        ("seed_commit", {"commit": fixed("commit")}),
        ("move", {"kind": "play", "positions": [3], "cards": [7], "keys": [fixed("key")],
                  "call": True, "colour": -1, "target": -1}),
        ("head", {"index": 7, "head": fixed("head")}),
        ("away", {"seat": 2, "why": "disconnected", "window": 60}),
        ("back", {"endpoint": "192.0.2.7:40123"}),
        ("takeover", {"seat": 0, "window": 60, "lost": [lost]}),
        ("witness", {"seat": 2, "at": 41, "heard": b""}),
    ]
    rows = []
    for seq, (kind, data) in enumerate(cases):
        raw = seal(alice, TABLE, 1, seq, genesis(TABLE), kind, data)
        rows.append({"seq": seq, "type": kind, "envelope": raw.hex()})
    return {"identity_secret": fixed("alice").hex(), "public": alice.public.hex(),
            "fingerprint": alice.fingerprint, "table": TABLE.hex(), "hand": 1,
            "prev": genesis(TABLE).hex(), "cases": rows,
            "lost": {"identity_secret": fixed("bob").hex(), "statement": lost.hex()}}


def statements() -> dict[str, Any]:
    """One signed statement of each kind (protocol/SPEC.md §7, "Statements")."""
    alice = Identity(fixed("alice"))
    cases = [
        ("proof", {"nonce": fixed("nonce")[:16], "to": Identity(fixed("host")).public,
                   "role": "intro"}),
        ("alive", {"table": TABLE, "index": 42, "head": fixed("head")}),
        ("receipt", {"table": TABLE, "index": 42, "head": fixed("head")}),
        ("lost", {"table": TABLE, "host": Identity(fixed("host")).public, "index": 42,
                  "head": fixed("head"), "why": "the host's connection closed",
                  "for": Identity(fixed("bob")).public}),
    ]
    return {"identity_secret": fixed("alice").hex(), "public": alice.public.hex(),
            "cases": [{"kind": kind, "statement": seal_statement(alice, kind, data).hex()}
                      for kind, data in cases]}


def transcript() -> dict[str, Any]:
    """Two peers: commit, shuffle, lock, deal 4 cards each, one public open, reveal."""
    ids = [Identity(fixed("peer0")), Identity(fixed("peer1"))]
    seeds = [fixed("seed0"), fixed("seed1")]
    contexts = [TABLE + (1).to_bytes(4, "big") + i.public for i in ids]
    peers = seat_peers(seeds, contexts, 53)
    log: list[bytes] = []
    head = genesis(TABLE)
    seqs = [0, 0]

    def send(seat: int, kind: str, data: dict[str, Any]) -> None:
        nonlocal head
        raw = seal(ids[seat], TABLE, 1, seqs[seat], head, kind, data)
        seqs[seat] += 1
        log.append(raw)
        head = extend(head, raw)

    for peer in peers:
        send(peer.seat, "seed_commit", {"commit": peer.commitment})
    for peer in peers:
        peer.start_round(DECK, list(range(53)))
    for _ in range(4):
        for peer in peers:
            result = peer.my_pass(DECK)
            if result:
                step, proven = result
                peers[1 - peer.seat].receive_pass(DECK, step, peer.seat, proven)
                send(peer.seat, step, {"deck": DECK, **proven.fields()})
                break
    hands = {}
    for to in (0, 1):
        positions = [p for p in range(8) if p % 2 == to]
        for sender in peers:
            keys = sender.deal_keys(DECK, positions, to)
            if keys:
                peers[to].receive_keys(DECK, sender.seat, positions, keys)
                send(sender.seat, "keys", {"deck": DECK, "positions": positions, "keys": keys})
        hands[to] = [peers[to].open_own(DECK, p) for p in positions]
    key = peers[0].show_key(DECK, 0)
    peers[1].check_public_open(DECK, 0, 0, key, hands[0][0])
    send(0, "open", {"deck": DECK, "position": 0, "key": key, "card": hands[0][0]})
    for peer in peers:
        send(peer.seat, "seed_reveal", {"seed": peer.reveal_seed()})
    hand_end = {"index": len(log), "head": head}  # every seat signs where the hand ended
    for peer in peers:
        send(peer.seat, "head", dict(hand_end))
    return {"table": TABLE.hex(), "hand": 1, "deck": DECK, "cards": 53,
            "identity_secrets": [fixed("peer0").hex(), fixed("peer1").hex()],
            "contexts": [c.hex() for c in contexts],
            "hands": [hands[0], hands[1]], "final_head": head.hex(),
            "log": [raw.hex() for raw in log]}


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 1]) + data[at + 1 :]


def _off_curve() -> bytes:
    x = 5
    while True:
        candidate = b"\x02" + x.to_bytes(32, "big")
        try:
            group.decode(candidate)
            x += 1
        except group.PointError:
            return candidate


def _hexes(points: list[bytes]) -> list[str]:
    return [p.hex() for p in points]


def proofs() -> dict[str, Any]:
    """One shuffle and one lock pass of 6 cards by one peer, valid, then each tampered."""
    size, seed = 6, fixed("proof-seed")
    context = TABLE + (1).to_bytes(4, "big") + Identity(fixed("peer0")).public
    secrets = DeckSecrets.derive(seed, context, DECK, size)
    cards = [group.decode(x) for x in group.card_points(size)]
    shuffle_ctx = proof_context(context, DECK, "shuffle", 0, 2)
    proven = secrets.prove_shuffle(shuffle_ctx, cards)
    shuffled, shuffle = proven.outputs, proven.sent
    lock_ctx = proof_context(context, DECK, "lock", 0, 2)
    lock = secrets.prove_lock(lock_ctx, shuffled).sent
    other_ctx = proof_context(context, "2/main", "shuffle", 0, 2)
    swapped = [shuffle.points[1], shuffle.points[0], *shuffle.points[2:]]

    def case(why: str, inputs: list[bytes], given: Any, ctx: bytes, valid: bool,
             **change: Any) -> dict[str, Any]:
        fields = {**given.fields(), **change}
        return {"why": why, "valid": valid, "context": ctx.hex(), "inputs": _hexes(inputs),
                "points": _hexes(fields["points"]), "commits": _hexes(fields["commits"]),
                "proof": fields["proof"].hex()}

    start = list(group.card_points(size))
    shuffle_cases = [
        case("honest", start, shuffle, shuffle_ctx, True),
        case("replayed into another deck round", start, shuffle, other_ctx, False),
        case("outputs swapped", start, shuffle, shuffle_ctx, False, points=swapped),
        case("a proof byte flipped", start, shuffle, shuffle_ctx, False,
             proof=_flip(shuffle.proof, 100)),
        case("another commitment", start, shuffle, shuffle_ctx, False,
             commits=[group.encode(group.base(7))]),
        case("a point off the curve", start, shuffle, shuffle_ctx, False,
             points=[_off_curve(), *shuffle.points[1:]]),
        case("a proof for another input list", start[::-1], shuffle, shuffle_ctx, False),
    ]
    lock_cases = [
        case("honest", shuffle.points, lock, lock_ctx, True),
        case("outputs swapped (the peek)", shuffle.points, lock, lock_ctx, False,
             points=[lock.points[1], lock.points[0], *lock.points[2:]]),
        case("a proof byte flipped", shuffle.points, lock, lock_ctx, False,
             proof=_flip(lock.proof, 40)),
        case("lock commitments swapped (the batched G side)", shuffle.points, lock, lock_ctx,
             False, commits=[lock.commits[1], lock.commits[0], *lock.commits[2:]]),
        case("replayed as another peer's pass", shuffle.points, lock,
             proof_context(context, DECK, "lock", 1, 2), False),
    ]
    keys = [{"position": p, "key": group.scalar_bytes(secrets.unlock_key(p)).hex(),
             "valid": True} for p in range(2)]
    keys.append({"position": 2, "key": group.scalar_bytes(secrets.unlock_key(3)).hex(),
                 "valid": False})
    return {"seed": seed.hex(), "peer_context": context.hex(), "deck": DECK,
            "card_points": _hexes(start),
            "generators": [group.encode(h).hex() for h in group.generators(3)],
            "chain_generator": group.encode(group.chain_generator()).hex(),
            "shuffle": shuffle_cases, "lock": lock_cases,
            "round_commit": shuffle.commits[0].hex(), "lock_commits": _hexes(lock.commits),
            "keys": keys}


def challenges() -> dict[str, Any]:
    """A connection's proof of its key, answering a listener's challenge (SPEC §7, Transport):
    the challenge frame, the proof statement and the claiming frame, byte for byte."""
    alice, host = Identity(fixed("alice")), Identity(fixed("host"))
    nonce = fixed("challenge nonce")[:16]
    challenge = frame(pack({"control": "challenge", "nonce": nonce, "from": host.public}))
    cases = []
    for role in ("intro", "watch", "direct"):
        proof = proof_of_key(alice, nonce, host.public, role)
        claim = frame(pack({"control": role, "from": alice.public, "proof": proof}))
        cases.append({"role": role, "proof": proof.hex(), "frame": claim.hex()})
    return {"identity_secret": fixed("alice").hex(), "public": alice.public.hex(),
            "listener_secret": fixed("host").hex(), "listener": host.public.hex(),
            "nonce": nonce.hex(), "challenge": challenge.hex(), "proofs": cases}


def render() -> dict[str, str]:
    return {name: json.dumps(data, indent=1, sort_keys=True) + "\n"
            for name, data in (("envelopes.json", envelopes()),
                               ("transcript.json", transcript()),
                               ("proofs.json", proofs()),
                               ("statements.json", statements()),
                               ("challenges.json", challenges()))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in render().items():
        path = OUT / name
        if args.check:
            if not path.exists() or path.read_text() != text:
                print(f"{path} differs from what the code produces", file=sys.stderr)
                return 1
        else:
            path.write_text(text)
    print("vectors match" if args.check else f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
