"""The proven mental-poker deck on secp256k1, no trusted dealer (protocol/SPEC.md §5).

Per deck round (the hand's deck, or a reshuffle of public cards), in seat order:

1. shuffle pass: peer j multiplies every point by its shuffle scalar ``s_j`` and permutes; it
   publishes ``W_j = s_j⁻¹·G`` and a proof of the shuffle;
2. lock pass: peer j multiplies position p by ``t_{j,p} = s_j⁻¹·l_{j,p}`` (strips its shuffle
   scalar and locks the position), publishes ``T_{j,p} = t_{j,p}·G`` and a proof per position;
3. opening position p needs every peer's unlock key ``u_{j,p} = l_{j,p}⁻¹``, checked on receipt
   by ``u_{j,p}·T_{j,p} = W_j``.

Every pass is verified when it is received, before anything else uses it, so a peer that
deviates is named at once (``Violation``). Scalars, permutations and proof nonces come from the
peer's hand seed, committed before the hand and revealed after it; the reveal recomputes every
value (``Cheat`` on a mismatch) so the whole hand can be re-derived from the log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from . import group, proofs
from .group import Point, PointError
from .kdf import expand, label, permutation, tagged_hash

MAX_CARDS = 170  # HKDF-Expand gives at most 8160 bytes: 48 per lock scalar


class DeckError(Exception):
    """A deck step that went wrong; ``peer`` is the seat to blame (or -1 if unknown)."""

    def __init__(self, peer: int, message: str) -> None:
        super().__init__(message)
        self.peer = peer


class Violation(DeckError):
    """A received value breaks the protocol: malformed, or its proof or key check fails."""


class Cheat(DeckError):
    """A published value contradicts the peer's revealed seed: evidence of cheating."""


def seed_commitment(seed: bytes, context: bytes) -> bytes:
    """The commitment a peer publishes before the hand (context: table, hand, peer key)."""
    return tagged_hash(label("seed-commit"), context, seed)


def proof_context(context: bytes, deck: str, step: str, peer: int, peers: int) -> bytes:
    """What a proof is bound to besides its lists: table, hand and author (``context``), the
    deck round, the step and the author's place in the round."""
    return tagged_hash(label("proof-context"), context, deck.encode(), step.encode(),
                       peer.to_bytes(1, "big"), peers.to_bytes(1, "big"))


@dataclass(frozen=True)
class Pass:
    """One peer's shuffle or lock pass as it travels: output points, commitments (``[W]`` for a
    shuffle, ``[T_0 … T_{n-1}]`` for a lock) and the proof."""

    points: list[bytes]
    commits: list[bytes]
    proof: bytes

    def fields(self) -> dict[str, Any]:
        return {"points": self.points, "commits": self.commits, "proof": self.proof}

    @classmethod
    def from_fields(cls, data: Mapping[str, Any]) -> Pass:
        return cls(list(data["points"]), list(data["commits"]), bytes(data["proof"]))


@dataclass(frozen=True)
class Proven:
    """A pass this peer made: what it sends, and the decoded points behind it."""

    sent: Pass
    outputs: list[Point]
    commits: list[Point]


@dataclass(frozen=True)
class DeckSecrets:
    """One peer's scalars and permutation for one deck round, all derived from its seed."""

    shuffle_scalar: int
    order: tuple[int, ...]
    locks: tuple[int, ...]
    nonce_key: bytes

    @classmethod
    def derive(cls, seed: bytes, context: bytes, deck: str, size: int) -> DeckSecrets:
        if not 1 <= size <= MAX_CARDS:
            raise ValueError(f"a deck round holds 1 to {MAX_CARDS} cards")
        info = b"\x00" + context
        scalar = group.scalar_from(expand(seed, label("shuffle-scalar", deck) + info, 48))
        order = permutation(seed, label("permutation", deck) + info, size)
        data = expand(seed, label("lock", deck) + info, 48 * size)
        locks = tuple(group.scalar_from(data[48 * i : 48 * i + 48]) for i in range(size))
        nonce_key = expand(seed, label("proof-nonce", deck) + info, 32)
        return cls(scalar, tuple(order), locks, nonce_key)

    @cached_property
    def round_commit(self) -> Point:
        """``W = s⁻¹·G``: binds the shuffle scalar, and through it every unlock key."""
        return group.base(group.inverse(self.shuffle_scalar))

    @cached_property
    def _lock_scalars(self) -> tuple[int, ...]:
        strip = group.inverse(self.shuffle_scalar)
        return tuple(strip * lock % group.N for lock in self.locks)

    @cached_property
    def _unlock_keys(self) -> tuple[int, ...]:
        return tuple(group.inverses(self.locks))

    def lock_scalars(self) -> list[int]:
        return list(self._lock_scalars)

    def shuffle(self, points: Sequence[Point]) -> list[Point]:
        """Output position i holds input ``order[i]`` times the shuffle scalar."""
        k = self.shuffle_scalar
        return group.mul_each([points[i] for i in self.order], [k] * len(self.order))

    def lock(self, points: Sequence[Point]) -> list[Point]:
        return group.mul_each(points, self.lock_scalars())

    def lock_commits(self) -> list[Point]:
        return group.base_each(self.lock_scalars())

    def prove_shuffle(self, context: bytes, inputs: Sequence[Point]) -> Proven:
        outputs, commit = self.shuffle(inputs), self.round_commit
        proof = proofs.prove_shuffle(context, inputs, outputs, commit, self.order,
                                     self.shuffle_scalar, self.nonce_key)
        return Proven(Pass(_encode(outputs), [group.encode(commit)], proof), outputs, [commit])

    def prove_lock(self, context: bytes, inputs: Sequence[Point]) -> Proven:
        outputs, commits = self.lock(inputs), self.lock_commits()
        proof = proofs.prove_lock(context, inputs, outputs, commits, self.lock_scalars(),
                                  self.nonce_key)
        return Proven(Pass(_encode(outputs), _encode(commits), proof), outputs, commits)

    def unlock_key(self, position: int) -> int:
        return self._unlock_keys[position]


def _encode(points: Sequence[Point]) -> list[bytes]:
    return [group.encode(p) for p in points]


def _combined(unlock_keys: Sequence[int]) -> int:
    combined = 1
    for k in unlock_keys:
        combined = combined * k % group.N
    return combined


def open_point(point: Point | bytes, unlock_keys: Sequence[int]) -> bytes:
    """Remove every lock from a position's point (one multiplication); the encoded result."""
    if isinstance(point, bytes):
        point = group.decode(point)
    return group.encode(group.mul(point, _combined(unlock_keys)))


def open_points(points: Sequence[Point], unlock_keys: Sequence[Sequence[int]]) -> list[bytes]:
    """``open_point`` for many positions at once (one batch of multiplications)."""
    opened = group.mul_each(points, [_combined(keys) for keys in unlock_keys])
    return [group.encode(p) for p in opened]


@dataclass
class DeckRound:
    """The public record of one deck round: its input and every peer's verified passes."""

    deck: str
    start: list[bytes]
    peers: int
    contexts: list[bytes]  # each peer's context (table id, hand, public key), in deck order
    shuffled: list[list[bytes]] = field(default_factory=list)
    locked: list[list[bytes]] = field(default_factory=list)
    round_commits: list[Point] = field(default_factory=list)  # W_j
    lock_commits: list[list[Point]] = field(default_factory=list)  # T_{j,p}
    _points: dict[tuple[str, int], list[Point]] = field(default_factory=dict)
    _vouched: dict[tuple[str, int], tuple[Pass, list[Point], list[Point]]] = field(
        default_factory=dict)

    def __post_init__(self) -> None:
        self._points[("start", 0)] = [group.decode(x) for x in self.start]

    @property
    def size(self) -> int:
        return len(self.start)

    def next_step(self) -> tuple[str, int]:
        """``("shuffle", peer)``, ``("lock", peer)`` or ``("done", -1)``."""
        if len(self.shuffled) < self.peers:
            return "shuffle", len(self.shuffled)
        if len(self.locked) < self.peers:
            return "lock", len(self.locked)
        return "done", -1

    def input_for(self, step: str, peer: int) -> list[Point]:
        """The decoded points a peer's pass takes as input."""
        if step == "shuffle":
            key = ("start", 0) if peer == 0 else ("shuffle", peer - 1)
        else:
            key = ("shuffle", self.peers - 1) if peer == 0 else ("lock", peer - 1)
        return self._points[key]

    def check(self, step: str, peer: int, given: Pass,
              verify_proof: bool = True) -> tuple[list[Point], list[Point]]:
        """Every check of a received pass (turn, shape, points, proof) without recording it;
        the decoded points and commitments. A pass that passed is remembered, so ``accept`` of
        the very same pass does not verify it again. ``verify_proof=False`` leaves the proof to
        ``verify_recorded`` (the audit, where the seed reveal may establish its statement)."""
        vouched = self._vouched.get((step, peer))
        if vouched is not None and vouched[0] == given:
            return vouched[1], vouched[2]
        if self.next_step() != (step, peer):
            raise Violation(peer, f"a {step} pass from peer {peer} out of turn")
        if len(given.points) != self.size:
            raise Violation(peer, f"peer {peer}'s {step} pass must hold {self.size} points")
        if len(set(given.points)) != len(given.points):
            raise Violation(peer, f"peer {peer}'s {step} pass repeats a point")
        commits_wanted = 1 if step == "shuffle" else self.size
        if len(given.commits) != commits_wanted:
            raise Violation(peer, f"peer {peer}'s {step} pass must carry {commits_wanted} "
                            "commitments")
        try:
            points = [group.decode(x) for x in given.points]
            commits = [group.decode(x) for x in given.commits]
        except PointError as error:
            raise Violation(peer, f"peer {peer}'s {step} pass holds a bad point: "
                            f"{error}") from None
        if not verify_proof:
            return points, commits
        self._verify(step, peer, points, commits, given.proof)
        self.vouch(step, peer, given, points, commits)
        return points, commits

    def vouch(self, step: str, peer: int, given: Pass, points: list[Point],
              commits: list[Point]) -> None:
        """Remember a pass known to be right (checked, or this peer's own)."""
        self._vouched[(step, peer)] = (given, points, commits)

    def accept(self, step: str, peer: int, given: Pass, verify_proof: bool = True) -> None:
        """Record a peer's pass once every check passes; a ``Violation`` names its author."""
        if self.next_step() != (step, peer):
            raise Violation(peer, f"a {step} pass from peer {peer} out of turn")
        points, commits = self.check(step, peer, given, verify_proof)
        self._vouched.pop((step, peer), None)
        self._points[(step, peer)] = points
        if step == "shuffle":
            self.shuffled.append(given.points)
            self.round_commits.append(commits[0])
        else:
            self.locked.append(given.points)
            self.lock_commits.append(commits)

    def _verify(self, step: str, peer: int, points: list[Point], commits: list[Point],
                proof: bytes) -> None:
        inputs, context = self.input_for(step, peer), self.proof_context(step, peer)
        try:
            if step == "shuffle":
                proofs.verify_shuffle(context, inputs, points, commits[0], proof)
            else:
                proofs.verify_lock(context, inputs, points, commits, proof)
        except proofs.ProofError as error:
            raise Violation(peer, f"peer {peer}'s {step} pass is refused: {error}") from None

    def verify_recorded(self, step: str, peer: int, proof: bytes) -> None:
        """The proof of a pass ``accept`` recorded without verifying it; a ``Violation``."""
        commits = [self.round_commits[peer]] if step == "shuffle" else self.lock_commits[peer]
        self._verify(step, peer, self._points[(step, peer)], commits, proof)

    def proof_context(self, step: str, peer: int) -> bytes:
        return proof_context(self.contexts[peer], self.deck, step, peer, self.peers)

    @property
    def final(self) -> list[bytes]:
        return self.locked[-1]

    def final_point(self, position: int) -> Point:
        return self._points[("lock", self.peers - 1)][position]

    def check_key(self, peer: int, position: int, key: int) -> bool:
        return proofs.check_key(key, self.lock_commits[peer][position], self.round_commits[peer])

    def verify_peer(self, peer: int, secrets: DeckSecrets) -> None:
        """Recompute a peer's passes from its revealed seed; raise ``Cheat`` on a mismatch."""
        for step, passes in (("shuffle", self.shuffled), ("lock", self.locked)):
            if peer >= len(passes):
                continue
            given = self.input_for(step, peer)
            expect = _encode(secrets.shuffle(given) if step == "shuffle" else secrets.lock(given))
            if expect != passes[peer]:
                pairs = zip(expect, passes[peer], strict=True)
                wrong = next(i for i, (a, b) in enumerate(pairs) if a != b)
                raise Cheat(peer, f"peer {peer}'s {step} pass does not match its seed "
                            f"(first at position {wrong})")
        self.check_round_commit(peer, secrets)

    def check_round_commit(self, peer: int, secrets: DeckSecrets) -> None:
        """A peer's logged ``W`` against its seed (one generator multiplication)."""
        if peer < len(self.round_commits) and secrets.round_commit != self.round_commits[peer]:
            raise Cheat(peer, f"peer {peer}'s shuffle commitment does not match its seed")

    def check_lock_commits(self, peer: int, secrets: DeckSecrets) -> None:
        """A peer's logged ``T_p`` against its seed (a generator multiplication a position)."""
        if peer < len(self.lock_commits) and self.lock_commits[peer] != secrets.lock_commits():
            raise Cheat(peer, f"peer {peer}'s lock commitments in deck {self.deck} do not match "
                        "its seed")


def start_points(cards: Sequence[int], deck_size: int) -> list[bytes]:
    """The unmasked points of ``cards`` (the whole deck, or the public cards to reshuffle)."""
    points = group.card_points(deck_size)
    return [points[c] for c in cards]


def card_at(x: bytes, deck_size: int, blame: int) -> int:
    """The card whose point is ``x``; a point outside the card table is a named violation."""
    card = group.card_index(deck_size).get(x)
    if card is None:
        raise Violation(blame, "a position did not open to a card: a key or pass was wrong")
    return card
