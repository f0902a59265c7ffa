"""Domain-separated hashing and key derivation: every label starts with ``pageone/v1/``."""

from __future__ import annotations

import hashlib
import hmac

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand

PREFIX = "pageone/v1/"


def label(*parts: object) -> bytes:
    """``label("lock", 3, "main")`` → ``b"pageone/v1/lock/3/main"``."""
    return (PREFIX + "/".join(str(p) for p in parts)).encode()


def tagged_hash(tag: bytes, *chunks: bytes) -> bytes:
    """SHA-256 over a tag and length-prefixed chunks (no two inputs share an encoding)."""
    digest = hashlib.sha256()
    digest.update(len(tag).to_bytes(2, "big") + tag)
    for chunk in chunks:
        digest.update(len(chunk).to_bytes(4, "big") + chunk)
    return digest.digest()


def expand(secret: bytes, info: bytes, length: int) -> bytes:
    """HKDF-Expand (SHA-256) of a 32-byte uniformly random secret."""
    return HKDFExpand(hashes.SHA256(), length, info).derive(secret)


def stream(secret: bytes, info: bytes, length: int) -> bytes:
    """A long deterministic byte stream (SHAKE-256 keyed through HMAC), for permutations."""
    key = hmac.new(secret, info, hashlib.sha256).digest()
    return hashlib.shake_256(key).digest(length)


def permutation(secret: bytes, info: bytes, size: int) -> list[int]:
    """Unbiased Fisher–Yates driven by rejection sampling from ``stream``."""
    data = stream(secret, info, 8 * size + 64)
    offset = 0
    order = list(range(size))
    for i in range(size - 1, 0, -1):
        bound = i + 1
        limit = (1 << 32) - (1 << 32) % bound
        while True:
            if offset + 4 > len(data):
                data += stream(secret, info + b"/more" + len(data).to_bytes(4, "big"), 4 * size)
            value = int.from_bytes(data[offset : offset + 4], "big")
            offset += 4
            if value < limit:
                break
        j = value % bound
        order[i], order[j] = order[j], order[i]
    return order
