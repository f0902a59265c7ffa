"""Fiat–Shamir transcripts and deterministic prover nonces (protocol/SPEC.md §5.4).

A transcript is SHA-256 over a label and then every absorbed item as ``len16(name)‖name‖
len32(value)‖value``, so no two sequences of items share an encoding. Challenges are drawn from
SHAKE-256 over the running digest: 48 bytes per challenge, reduced into [1, N-1] (bias below
2^-128). Absorbing after a challenge chains on, so later challenges depend on earlier ones.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable

from . import group
from .kdf import label

SHORT_MASK = (1 << 68) - 1


class Transcript:
    def __init__(self, proof: str) -> None:
        self._hash = hashlib.sha256()
        self.absorb("label", label("proof", proof))

    def absorb(self, name: str, value: bytes) -> None:
        tag = name.encode()
        self._hash.update(len(tag).to_bytes(2, "big") + tag + len(value).to_bytes(4, "big"))
        self._hash.update(value)

    def absorb_points(self, name: str, points: Iterable[bytes]) -> None:
        """A list of encoded points, with its length (every point is 33 bytes)."""
        items = list(points)
        self.absorb(name, len(items).to_bytes(4, "big") + b"".join(items))

    def digest(self) -> bytes:
        return self._hash.copy().digest()

    def challenges(self, name: str, count: int) -> list[int]:
        """``count`` challenges in [1, N-1]; the transcript then absorbs their name."""
        data = hashlib.shake_256(self.digest() + name.encode()).digest(48 * count)
        self.absorb("challenge", name.encode())
        return [group.scalar_from(data[48 * i : 48 * i + 48]) for i in range(count)]

    def challenge(self, name: str) -> int:
        return self.challenges(name, 1)[0]

    def short_challenges(self, name: str, count: int) -> list[int]:
        """``count`` challenges from a set of 2^136 scalars that multiply a point in about half
        the time of a full one: ``a + b·λ`` with ``a`` in [1, 2^68] and ``b`` in [0, 2^68), λ
        the curve's cube root of unity (SPEC §5.4). libsecp256k1 splits every scalar k as
        ``k₁ + k₂·λ`` and doubles as often as the longer half has bits: 69 here, not 128.
        Distinct (a, b) give distinct scalars: the lattice of pairs with ``a + b·λ = 0`` has no
        nonzero vector shorter than 2^127 (its shortest is 2^127.87 long)."""
        data = hashlib.shake_256(self.digest() + name.encode()).digest(17 * count)
        self.absorb("challenge", name.encode())
        out = []
        for i in range(count):
            x = int.from_bytes(data[17 * i : 17 * i + 17], "big")
            out.append(((x & SHORT_MASK) + 1 + (x >> 68) * group.LAMBDA) % group.N)
        return out

    def short_challenge(self, name: str) -> int:
        return self.short_challenges(name, 1)[0]


NONCE_DOMAIN = b"pageone/v3/nonce"  # a new protocol version's challenges get new nonces


def nonces(key: bytes, statement: bytes, count: int) -> list[int]:
    """A prover's secret nonces, derived like RFC 6979 from its secret ``key`` and the digest of
    everything the proof is about, so a nonce never serves two different challenges."""
    seed = hmac.new(key, NONCE_DOMAIN + statement, hashlib.sha256).digest()
    data = hashlib.shake_256(seed).digest(48 * count)
    return [group.scalar_from(data[48 * i : 48 * i + 48]) for i in range(count)]
