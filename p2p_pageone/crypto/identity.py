"""Ed25519 identities and their short human fingerprints."""

from __future__ import annotations

import base64
from functools import lru_cache

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from .kdf import label, tagged_hash


class Identity:
    """A peer's signing key. Created from 32 secret bytes supplied by the caller."""

    __slots__ = ("_private", "public")

    def __init__(self, secret: bytes) -> None:
        if len(secret) != 32:
            raise ValueError("an identity secret is 32 bytes")
        self._private = Ed25519PrivateKey.from_private_bytes(secret)
        self.public = self._private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    def sign(self, data: bytes) -> bytes:
        return self._private.sign(data)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public)


@lru_cache(maxsize=256)  # every envelope names its author's; a table has a handful
def fingerprint(public: bytes) -> str:
    """16 base32 characters in four groups, e.g. ``K3QF-7ZPA-2MWD-XR4B`` (80 bits)."""
    digest = tagged_hash(label("fingerprint"), public)
    text = base64.b32encode(digest[:10]).decode()
    return "-".join(text[i : i + 4] for i in range(0, 16, 4))


_P = 2**255 - 19
_D = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _decode_point(public: bytes) -> tuple[int, int] | None:
    """The Edwards point of a canonical 32-byte Ed25519 public key, or None (RFC 8032 5.1.3)."""
    if len(public) != 32:
        return None
    y = int.from_bytes(public, "little") & ((1 << 255) - 1)
    sign = public[31] >> 7
    if y >= _P:
        return None  # a non-canonical encoding: one key, two byte strings
    u, v = (y * y - 1) % _P, (_D * y * y + 1) % _P
    x = u * pow(v, 3, _P) * pow(u * pow(v, 7, _P), (_P - 5) // 8, _P) % _P
    if v * x * x % _P == (-u) % _P:
        x = x * _SQRT_M1 % _P
    elif v * x * x % _P != u:
        return None
    if x == 0 and sign:
        return None
    return (x if x % 2 == sign else _P - x), y


def _double(point: tuple[int, int]) -> tuple[int, int]:
    x, y = point
    t = _D * x * x * y * y % _P
    return ((2 * x * y) * pow(1 + t, _P - 2, _P) % _P,
            (y * y + x * x) * pow(1 - t, _P - 2, _P) % _P)


@lru_cache(maxsize=256)
def weak_public_key(public: bytes) -> str:
    """Why ``public`` cannot be an identity ('' if it can): not a canonical curve point, or a point
    of small order, under which a "signature" can be made to verify for any message."""
    point = _decode_point(public)
    if point is None:
        return "not a canonical Ed25519 public key"
    for _ in range(3):
        point = _double(point)
    if point == (0, 1):
        return "a small-order Ed25519 key, under which any message would verify"
    return ""


@lru_cache(maxsize=256)
def _verifier(public: bytes) -> Ed25519PublicKey:
    return Ed25519PublicKey.from_public_bytes(public)


def verify_signature(public: bytes, signature: bytes, data: bytes) -> bool:
    if weak_public_key(public):
        return False
    try:
        _verifier(public).verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True
