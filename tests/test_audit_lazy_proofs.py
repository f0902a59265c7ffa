"""The audit verifies a pass's proof, and a key against its commitments, only where no seed
reveal re-derives them (SPEC §9). Deferring them loses no finding: a pass whose proof bytes were
corrupted, or a key replaced, in an envelope its author signed again is still named at its
entry, with its author's seat, as a live peer would."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import pytest

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.crypto import group
from p2p_pageone.crypto.envelope import Envelope, extend, genesis, open_envelope, seal
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.engine import make_settings
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.wire.codec import frame

from .cheats import verdict


@lru_cache(maxsize=1)
def played() -> tuple[tuple[bytes, ...], dict[bytes, Identity], dict[bytes, int]]:
    """A whole 3-peer classic deal: its log, each author's identity and seat."""
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=31)
    table.run()
    identities = {s.identity.public: s.identity for s in table.sessions}
    seats = {s.identity.public: s.me for s in table.sessions}
    return tuple(table.sessions[1].log), identities, seats


def file_of(entries: list[bytes]) -> bytes:
    return b"".join(frame(raw) for raw in entries)


def pass_entry(entries: list[bytes], step: str, seat: int, nth: int = 0) -> int:
    """The log position of ``seat``'s ``nth`` entry of type ``step`` (with keys, for a move)."""
    _, _, seats = played()
    found = [i for i, raw in enumerate(entries) if (env := open_envelope(raw)).kind == step
             and seats[env.sender] == seat and env.data.get("keys", True)]
    return found[nth]


def resealed(env: Envelope, identity: Identity, prev: bytes, data: dict[str, object]) -> bytes:
    return seal(identity, env.table, env.hand, env.seq, prev, env.kind, data)


def corrupt_proof(entries: list[bytes], at: int) -> bytes:
    """Entry ``at`` with one bit of its proof flipped, signed again by its own author."""
    env = open_envelope(entries[at])
    proof = bytearray(env.data["proof"])
    proof[-1] ^= 1  # the last response: still a scalar, no longer the one that verifies
    _, identities, _ = played()
    return resealed(env, identities[env.sender], env.prev, {**env.data, "proof": bytes(proof)})


def corrupt_key(entries: list[bytes], at: int) -> bytes:
    """Entry ``at`` with its first key replaced by another scalar, signed again by its author."""
    env = open_envelope(entries[at])
    keys = [group.scalar_bytes(12345), *env.data["keys"][1:]]
    _, identities, _ = played()
    return resealed(env, identities[env.sender], env.prev, {**env.data, "keys": keys})


def rechained(entries: list[bytes], start: int) -> list[bytes]:
    """Every entry from ``start`` on signed again by its author over the changed chain: a log
    only every author after ``start`` together could write."""
    original, identities, _ = played()
    first = genesis(open_envelope(entries[0]).table)
    old_heads, new_heads = [first], [first]  # by log position
    for raw in original:
        old_heads.append(extend(old_heads[-1], raw))
    position = {head: i for i, head in enumerate(old_heads)}
    out: list[bytes] = []
    for i, raw in enumerate(entries):
        if i >= start:
            env = open_envelope(raw)
            data = dict(env.data)
            if env.kind == "head":  # the head each author signs at a hand's end changed too
                data["head"] = new_heads[position[data["head"]]]
            raw = resealed(env, identities[env.sender], new_heads[position[env.prev]], data)
        out.append(raw)
        new_heads.append(extend(new_heads[-1], raw))
    return out


def test_a_clean_log_leaves_no_proof_unverified_by_a_reveal() -> None:
    entries, _, _ = played()
    audit = audit_bytes(file_of(list(entries)))
    assert audit.ok and audit.state is not None and audit.state.unproven == []


def assert_named_at_entry(corrupt: Callable[[list[bytes], int], bytes], kind: str, seat: int,
                          nth: int, words: str) -> None:
    """``seat``'s ``nth`` ``kind`` entry corrupted and signed again by its author: the audit
    names that seat at that entry, as the audit verifying every proof does."""
    entries = list(played()[0])
    at = pass_entry(entries, kind, seat, nth)
    entries[at] = corrupt(entries, at)
    data = file_of(entries)
    audit = audit_bytes(data)
    assert audit.fault is not None, f"the corrupted {kind} entry went unnoticed"
    assert (audit.fault.entry, audit.fault.step, audit.fault.seat) == (at, "deck round", seat)
    assert words in audit.fault.reason
    assert verdict(audit) == verdict(audit_bytes(data, every_proof=True))


@pytest.mark.parametrize(("step", "seat", "nth"), [("shuffle", 1, 0), ("lock", 2, 0),
                                                   ("shuffle", 0, 0), ("lock", 1, 0)])
def test_a_corrupted_proof_signed_again_by_its_author_is_named_at_its_entry(
        step: str, seat: int, nth: int) -> None:
    assert_named_at_entry(corrupt_proof, step, seat, nth, f"{step} pass is refused")


@pytest.mark.parametrize(("kind", "seat", "nth"), [("keys", 1, 0), ("keys", 2, 1),
                                                   ("move", 2, 1)])
def test_a_wrong_key_signed_again_by_its_author_is_named_at_its_entry(
        kind: str, seat: int, nth: int) -> None:
    assert_named_at_entry(corrupt_key, kind, seat, nth, "wrong key")


def test_a_corrupted_proof_in_a_log_cut_after_it_is_named() -> None:
    entries = list(played()[0])
    at = pass_entry(entries, "lock", 2)
    entries[at] = corrupt_proof(entries, at)
    audit = audit_bytes(file_of(entries[: at + 1]))
    assert audit.fault is not None
    assert (audit.fault.entry, audit.fault.step, audit.fault.seat) == (at, "deck round", 2)


def test_a_corrupted_proof_under_a_chain_every_later_author_signed_again() -> None:
    """Only every author after the pass together can write this log, and the seed reveal
    re-derives the pass: its statement holds, so the default audit finds the deck fair; the
    audit that verifies every proof's bytes (``--every-proof``) still names the author."""
    entries = list(played()[0])
    at = pass_entry(entries, "shuffle", 1)
    entries[at] = corrupt_proof(entries, at)
    data = file_of(rechained(entries, at))
    strict = audit_bytes(data, every_proof=True)
    assert strict.fault is not None
    assert (strict.fault.entry, strict.fault.step, strict.fault.seat) == (at, "deck round", 1)
    assert audit_bytes(data).ok


def test_a_wrong_key_under_a_chain_every_later_author_signed_again_is_named() -> None:
    """Unlike a proof's bytes, a key is a value the reveal re-derives: the audit names it."""
    entries = list(played()[0])
    at = pass_entry(entries, "keys", 2, 1)
    entries[at] = corrupt_key(entries, at)
    audit = audit_bytes(file_of(rechained(entries, at)))
    assert audit.fault is not None
    assert (audit.fault.entry, audit.fault.step, audit.fault.seat) == (at, "deck round", 2)
