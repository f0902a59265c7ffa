"""What ``pageone audit`` prints: one line per hand, a verdict line, or the same as JSON
(schema in README.md and protocol/SPEC.md §9)."""

from __future__ import annotations

from typing import Any

from .check import Audit, Fault, HandLine
from .compare import Comparison

SCHEMA = "pageone-audit/1"


def hand_line(line: HandLine, fault: Fault | None = None, names: list[str] | None = None) -> str:
    span = f"entries {line.first_entry}-{line.last_entry}" if line.last_entry >= 0 else (
        f"from entry {line.first_entry}")
    if line.status == "ok":
        return f"hand {line.hand}: OK ({span}) — {line.text.split(': ', 1)[-1]}" + (
            _calls(line, names or []))
    if line.status == "void":
        return f"hand {line.hand}: VOID ({span}) — {line.text}"
    if line.status == "fault":
        return f"hand {line.hand}: FAIL " + (fault_text(fault) if fault else f"({span})")
    return f"hand {line.hand}: NOT CHECKED ({span}) — the log stops inside it"


def _calls(line: HandLine, names: list[str]) -> str:
    def name(seat: int) -> str:
        return names[seat] if 0 <= seat < len(names) else f"seat {seat}"

    return "".join(f"; {name(seat)} missed Page One at entry {at} ("
                   + (f"caught by {name(by)})" if by >= 0 else "not caught)")
                   for seat, at, by in line.missed)


def fault_text(fault: Fault) -> str:
    who = fault.who()
    return (f"at entry {fault.entry} ({fault.step}): " + (f"{who} " if who else "")
            + fault.reason)


def verdict(audit: Audit) -> str:
    if audit.fault is not None:
        return f"FAIL {fault_text(audit.fault)}"
    hands = sum(1 for line in audit.hands if line.status == "ok")
    voided = sum(1 for line in audit.hands if line.status == "void")
    end = f"the table ended early: {audit.closed}" if audit.closed else _winners(audit)
    extra = f", {voided} void" if voided else ""
    return (f"OK — {audit.entries} entries, {hands} hands checked{extra}: every signature, "
            f"chain link, seed, deck round and move holds; {end}")


def _winners(audit: Audit) -> str:
    state = audit.state
    names = state.names if state else []
    first = [names[s] for s, place in enumerate(audit.places) if place == 1 and s < len(names)]
    return f"{' and '.join(first)} {'wins' if len(first) == 1 else 'win'}" if first else "no result"


def text_lines(path: str, audit: Audit, quiet: bool = False) -> list[str]:
    head = f"{path}: table {audit.table_name!r} ({audit.rules or '?'}), " + ", ".join(
        f"{name} {fp}" for _, name, fp in audit.players)
    names = audit.state.names if audit.state else []
    body = [] if quiet else [head] + ["  " + hand_line(line, audit.fault, names)
                                      for line in audit.hands]
    return [*body, f"{'' if quiet else '  '}verdict: {verdict(audit)}"]


def audit_document(path: str, audit: Audit) -> dict[str, Any]:
    fault = audit.fault
    return {
        "log": path,
        "ok": audit.ok,
        "verdict": "OK" if audit.ok else ("INCOMPLETE" if fault and fault.step == "end of log"
                                          else "FAIL"),
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
