"""P-256 arithmetic through ``cryptography``: x-only points, scalar multiplication via ECDH.

A point travels as its 32-byte x-coordinate. ``x(k·P) = x(k·(−P))``, so decompressing with either
y gives the same answer, and multiplication is ECDH with a private key made from ``k``. The group
has prime order ``N``, so masking scalars commute and invert modulo ``N``.
"""

from __future__ import annotations

from functools import lru_cache

from cryptography.hazmat.primitives.asymmetric import ec

from .kdf import label, tagged_hash

CURVE = ec.SECP256R1()
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
_ECDH = ec.ECDH()
_from_point = ec.EllipticCurvePublicKey.from_encoded_point


class PointError(ValueError):
    """Bytes that are not the x-coordinate of a point on P-256."""


def decode(x: bytes) -> ec.EllipticCurvePublicKey:
    if len(x) != 32:
        raise PointError("a point is 32 bytes")
    try:
        return _from_point(CURVE, b"\x02" + x)
    except ValueError:
        raise PointError("not a point on P-256") from None


def key(scalar: int) -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(scalar, CURVE)


def mul(x: bytes, private: ec.EllipticCurvePrivateKey) -> bytes:
    """x(k·P) for the point with x-coordinate ``x``."""
    return private.exchange(_ECDH, decode(x))


def scalar_from(data: bytes) -> int:
    """A scalar in [1, N-1] from at least 48 uniform bytes (bias below 2^-128)."""
    return int.from_bytes(data, "big") % (N - 1) + 1


def inverse(scalar: int) -> int:
    return pow(scalar, -1, N)


def scalar_bytes(scalar: int) -> bytes:
    return scalar.to_bytes(32, "big")


def scalar_of(data: bytes) -> int:
    value = int.from_bytes(data, "big")
    if len(data) != 32 or not 0 < value < N:
        raise PointError("a key is a 32-byte scalar between 1 and the group order")
    return value


@lru_cache(maxsize=4)
def card_points(size: int) -> tuple[bytes, ...]:
    """Card ``i``'s point: a hash of ``pageone/v1/card/i`` to the curve by try-and-increment.

    Nobody knows the discrete logarithm of any card point relative to another or to G, which
    is what keeps a shuffle pass's permutation secret.
    """
    points = []
    for card in range(size):
        counter = 0
        while True:
            x = int.from_bytes(tagged_hash(label("card", card), counter.to_bytes(4, "big")), "big")
            candidate = (x % P).to_bytes(32, "big")
            try:
                decode(candidate)
            except PointError:
                counter += 1
                continue
            points.append(candidate)
            break
    return tuple(points)


@lru_cache(maxsize=4)
def card_index(size: int) -> dict[bytes, int]:
    return {x: i for i, x in enumerate(card_points(size))}
