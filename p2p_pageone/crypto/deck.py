"""The mental-poker deck: commutative masking on P-256, no trusted dealer (protocol/SPEC.md §5).

Per deck round (the hand's deck, or a reshuffle of public cards), in seat order:

1. shuffle pass: peer j multiplies every point by its shuffle scalar ``s_j`` and permutes;
2. lock pass: peer j multiplies position p by ``s_j⁻¹·l_{j,p}`` (strips its shuffle scalar and
   locks the position with its own per-position scalar, one multiplication per card);
3. opening position p needs every peer's unlock key ``u_{j,p} = l_{j,p}⁻¹``: the others publish
   theirs to deal the card privately to its owner, the owner publishes its own to show it.

Every scalar and permutation comes from the peer's hand seed, committed before the hand and
revealed after it, so the whole round can be recomputed and any peer whose published values do
not match its seed is named (``Cheat``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from . import ec
from .kdf import expand, label, permutation, tagged_hash

MAX_CARDS = 170  # HKDF-Expand gives at most 8160 bytes: 48 per lock scalar


class DeckError(Exception):
    """A deck step that went wrong; ``peer`` is the seat to blame (or -1 if unknown)."""

    def __init__(self, peer: int, message: str) -> None:
        super().__init__(message)
        self.peer = peer


class Violation(DeckError):
    """A received value breaks the protocol on its face (off the curve, wrong count, ...)."""


class Cheat(DeckError):
    """A published value contradicts the peer's revealed seed: evidence of cheating."""


def seed_commitment(seed: bytes, context: bytes) -> bytes:
    """The commitment a peer publishes before the hand (context: table, hand, peer key)."""
    return tagged_hash(label("seed-commit"), context, seed)


@dataclass(frozen=True)
class DeckSecrets:
    """One peer's scalars and permutation for one deck round, all derived from its seed."""

    shuffle_scalar: int
    order: tuple[int, ...]
    locks: tuple[int, ...]

    @classmethod
    def derive(cls, seed: bytes, context: bytes, deck: str, size: int) -> DeckSecrets:
        if not 2 <= size <= MAX_CARDS:
            raise ValueError(f"a deck round holds 2 to {MAX_CARDS} cards")
        info = b"\x00" + context
        scalar = ec.scalar_from(expand(seed, label("shuffle-scalar", deck) + info, 48))
        order = permutation(seed, label("permutation", deck) + info, size)
        data = expand(seed, label("lock", deck) + info, 48 * size)
        locks = tuple(ec.scalar_from(data[48 * i : 48 * i + 48]) for i in range(size))
        return cls(scalar, tuple(order), locks)

    def shuffle(self, points: Sequence[bytes]) -> list[bytes]:
        """Output position i holds input ``order[i]`` times the shuffle scalar."""
        private = ec.key(self.shuffle_scalar)
        mul = ec.mul
        return [mul(points[i], private) for i in self.order]

    def lock(self, points: Sequence[bytes]) -> list[bytes]:
        strip = ec.inverse(self.shuffle_scalar)
        mul, key, n = ec.mul, ec.key, ec.N
        return [mul(x, key(strip * lock % n)) for x, lock in zip(points, self.locks, strict=True)]

    def unlock_key(self, position: int) -> int:
        return ec.inverse(self.locks[position])


def open_point(x: bytes, unlock_keys: Sequence[int]) -> bytes:
    """Remove every lock from a position's point (one multiplication)."""
    combined = 1
    for k in unlock_keys:
        combined = combined * k % ec.N
    return ec.mul(x, ec.key(combined))


@dataclass
class DeckRound:
    """The public record of one deck round: its input and every peer's passes, in seat order."""

    deck: str
    start: list[bytes]
    peers: int
    shuffled: list[list[bytes]] = field(default_factory=list)
    locked: list[list[bytes]] = field(default_factory=list)

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

    def input_for(self, step: str, peer: int) -> list[bytes]:
        if step == "shuffle":
            return self.start if peer == 0 else self.shuffled[peer - 1]
        return self.shuffled[-1] if peer == 0 else self.locked[peer - 1]

    def accept(self, step: str, peer: int, points: list[bytes]) -> None:
        """Record a peer's pass after the checks that need no secret."""
        if self.next_step() != (step, peer):
            raise Violation(peer, f"a {step} pass from peer {peer} out of turn")
        if len(points) != self.size:
            raise Violation(peer, f"a {step} pass must hold {self.size} points")
        if any(len(x) != 32 for x in points):
            raise Violation(peer, f"a {step} pass holds a value that is not a 32-byte point")
        if len(set(points)) != len(points):
            raise Violation(peer, f"peer {peer}'s {step} pass repeats a card")
        (self.shuffled if step == "shuffle" else self.locked).append(points)

    @property
    def final(self) -> list[bytes]:
        return self.locked[-1]

    def verify_peer(self, peer: int, secrets: DeckSecrets) -> None:
        """Recompute a peer's passes from its revealed seed; raise ``Cheat`` on a mismatch."""
        for step, passes in (("shuffle", self.shuffled), ("lock", self.locked)):
            if peer >= len(passes):
                continue
            given = self.input_for(step, peer)
            try:
                expect = secrets.shuffle(given) if step == "shuffle" else secrets.lock(given)
            except ec.PointError:
                raise Violation(peer - 1 if peer else -1, f"a point off the curve before "
                                f"peer {peer}'s {step} pass") from None
            if expect != passes[peer]:
                pairs = zip(expect, passes[peer], strict=True)
                wrong = next(i for i, (a, b) in enumerate(pairs) if a != b)
                raise Cheat(peer, f"peer {peer}'s {step} pass does not match its seed "
                            f"(first at position {wrong}): a card was substituted or duplicated")


def start_points(cards: Sequence[int], deck_size: int) -> list[bytes]:
    """The unmasked points of ``cards`` (the whole deck, or the public cards to reshuffle)."""
    points = ec.card_points(deck_size)
    return [points[c] for c in cards]


def card_at(x: bytes, deck_size: int, blame: int) -> int:
    """The card whose point is ``x``; a point outside the card table is a named violation."""
    card = ec.card_index(deck_size).get(x)
    if card is None:
        raise Violation(blame, "a position did not open to a card: a key or pass was wrong")
    return card
