"""``pageone audit`` over the log files of one table, alone and in every subset of two or more,
as the tests with real processes check it: nobody is named."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.audit.compare import compare
from p2p_pageone.wire.codec import FrameDecoder


def assert_no_subset_names_anyone(paths: list[Path]) -> None:
    data = [path.read_bytes() for path in paths]
    audits = [audit_bytes(blob) for blob in data]
    assert [audit.fault for audit in audits] == [None] * len(paths)
    logs = [FrameDecoder().feed(blob) for blob in data]
    for size in range(2, len(paths) + 1):
        for chosen in combinations(range(len(paths)), size):
            result = compare([str(paths[i]) for i in chosen], [logs[i] for i in chosen],
                             [audits[i] for i in chosen])
            assert result.ok, (chosen, result.text)
