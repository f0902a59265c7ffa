"""A log file: the table's envelopes as the sequencer relayed them, each framed as on the wire
(a 4-byte big-endian length, then the envelope's exact bytes; protocol/SPEC.md §2, §9)."""

from __future__ import annotations

from dataclasses import dataclass

from ..wire.codec import HEADER, MAX_FRAME


@dataclass(frozen=True)
class Framing:
    """The entries read, and the first framing fault (``fault_entry`` = -1 if none)."""

    entries: list[bytes]
    fault_entry: int = -1
    fault_offset: int = -1
    fault: str = ""


def read_frames(data: bytes) -> Framing:
    """Split a log file into entries; never raises, whatever the bytes."""
    entries: list[bytes] = []
    offset = 0
    while offset < len(data):
        if len(data) - offset < HEADER:
            return Framing(entries, len(entries), offset,
                           f"the file ends inside a frame header ({len(data) - offset} bytes)")
        size = int.from_bytes(data[offset : offset + HEADER], "big")
        if size > MAX_FRAME or size == 0:
            return Framing(entries, len(entries), offset,
                           f"a frame length of {size} bytes is not allowed (1 to {MAX_FRAME})")
        end = offset + HEADER + size
        if end > len(data):
            return Framing(entries, len(entries), offset,
                           f"the file ends inside entry {len(entries)}: truncated "
                           f"({len(data) - offset - HEADER} of {size} bytes)")
        entries.append(data[offset + HEADER : end])
        offset = end
    return Framing(entries)
