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


def verify_signature(public: bytes, signature: bytes, data: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True
