"""Events that say again what another event of the same batch says: each thing is told once."""

from __future__ import annotations

from ..session.common import Event


def without_echoes(events: list[Event], me: int) -> list[Event]:
    """Drop "bob disconnected" when "bob (seat 2) left (disconnected)…" follows in the batch,
    and the log's word that this seat returned: this machine says "back at the table as …"
    itself when it comes back."""
    leavers = [e.text.split(" (seat ")[0] for e in events if e.kind == "left"]
    kept = []
    for event in events:
        if event.kind == "lost" and any(event.text.startswith(f"{name} ") for name in leavers):
            continue
        if event.kind == "back" and event.data.get("seat") == me:
            continue
        kept.append(event)
    return kept
