"""secp256k1 through coincurve (libsecp256k1): the prime-order group of the proven deck.

A point travels as its 33-byte SEC1 compressed encoding (``0x02``/``0x03`` ‖ x). ``decode`` is
the one way a received value becomes a point: it checks the length, the prefix and that x is on
the curve; the identity has no compressed encoding, so it is refused too. Scalars are ints in
``[1, N-1]``; multiplying by 0 is never needed and is refused rather than silently giving the
identity.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from coincurve._libsecp256k1 import ffi, lib  # type: ignore[import-not-found]
from coincurve.context import GLOBAL_CONTEXT

from .kdf import label, tagged_hash

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141  # group order
P = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F  # field prime
POINT_SIZE = 33
LAMBDA = 0x5363AD4CC05C30E0A5261C028812645A122E22EA20816678DF02967C1B23BD72  # λ³ = 1 mod N

_CTX = GLOBAL_CONTEXT.ctx
_COMPRESSED = lib.SECP256K1_EC_COMPRESSED


class PointError(ValueError):
    """A value that is not a valid non-identity point (or scalar) of secp256k1."""


class Point:
    """A non-identity point: libsecp256k1's parsed form, and its encoding once computed.

    Calling libsecp256k1 directly (not through coincurve's ``PublicKey`` wrapper) and keeping
    the encoding of every received point saves re-serialising points for the transcripts; the
    multiplications themselves are libsecp256k1's."""

    __slots__ = ("_encoded", "raw")

    def __init__(self, raw: Any, encoded: bytes | None = None) -> None:
        self.raw = raw
        self._encoded = encoded

    def encode(self) -> bytes:
        if self._encoded is None:
            out = ffi.new("unsigned char[33]")
            size = ffi.new("size_t *", POINT_SIZE)
            lib.secp256k1_ec_pubkey_serialize(_CTX, out, size, self.raw, _COMPRESSED)
            self._encoded = bytes(ffi.buffer(out, POINT_SIZE))
        return self._encoded

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Point) and self.encode() == other.encode()

    def __hash__(self) -> int:
        return hash(self.encode())

    def __repr__(self) -> str:
        return f"Point({self.encode().hex()})"


def decode(data: bytes) -> Point:
    """A received point, validated: 33 bytes, compressed prefix, x on the curve."""
    if type(data) is not bytes or len(data) != POINT_SIZE or data[0] not in (2, 3):
        raise PointError("a point is 33 bytes: 0x02 or 0x03 and an x-coordinate")
    raw = ffi.new("secp256k1_pubkey *")
    if not lib.secp256k1_ec_pubkey_parse(_CTX, raw, data, POINT_SIZE):
        raise PointError("not a point on secp256k1")
    return Point(raw, data)  # a compressed encoding is canonical: x < P is checked


def encode(point: Point) -> bytes:
    return point.encode()


def encode_negated(point: Point) -> bytes:
    """The encoding of −P: the same x, the other y parity."""
    data = point.encode()
    return bytes([data[0] ^ 1]) + data[1:]


def _scalar32(k: int) -> bytes:
    if not 0 < k < N:
        raise PointError("a scalar must lie between 1 and the group order")
    return k.to_bytes(32, "big")


_new = ffi.new
_tweak_mul = lib.secp256k1_ec_pubkey_tweak_mul


def mul(point: Point, k: int) -> Point:
    """k·P (the hottest path of the deck: written out, no helper calls)."""
    if not 0 < k < N:
        raise PointError("a scalar must lie between 1 and the group order")
    raw = _new("secp256k1_pubkey *", point.raw[0])
    _tweak_mul(_CTX, raw, k.to_bytes(32, "big"))
    return Point(raw)


# Many independent multiplications go to the compiled batch multiplier (``_batch.c``, built at
# install) when it is there: one call runs them all on every core with Python's lock released
# (Python threads cannot: each call re-takes the lock, and the hand-offs eat the gain).
try:
    from . import _batch
except ImportError:  # installed without a C compiler, or PAGEONE_PURE_PYTHON
    _batch = None  # type: ignore[assignment]

_TWEAK_MUL = int(ffi.cast("uintptr_t", ffi.addressof(lib, "secp256k1_ec_pubkey_tweak_mul")))
_CREATE = int(ffi.cast("uintptr_t", ffi.addressof(lib, "secp256k1_ec_pubkey_create")))
_CTX_ADDRESS = int(ffi.cast("uintptr_t", _CTX))
_THREADS = [max(1, min(4, len(os.sched_getaffinity(0))))]
_BATCH_AT = 8  # below this, one call a multiplication is as fast


def set_threads(count: int) -> int:
    """How many threads a batch of multiplications uses (default: one per core, at most 4);
    the previous count. 0 turns the batch multiplier off (one Python call a multiplication)."""
    if count < 0:
        raise ValueError("the number of threads cannot be negative")
    previous, _THREADS[0] = _THREADS[0], count
    return previous


def _batched(count: int) -> bool:
    """Whether ``count`` multiplications go to the batch multiplier."""
    return _batch is not None and bool(_THREADS[0]) and count >= _BATCH_AT


def mul_each(points: Sequence[Point], scalars: Sequence[int]) -> list[Point]:
    """``[k·P for P, k in zip(points, scalars)]``, as one batch on every core when it can."""
    if len(points) != len(scalars):
        raise ValueError("one scalar for each point")
    if not _batched(len(points)):
        return [mul(p, k) for p, k in zip(points, scalars, strict=True)]
    buffer = bytearray(b"".join([ffi.buffer(p.raw) for p in points]))
    return _run_batch(_TWEAK_MUL, buffer, scalars)


def base_each(scalars: Sequence[int]) -> list[Point]:
    """``[k·G for k in scalars]``, as one batch on every core when it can."""
    if not _batched(len(scalars)):
        return [base(k) for k in scalars]
    return _run_batch(_CREATE, bytearray(64 * len(scalars)), scalars)


def _run_batch(function: int, buffer: bytearray, scalars: Sequence[int]) -> list[Point]:
    """One libsecp256k1 ``(ctx, pubkey, 32-byte scalar)`` function over every slot of
    ``buffer`` (64 bytes a point) in the batch multiplier; the resulting points."""
    tweaks = b"".join([_scalar32(k) for k in scalars])
    assert _batch is not None
    if not _batch.mul_many(function, _CTX_ADDRESS, buffer, tweaks, _THREADS[0]):
        raise PointError("the result is the identity")
    view, out = memoryview(buffer), []
    for offset in range(0, len(buffer), 64):
        raw = _new("secp256k1_pubkey *")
        ffi.memmove(raw, view[offset : offset + 64], 64)
        out.append(Point(raw))
    return out


def base(k: int) -> Point:
    """k·G (libsecp256k1's constant-time generator multiplication)."""
    raw = ffi.new("secp256k1_pubkey *")
    lib.secp256k1_ec_pubkey_create(_CTX, raw, _scalar32(k))
    return Point(raw)


def mul_add_base(point: Point, k: int, z: int) -> Point:
    """k·P + z·G (the shape of every Schnorr-style verification equation), ``z`` may be 0.

    One joint multiplication: libsecp256k1 exposes its Strauss k·P + z·G only through ECDSA
    public-key recovery, which computes ``r⁻¹·(s·R − e·G)`` for the point R with x-coordinate r.
    With R = P (r its x, the recovery id its y parity), ``s = k·r`` and ``e = −z·r`` that is
    exactly k·P + z·G. An x at or above N (a fraction 2^-127.7 of points) takes two
    multiplications."""
    if not 0 < k < N or not 0 <= z < N:
        raise PointError("a scalar must lie between 1 and the group order")
    data = point.encode()
    r = int.from_bytes(data[1:], "big")
    if r >= N:
        result = mul(point, k)
        return add([result, base(z)]) if z else result
    signature = ffi.new("secp256k1_ecdsa_recoverable_signature *")
    lib.secp256k1_ecdsa_recoverable_signature_parse_compact(
        _CTX, signature, data[1:] + (k * r % N).to_bytes(32, "big"), data[0] & 1)
    raw = ffi.new("secp256k1_pubkey *")
    if not lib.secp256k1_ecdsa_recover(_CTX, raw, signature, (-z * r % N).to_bytes(32, "big")):
        raise PointError("the result is the identity")
    return Point(raw)


def negate(point: Point) -> Point:
    """−P (no multiplication)."""
    raw = ffi.new("secp256k1_pubkey *", point.raw[0])
    lib.secp256k1_ec_pubkey_negate(_CTX, raw)
    return Point(raw)


def add(points: Sequence[Point]) -> Point:
    """The sum of points; a sum that is the identity is an error (never honest)."""
    raw = ffi.new("secp256k1_pubkey *")
    if not points or not lib.secp256k1_ec_pubkey_combine(_CTX, raw, [p.raw for p in points],
                                                         len(points)):
        raise PointError("the sum of the points is the identity")
    return Point(raw)


def lincomb(scalars: Sequence[int], points: Sequence[Point], base_scalar: int = 0) -> Point:
    """Σ kᵢ·Pᵢ (+ base_scalar·G), skipping zero scalars; the G term rides on the first
    multiplication (``mul_add_base``)."""
    terms = [(k % N, p) for k, p in zip(scalars, points, strict=True) if k % N]
    z = base_scalar % N
    if not terms:
        if not z:
            raise PointError("the sum of the points is the identity")
        return base(z)
    products = [mul_add_base(terms[0][1], terms[0][0], z) if z else mul(terms[0][1], terms[0][0])]
    products += mul_each([p for _, p in terms[1:]], [k for k, _ in terms[1:]])
    return add(products) if len(products) > 1 else products[0]


def scalar_from(data: bytes) -> int:
    """A scalar in [1, N-1] from at least 48 uniform bytes (bias below 2^-128)."""
    return int.from_bytes(data, "big") % (N - 1) + 1


def inverse(k: int) -> int:
    return pow(k, -1, N)


def inverses(scalars: Sequence[int]) -> list[int]:
    """Every scalar's inverse with one modular inversion (Montgomery's trick)."""
    prefix, running = [], 1
    for k in scalars:
        prefix.append(running)
        running = running * k % N
    inverse_all = pow(running, -1, N)
    out = [0] * len(prefix)
    for i in range(len(prefix) - 1, -1, -1):
        out[i] = inverse_all * prefix[i] % N
        inverse_all = inverse_all * scalars[i] % N
    return out


def scalar_bytes(k: int) -> bytes:
    return k.to_bytes(32, "big")


def scalar_of(data: bytes) -> int:
    """A received scalar (a key or a proof response): 32 bytes, between 1 and N-1."""
    if type(data) is not bytes or len(data) != 32:
        raise PointError("a scalar is 32 bytes, between 1 and the group order")
    value = int.from_bytes(data, "big")
    if not 0 < value < N:
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
