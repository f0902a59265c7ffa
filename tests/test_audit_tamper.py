"""A valid log changed in any way fails the audit at the entry that was changed: any single
byte flipped, the file cut anywhere, two entries swapped (property tests over many positions)."""

from __future__ import annotations

from functools import lru_cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.crypto.envelope import extend, genesis, open_envelope
from p2p_pageone.engine import make_settings
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.wire.codec import frame

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@lru_cache(maxsize=1)
def valid_log() -> tuple[bytes, tuple[int, ...], tuple[bytes, ...]]:
    """A whole 2-peer classic deal: the file, where each entry starts, and the entries."""
    table = MemoryTable(make_settings("classic", {"deals": 1}), 2, seed=80)
    table.run()
    entries = table.sessions[1].log
    starts, offset = [], 0
    for raw in entries:
        starts.append(offset)
        offset += 4 + len(raw)
    return b"".join(frame(raw) for raw in entries), tuple(starts), tuple(entries)


def entry_at(offset: int) -> int:
    _, starts, _ = valid_log()
    return max(i for i, start in enumerate(starts) if start <= offset)


def test_the_valid_log_audits_clean() -> None:
    data, _, entries = valid_log()
    audit = audit_bytes(data)
    assert audit.ok and audit.finished and audit.entries == len(entries)


@FAST
@given(st.data())
def test_flipping_any_byte_fails_at_its_entry(data: st.DataObject) -> None:
    log, _, _ = valid_log()
    offset = data.draw(st.integers(0, len(log) - 1))
    bit = data.draw(st.integers(0, 7))
    changed = bytearray(log)
    changed[offset] ^= 1 << bit
    audit = audit_bytes(bytes(changed))
    assert not audit.ok and audit.fault is not None
    assert audit.fault.entry == entry_at(offset), (offset, audit.fault)
    assert audit.fault.step in ("framing", "signature"), audit.fault


@FAST
@given(st.data())
def test_cutting_the_file_anywhere_stops_the_audit_at_the_first_missing_entry(
        data: st.DataObject) -> None:
    """Cut between two entries, the log just stops (a crash): INCOMPLETE, nobody at fault (it
    was a FAIL before issue 20). Cut inside an entry, the file is damaged: FAIL naming nobody.
    Never OK: a cut log has no result."""
    log, starts, _ = valid_log()
    length = data.draw(st.integers(0, len(log) - 1))
    audit = audit_bytes(log[:length])
    assert not audit.ok
    complete = sum(1 for i, start in enumerate(starts) if start + 4 + _size(i) <= length)
    if complete and length in starts:
        assert audit.verdict == "INCOMPLETE" and audit.fault is None, audit.fault
        assert audit.early is not None and audit.early.entry == complete, (length, audit.early)
        assert audit.early.seat == -1 and "it stops after" in audit.early.reason
    else:
        assert audit.verdict == "FAIL" and audit.fault is not None
        assert audit.fault.entry == complete and audit.fault.seat == -1, (length, audit.fault)
        assert bool(audit.not_a_log) == (complete == 0), audit.not_a_log


def _size(index: int) -> int:
    return len(valid_log()[2][index])


def _concurrent(entries: tuple[bytes, ...], i: int, j: int) -> bool:
    """Could entry ``j`` have been ordered at ``i`` by an honest sequencer? (Its author sealed it
    against a head no later than ``i`` and sent nothing in between: the chain cannot tell.)"""
    heads = [genesis(open_envelope(entries[0]).table)]
    for raw in entries:
        heads.append(extend(heads[-1], raw))
    moved = open_envelope(entries[j])
    between = {open_envelope(raw).sender for raw in entries[i:j]}
    return heads.index(moved.prev) <= i and moved.sender not in between


@FAST
@given(st.data())
def test_swapping_two_entries_fails_at_the_first_of_them(data: st.DataObject) -> None:
    _, _, entries = valid_log()
    i = data.draw(st.integers(1, len(entries) - 2))
    j = data.draw(st.integers(i + 1, len(entries) - 1))
    swapped = list(entries)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    audit = audit_bytes(b"".join(frame(raw) for raw in swapped))
    if not _concurrent(entries, i, j):
        assert not audit.ok and audit.fault is not None
        assert audit.fault.entry == i, (i, j, audit.fault)
    elif not audit.ok:  # two messages written at the same time: the chain tells only later
        assert audit.fault is not None and audit.fault.entry >= i, (i, j, audit.fault)
