"""The simulator's speed: signature checks and batched point multiplications are pure, and the
simulator plays a few tables over and over (the adversary's plan is what varies), so their
results are kept across runs in this process. Installed by the simulator only; the product
never memoises crypto."""

from __future__ import annotations

import contextlib
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from coincurve._libsecp256k1 import ffi  # type: ignore[import-not-found]

from ..crypto import group, identity

LIMIT = 60_000  # results kept for each function


class _Memo:
    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.replacement: Callable[..., Any] = function  # the memoised version, once made
        self.kept: OrderedDict[Any, Any] = OrderedDict()
        self.hits = 0

    def get(self, key: Any, compute: Callable[[], Any]) -> Any:
        if key in self.kept:
            self.hits += 1
            self.kept.move_to_end(key)
            return self.kept[key]
        value = self.kept[key] = compute()
        if len(self.kept) > LIMIT:
            self.kept.popitem(last=False)
        return value


_installed: dict[str, _Memo] = {}


@contextlib.contextmanager
def installed() -> Iterator[None]:
    """The memoised versions in place for the duration (their results kept across runs), the
    product's own back after: other code in the process (a test of real peers) never runs
    on the simulator's memo."""
    install()
    try:
        yield
    finally:
        group._run_batch = _installed["batch"].function
        _patch(_installed["verify"].replacement, _installed["verify"].function)


def install() -> None:
    """Put the memoised versions in place (their memos made once per process)."""
    if _installed:
        group._run_batch = _installed["batch"].replacement
        _patch(_installed["verify"].function, _installed["verify"].replacement)
        return
    batch = _installed["batch"] = _Memo(group._run_batch)
    verify = _installed["verify"] = _Memo(identity.verify_signature)

    def run_batch(function: int, buffer: bytearray, scalars: Sequence[int]) -> list[Any]:
        key = (function, bytes(buffer), tuple(scalars))

        def compute() -> bytes:
            work = bytearray(buffer)
            points = batch.function(function, work, scalars)
            return b"".join(bytes(ffi.buffer(p.raw)) for p in points)

        raw = batch.get(key, compute)
        out = []
        for offset in range(0, len(raw), 64):
            point = group._new("secp256k1_pubkey *")
            ffi.memmove(point, raw[offset:offset + 64], 64)
            out.append(group.Point(point))
        return out

    def verify_signature(public: bytes, signature: bytes, data: bytes) -> bool:
        return bool(verify.get((public, signature, data),
                               lambda: verify.function(public, signature, data)))

    batch.replacement, verify.replacement = run_batch, verify_signature
    group._run_batch = run_batch
    _patch(verify.function, verify_signature)


def _patch(old: Callable[..., Any], new: Callable[..., Any]) -> None:
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("p2p_pageone.crypto") and getattr(
                module, "verify_signature", None) is old:
            module.verify_signature = new  # type: ignore[attr-defined]


def hits() -> dict[str, int]:
    return {name: memo.hits for name, memo in _installed.items()}
