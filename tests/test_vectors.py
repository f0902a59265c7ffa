"""Golden vectors in protocol/vectors/ keep the code and the spec honest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from p2p_pageone.crypto import group, proofs
from p2p_pageone.crypto.deck import Pass
from p2p_pageone.crypto.envelope import ChainVerifier, genesis, open_envelope, seal
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.crypto.statements import (
    check_proof,
    open_statement,
    proof_of_key,
    seal_statement,
)
from p2p_pageone.session.deckdriver import HandPeer
from p2p_pageone.session.links import answer_challenge, claim_refusal
from p2p_pageone.wire.codec import unpack

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "protocol" / "vectors"


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VECTORS / name).read_text())
    return data


def test_envelope_vectors_decode_and_reencode_byte_for_byte() -> None:
    data = load("envelopes.json")
    alice = Identity(bytes.fromhex(data["identity_secret"]))
    assert alice.public.hex() == data["public"] and alice.fingerprint == data["fingerprint"]
    table = bytes.fromhex(data["table"])
    assert genesis(table).hex() == data["prev"]
    for case in data["cases"]:
        raw = bytes.fromhex(case["envelope"])
        env = open_envelope(raw)
        assert (env.kind, env.seq, env.hand, env.sender) == (case["type"], case["seq"], 1,
                                                             alice.public)
        assert seal(alice, table, 1, env.seq, env.prev, env.kind, env.data) == raw


def test_lost_statement_vector_opens_and_reseals_byte_for_byte() -> None:
    data = load("envelopes.json")
    bob = Identity(bytes.fromhex(data["lost"]["identity_secret"]))
    raw = bytes.fromhex(data["lost"]["statement"])
    statement = open_statement(raw, "lost")
    assert statement.sender == bob.public and statement.data["index"] == 7
    assert statement.data["host"].hex() == data["public"] == statement.data["for"].hex()
    assert seal_statement(bob, "lost", statement.data) == raw
    takeover = next(case for case in data["cases"] if case["type"] == "takeover")
    assert open_envelope(bytes.fromhex(takeover["envelope"])).data["lost"] == [raw]


def test_transcript_replays_through_chain_and_deck() -> None:
    data = load("transcript.json")
    table = bytes.fromhex(data["table"])
    ids = [Identity(bytes.fromhex(s)) for s in data["identity_secrets"]]
    chain = ChainVerifier(table, [i.public for i in ids])
    chain.start_hand(1)
    envs = [chain.accept(bytes.fromhex(raw)) for raw in data["log"]]
    assert chain.head.hex() == data["final_head"]
    seat_of = {i.public: n for n, i in enumerate(ids)}
    seeds = {seat_of[e.sender]: e.data["seed"] for e in envs if e.kind == "seed_reveal"}
    contexts = [bytes.fromhex(c) for c in data["contexts"]]
    auditor = HandPeer(0, seeds[0], contexts, data["cards"])
    deck = data["deck"]
    for env in envs:
        seat = seat_of[env.sender]
        if env.kind == "seed_commit":
            auditor.record_commitment(seat, env.data["commit"])
    auditor.start_round(deck, list(range(data["cards"])))
    for env in envs:
        seat = seat_of[env.sender]
        if env.kind in ("shuffle", "lock"):
            auditor.receive_pass(deck, env.kind, seat, Pass.from_fields(env.data))
        elif env.kind == "keys":
            auditor.receive_keys(deck, seat, env.data["positions"], env.data["keys"])
    for seat, seed in seeds.items():
        auditor.verify_reveal(seat, seed)
    cards = auditor.all_cards(deck, seeds)
    assert [cards[p] for p in (0, 2, 4, 6)] == data["hands"][0]
    assert [cards[p] for p in (1, 3, 5, 7)] == data["hands"][1]


def test_vectors_are_what_the_code_produces() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_vectors.py"), "--check"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def _verify(kind: str, case: dict[str, Any]) -> None:
    """Decode every value as a receiver does, then verify; any refusal is a ``ValueError``."""
    def points(name: str) -> list[group.Point]:
        return [group.decode(bytes.fromhex(x)) for x in case[name]]

    context, proof = bytes.fromhex(case["context"]), bytes.fromhex(case["proof"])
    if kind == "shuffle":
        commit = points("commits")[0]
        proofs.verify_shuffle(context, points("inputs"), points("points"), commit, proof)
    else:
        proofs.verify_lock(context, points("inputs"), points("points"), points("commits"), proof)


@pytest.mark.parametrize("kind", ["shuffle", "lock"])
def test_proof_vectors_valid_and_refused(kind: str) -> None:
    data = load("proofs.json")
    assert data["card_points"] == [x.hex() for x in group.card_points(len(data["card_points"]))]
    assert data["generators"] == [group.encode(h).hex() for h in group.generators(3)]
    for case in data[kind]:
        if case["valid"]:
            _verify(kind, case)
        else:
            with pytest.raises(ValueError):  # ProofError or PointError, both ValueErrors
                _verify(kind, case)


def test_key_vectors() -> None:
    data = load("proofs.json")
    commits = [group.decode(bytes.fromhex(x)) for x in data["lock_commits"]]
    round_commit = group.decode(bytes.fromhex(data["round_commit"]))
    for case in data["keys"]:
        key = group.scalar_of(bytes.fromhex(case["key"]))
        assert proofs.check_key(key, commits[case["position"]], round_commit) == case["valid"]


def test_statement_vectors_open_and_reseal_byte_for_byte() -> None:
    data = load("statements.json")
    alice = Identity(bytes.fromhex(data["identity_secret"]))
    for case in data["cases"]:
        raw = bytes.fromhex(case["statement"])
        statement = open_statement(raw, case["kind"])
        assert statement.sender == alice.public
        assert seal_statement(alice, case["kind"], statement.data) == raw


def test_proof_of_key_vectors() -> None:
    """The answer to a listener's challenge, byte for byte: each role's proof checks out for
    its own role only, and the claiming frame is what a pageone sends."""
    data = load("challenges.json")
    alice = Identity(bytes.fromhex(data["identity_secret"]))
    host = Identity(bytes.fromhex(data["listener_secret"]))
    nonce = bytes.fromhex(data["nonce"])
    assert (alice.public.hex(), host.public.hex()) == (data["public"], data["listener"])
    challenge = unpack(bytes.fromhex(data["challenge"])[4:])
    assert challenge == {"control": "challenge", "nonce": nonce, "from": host.public}
    for case in data["proofs"]:
        proof, role = bytes.fromhex(case["proof"]), case["role"]
        assert proof_of_key(alice, nonce, host.public, role) == proof
        assert check_proof(proof, alice.public, nonce, host.public, role) is None
        assert check_proof(proof, alice.public, nonce, host.public, "lost") is not None
        claim = answer_challenge(challenge, alice, {"control": role}, host.public)
        assert claim.hex() == case["frame"]
        assert claim_refusal(unpack(claim[4:]), nonce, host.public) is None
