"""Several peers' logs of one table: identical, one a prefix of another, or a fork.

Every honest peer writes the entries in the order the sequencer relayed them, so two logs of one
table agree wherever both go. Two different entries at one position mean the sequencer showed
the peers different tables: evidence against the host, shown with both entries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..crypto.envelope import open_envelope
from ..crypto.identity import fingerprint
from ..wire.codec import ProtocolError
from .check import Audit


@dataclass
class Comparison:
    relation: str  # identical, prefix, fork, other tables
    text: str
    fork_entry: int = -1
    entries: list[dict[str, Any]] = field(default_factory=list)  # the two entries of a fork
    host_seat: int = -1

    @property
    def ok(self) -> bool:
        return self.relation in ("identical", "prefix")


def describe_entry(raw: bytes, names: dict[bytes, str]) -> dict[str, Any]:
    """Who signed an entry, its type and sequence number: enough to find it in each log."""
    try:
        env = open_envelope(raw)
    except ProtocolError as error:
        return {"type": "?", "author": "", "fingerprint": "", "seq": -1,
                "note": f"unreadable: {error}"}
    return {"type": env.kind, "author": names.get(env.sender, ""),
            "fingerprint": fingerprint(env.sender), "seq": env.seq, "hand": env.hand}


def compare(paths: list[str], logs: list[list[bytes]], audits: list[Audit]) -> Comparison:
    longest = max(range(len(logs)), key=lambda i: len(logs[i]))
    base = logs[longest]
    if any(log[:1] != base[:1] for log in logs):
        return Comparison("other tables", "these logs do not start with the same table "
                          "description: they are not of one table")
    state = audits[longest].state
    names = dict(zip(state.keys, state.names, strict=False)) if state else {}
    host = state.seat_of(state.host_key) if state else -1
    shorter: list[str] = []
    for path, log in zip(paths, logs, strict=True):
        at = next((i for i, (a, b) in enumerate(zip(log, base, strict=False)) if a != b), -1)
        if at >= 0:
            first, second = describe_entry(base[at], names), describe_entry(log[at], names)
            who = state.who(host) if state else "the host"
            return Comparison(
                "fork", f"fork at entry {at}: {paths[longest]} has {_entry_text(first)}, "
                f"{path} has {_entry_text(second)}; the sequencer, host {who}, showed "
                "the peers two different tables", at, [
                    {"log": paths[longest], **first}, {"log": path, **second}], host)
        if len(log) < len(base):
            shorter.append(f"{path} stops after {len(log)} entries")
    if shorter:
        return Comparison("prefix", f"the logs agree; {', '.join(shorter)} of "
                          f"{len(base)} (its peer stopped early)")
    return Comparison("identical", f"the {len(logs)} logs are identical ({len(base)} entries)")


def _entry_text(entry: dict[str, Any]) -> str:
    if entry["type"] == "?":
        return f"an unreadable entry ({entry['note']})"
    return f"{entry['type']} #{entry['seq']} by {entry['author'] or '?'} ({entry['fingerprint']})"
