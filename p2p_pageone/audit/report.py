"""What ``pageone audit`` prints: one line per hand, a verdict line, or the same as JSON
(schema in README.md and protocol/SPEC.md §9)."""

from __future__ import annotations

from typing import Any

from .check import Audit, Fault, HandLine
from .compare import Comparison

SCHEMA = "pageone-audit/1"


def hand_line(line: HandLine, fault: Fault | None = None) -> str:
    span = f"entries {line.first_entry}-{line.last_entry}" if line.last_entry >= 0 else (
        f"from entry {line.first_entry}")
    if line.status == "ok":
        return f"hand {line.hand}: OK ({span}) — {line.text.split(': ', 1)[-1]}"
    if line.status == "void":
        return f"hand {line.hand}: VOID ({span}) — {line.text}"
    if line.status == "fault":
        return f"hand {line.hand}: FAIL " + (fault_text(fault) if fault else f"({span})")
    return f"hand {line.hand}: NOT CHECKED ({span}) — the log stops inside it"


def fault_text(fault: Fault) -> str:
    who = fault.who()
    return (f"at entry {fault.entry} ({fault.step}): " + (f"{who} " if who else "")
            + fault.reason)


def verdict(audit: Audit) -> str:
    """The verdict line's text; its first word is ``audit.verdict``, as the JSON's."""
    if audit.fault is not None:
        return f"{audit.verdict} {fault_text(audit.fault)}"
    hands = sum(1 for line in audit.hands if line.status == "ok")
    voided = sum(1 for line in audit.hands if line.status == "void")
    checked = (f"{audit.entries} {_plural(audit.entries, 'entry', 'entries')}, "
               f"{hands} {_plural(hands, 'hand', 'hands')} checked"
               + (f", {voided} void" if voided else ""))
    holds = "every signature, chain link, seed, deck round and move holds"
    if audit.early is not None:
        return f"{audit.verdict} — {audit.early.text()}. {checked}: {holds} as far as it goes"
    return f"{audit.verdict} — {checked}: {holds}; {_winners(audit)}"


def _plural(count: int, one: str, more: str) -> str:
    return one if count == 1 else more


def _winners(audit: Audit) -> str:
    state = audit.state
    names = state.names if state else []
    first = [names[s] for s, place in enumerate(audit.places) if place == 1 and s < len(names)]
    if not first:
        return "no result"
    return f"{' and '.join(first)} {'wins' if len(first) == 1 else 'win'}" + _placed_before_void(
        audit)


def _placed_before_void(audit: Audit) -> str:
    """A qdan game whose last deal was void still has its result: the places taken in it
    before the void stand, the leaver takes the lowest free place and, one player left, that
    one the last (docs/RULES.md, "Leaving"). Say so, since no hand was played to its end."""
    state = audit.state
    last = audit.hands[-1] if audit.hands else None
    if state is None or state.game is None or last is None or last.status != "void" or (
            audit.rules != "qdan"):
        return ""
    left = state.game.left
    ranked = ", ".join(f"{_ordinal(place)} {state.names[seat]}"
                       + (" (left the table)" if seat in left else "")
                       for seat, place in sorted(enumerate(audit.places), key=lambda sp: sp[1]))
    return f", decided by the places taken before hand {last.hand} was void: {ranked}"


def _ordinal(place: int) -> str:
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def text_lines(path: str, audit: Audit, quiet: bool = False) -> list[str]:
    if audit.not_a_log:
        head = f"{path}: not a pageone log ({audit.not_a_log})"
    elif not audit.table_id:
        head = f"{path}: no table description"
    else:
        head = f"{path}: table {audit.table_name!r} ({audit.rules}), " + ", ".join(
            f"{name} {fp}" for _, name, fp in audit.players)
    body = [] if quiet else [head] + ["  " + hand_line(line, audit.fault)
                                      for line in audit.hands]
    return [*body, f"{'' if quiet else '  '}verdict: {verdict(audit)}"]


def audit_document(path: str, audit: Audit) -> dict[str, Any]:
    fault, early = audit.fault, audit.early
    return {
        "log": path,
        "ok": audit.ok,
        "verdict": audit.verdict,
        "entries": audit.entries,
        "table": {"id": audit.table_id, "name": audit.table_name, "rules": audit.rules,
                  "options": audit.options},
        "players": [{"seat": seat, "name": name, "fingerprint": fp}
                    for seat, name, fp in audit.players],
        "hands": [{"hand": line.hand, "status": line.status, "first_entry": line.first_entry,
                   "last_entry": line.last_entry, "scores": {str(k): v for k, v in
                                                             line.scores.items()},
                   "missed_calls": [{"seat": seat, "entry": at, "caught_by": by}
                                    for seat, at, by in line.missed],
                   "text": line.text} for line in audit.hands],
        "fault": None if fault is None else {
            "entry": fault.entry, "step": fault.step, "seat": fault.seat, "name": fault.name,
            "fingerprint": fault.fingerprint, "reason": fault.reason},
        "early_end": None if early is None else {
            "entry": early.entry, "table_closed": early.table_closed, "seat": early.seat,
            "name": early.name, "fingerprint": early.fingerprint, "text": early.text()},
        "closed": audit.closed or None,
        "result": {"places": audit.places, "totals": audit.totals} if audit.finished else None,
        "text": verdict(audit),
    }


def comparison_document(comparison: Comparison) -> dict[str, Any]:
    return {"relation": comparison.relation, "ok": comparison.ok, "text": comparison.text,
            "fork_entry": comparison.fork_entry, "entries": comparison.entries,
            "receipts": comparison.receipts, "signed": comparison.signed,
            "blamed_seat": comparison.host_seat if comparison.relation == "fork" else -1}


def document(paths: list[str], audits: list[Audit],
             comparison: Comparison | None) -> dict[str, Any]:
    logs = [audit_document(p, a) for p, a in zip(paths, audits, strict=True)]
    ok = all(a.ok for a in audits) and (comparison is None or comparison.ok)
    return {"schema": SCHEMA, "ok": ok, "logs": logs,
            "comparison": None if comparison is None else comparison_document(comparison)}
