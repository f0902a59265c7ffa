"""The audit made live, entry by entry, by a watcher (protocol/SPEC.md §7, "Watchers"): the same
checks as ``audit_bytes``, on the fold every seated peer runs, each proof checked on receipt. A
check that fails is shown at once, with the verdict and evidence the audit gives."""

from __future__ import annotations

from ..crypto.identity import fingerprint
from ..session.common import Event
from ..session.fold.entrylog import EntryLog
from ..session.fold.table import TableState
from ..wire.codec import frame
from .check import RELAYED, Audit, Fault, audit_bytes, conclude, fold_entry, host_seat, log_stops
from .report import fault_text


class LiveAudit:
    """Folds a log's entries as they come; ``audit`` says what is known so far."""

    def __init__(self) -> None:
        self.state = TableState(rederive=True)
        self.audit = Audit(state=self.state)
        self.stopped = False  # a fault: nothing more is folded (the entries are still counted)
        self._shown = 0
        self.log = EntryLog()  # every entry received, folded or not (a LogWriter writes it)

    def add(self, raw: bytes) -> list[Event]:
        """Fold one entry; the events it caused, and a ``fault`` event if a check failed."""
        position = len(self.log)
        self.log.append(raw)
        audit = self.audit
        audit.entries = len(self.log)
        if self.stopped:
            return []
        if audit.early is not None and audit.early.table_closed:
            audit.fault = Fault(position, "table", host_seat(self.state), "an entry after the "
                                "table ended: the sequencer must append nothing more" + RELAYED)
        elif fold_entry(audit, self.state, position, raw):
            return self._events()
        self.stopped = True
        return [*self._events(), Event("fault", self.fault_text(), {"position": position})]

    def _events(self) -> list[Event]:
        new = self.state.events[self._shown:]
        self._shown = len(self.state.events)
        return new

    def fault_text(self) -> str:
        fault, state = self.audit.fault, self.state
        if fault is None:
            return ""
        if 0 <= fault.seat < len(state.names) and not fault.name:
            fault.name, fault.fingerprint = state.names[fault.seat], fingerprint(
                state.keys[fault.seat])
        return f"FAIL {fault_text(fault)}"

    def conclude(self) -> Audit:
        """What the audit says of the log received so far, as if it ended here (the game's end,
        or the watcher stopped): the same verdict ``final`` gives."""
        audit, state = self.audit, self.state
        if audit.fault is None and not (state.game_over or audit.early):
            audit.early = log_stops(audit, state)
        conclude(audit, state)
        return audit

    def final(self) -> Audit:
        """The full audit of the log as received (what ``pageone audit`` says of its file)."""
        return audit_bytes(b"".join(frame(raw) for raw in self.log))
