"""secp256k1 through coincurve (libsecp256k1): the prime-order group of the proven deck.

A point travels as its 33-byte SEC1 compressed encoding (``0x02``/``0x03`` ‖ x). ``decode`` is
the one way a received value becomes a point: it checks the length, the prefix and that x is on
the curve; the identity has no compressed encoding, so it is refused too. Scalars are ints in
``[1, N-1]``; multiplying by 0 is never needed and is refused rather than silently giving the
identity.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from coincurve import PublicKey

from .kdf import label, tagged_hash

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141  # group order
P = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F  # field prime
POINT_SIZE = 33

Point = PublicKey


class PointError(ValueError):
    """A value that is not a valid non-identity point (or scalar) of secp256k1."""


def decode(data: bytes) -> Point:
    """A received point, validated: 33 bytes, compressed prefix, x on the curve."""
    if type(data) is not bytes or len(data) != POINT_SIZE or data[0] not in (2, 3):
        raise PointError("a point is 33 bytes: 0x02 or 0x03 and an x-coordinate")
    try:
        return PublicKey(data)
    except ValueError:
        raise PointError("not a point on secp256k1") from None


def encode(point: Point) -> bytes:
    return point.format(compressed=True)


def _scalar32(k: int) -> bytes:
    if not 0 < k < N:
        raise PointError("a scalar must lie between 1 and the group order")
    return k.to_bytes(32, "big")


def mul(point: Point, k: int) -> Point:
    """k·P (constant time in k)."""
    return point.multiply(_scalar32(k))


def base(k: int) -> Point:
    """k·G."""
    return PublicKey.from_secret(_scalar32(k))


def mul_add_base(point: Point, k: int, z: int) -> Point:
    """k·P + z·G (the shape of every Schnorr-style verification equation)."""
    try:
        return point.multiply(_scalar32(k)).add(_scalar32(z))
    except ValueError:
        raise PointError("the result is the identity") from None


def add_base(point: Point, z: int) -> Point:
    """P + z·G."""
    try:
        return point.add(_scalar32(z))
    except ValueError:
        raise PointError("the result is the identity") from None


def negate(point: Point) -> Point:
    """−P: the same x with the other y (no multiplication)."""
    data = bytearray(encode(point))
    data[0] ^= 1
    return PublicKey(bytes(data))


def add(points: Sequence[Point]) -> Point:
    """The sum of points; a sum that is the identity is an error (never honest)."""
    try:
        return PublicKey.combine_keys(list(points))
    except ValueError:
        raise PointError("the sum of the points is the identity") from None


def lincomb(scalars: Sequence[int], points: Sequence[Point]) -> Point:
    """Σ kᵢ·Pᵢ, skipping zero scalars."""
    terms = [p.multiply(_scalar32(k % N)) for k, p in zip(scalars, points, strict=True) if k % N]
    if not terms:
        raise PointError("the sum of the points is the identity")
    return add(terms)


def scalar_from(data: bytes) -> int:
    """A scalar in [1, N-1] from at least 48 uniform bytes (bias below 2^-128)."""
    return int.from_bytes(data, "big") % (N - 1) + 1


def inverse(k: int) -> int:
    return pow(k, -1, N)


def scalar_bytes(k: int) -> bytes:
    return k.to_bytes(32, "big")


def scalar_of(data: bytes) -> int:
    """A received scalar (a key or a proof response): 32 bytes, between 1 and N-1."""
    value = int.from_bytes(data, "big")
    if type(data) is not bytes or len(data) != 32 or not 0 < value < N:
        raise PointError("a scalar is 32 bytes, between 1 and the group order")
    return value


def hash_to_point(tag: bytes) -> bytes:
    """A point nobody knows a logarithm of: try-and-increment over SHA-256 (SPEC §5).

    The first counter ``c`` for which ``x = H(tag; c)`` is below ``P`` and is the x-coordinate
    of a curve point gives the point with even y. Only public labels are hashed, so the
    variable running time leaks nothing.
    """
    counter = 0
    while True:
        x = tagged_hash(tag, counter.to_bytes(4, "big"))
        counter += 1
        if int.from_bytes(x, "big") >= P:
            continue
        try:
            return encode(decode(b"\x02" + x))
        except PointError:
            continue


@lru_cache(maxsize=4)
def card_points(size: int) -> tuple[bytes, ...]:
    """Card ``i``'s point: ``hash_to_point("pageone/v1/card/i")``."""
    return tuple(hash_to_point(label("card", card)) for card in range(size))


@lru_cache(maxsize=4)
def card_index(size: int) -> dict[bytes, int]:
    return {x: i for i, x in enumerate(card_points(size))}


MAX_GENERATORS = 171


@lru_cache(maxsize=1)
def _generators() -> tuple[Point, ...]:
    return tuple(decode(hash_to_point(label("generator", i))) for i in range(MAX_GENERATORS))


def generators(count: int) -> tuple[Point, ...]:
    """Independent Pedersen generators ``h_0 … h_{count-1}`` (``pageone/v1/generator/i``)."""
    if count > MAX_GENERATORS:
        raise ValueError(f"at most {MAX_GENERATORS} generators")
    return _generators()[:count]


@lru_cache(maxsize=1)
def chain_generator() -> Point:
    """The base of the shuffle proof's product chain (``pageone/v1/generator/chain``)."""
    return decode(hash_to_point(label("generator", "chain")))


@lru_cache(maxsize=4)
def generator_sum(count: int) -> Point:
    """``h_0 + … + h_{count-1}``, which the shuffle proof subtracts."""
    return add(generators(count))


G = base(1)
