"""``pageone audit`` of one log: the public fold of every entry, in order, with the seeds the log
reveals; the first fault stops the fold and is reported with its entry, its step and its seat.

The order of the checks is that of the fold: framing, each envelope's signature over its exact
bytes (``open_envelope``), the chain and sequence numbers (``ChainVerifier``), then each entry's
meaning (seat, turn, deck round, keys, moves as far as the public cards tell), and at each hand's
end the seeds against their commitments, every deck round re-derived from the seeds, no card twice,
every move again with every card known, and the scores.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..crypto.deck import Cheat, DeckError
from ..crypto.envelope import BadSignature, OrderFault, open_envelope
from ..crypto.identity import fingerprint
from ..session.common import Event, TableClosed, TableEnded
from ..session.fold.table import FOLD_ERRORS, TableState
from ..wire.codec import ProtocolError
from .logfile import read_frames
from .replay import missed_calls

RELAYED = "; the host relayed it, unless this file was changed after it was written"


@dataclass
class Fault:
    entry: int
    step: str
    seat: int  # -1: nobody at the table can be named
    reason: str
    name: str = ""
    fingerprint: str = ""

    def who(self) -> str:
        return f"{self.name} (seat {self.seat}, {self.fingerprint})" if self.seat >= 0 else ""


@dataclass
class HandLine:
    hand: int
    status: str  # ok, void, fault, unfinished
    first_entry: int
    last_entry: int = -1
    text: str = ""
    scores: dict[int, int] = field(default_factory=dict)
    missed: list[tuple[int, int, int]] = field(default_factory=list)  # seat, entry, caught by
    returns: list[str] = field(default_factory=list)  # seats that dropped and came back


@dataclass
class Audit:
    """Everything ``pageone audit`` says about one log."""

    entries: int = 0
    table_id: str = ""
    table_name: str = ""
    rules: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    players: list[tuple[int, str, str]] = field(default_factory=list)  # seat, name, fingerprint
    hands: list[HandLine] = field(default_factory=list)
    fault: Fault | None = None
    closed: str = ""  # the table ended early without a fault (too few players left)
    finished: bool = False
    places: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    state: TableState | None = None

    @property
    def ok(self) -> bool:
        return self.fault is None and (self.finished or bool(self.closed))


def audit_bytes(data: bytes, every_proof: bool = False) -> Audit:
    """Audit a log file's bytes. Never raises, whatever they hold.

    A pass's proof, or a key's ``u·T = W``, is checked only where no seed reveal re-derives the
    pass or the key (SPEC §9). If one of those fails, or an entry's meaning is refused while
    checks are deferred, the log is folded again checking everything as it comes, as a live
    peer does, so the first fault is reported as a live peer meets it. ``every_proof``: that
    fold from the start (every proof's bytes checked, even where the reveal established its
    statement)."""
    audit = _audit(data, defer_proofs=not every_proof)
    state = audit.state
    if every_proof or state is None or not state.unproven:
        return audit
    unapplied = audit.fault is None or audit.fault.step in UNAPPLIED
    if unapplied and _unproven_hold(state):
        return audit
    return _audit(data, defer_proofs=False)


# Faults found before the entry's meaning is folded: the deferred checks cannot change them.
UNAPPLIED = ("framing", "signature", "chain", "end of log")


def _unproven_hold(state: TableState) -> bool:
    try:
        return state.unproven_hold()
    except Exception:  # whatever a log holds, the fold that checks everything says what is wrong
        return False


def _audit(data: bytes, defer_proofs: bool) -> Audit:
    framing = read_frames(data)
    audit = Audit(entries=len(framing.entries))
    state = TableState(defer_proofs=defer_proofs, rederive=True)
    audit.state = state
    for position, raw in enumerate(framing.entries):
        if not _fold_one(audit, state, position, raw):
            break
        if audit.closed and position + 1 < len(framing.entries):
            audit.fault = Fault(position + 1, "table", _host(state), "an entry after the table "
                                "ended: the sequencer must append nothing more" + RELAYED)
            break
    if audit.fault is None and framing.fault:
        audit.fault = Fault(framing.fault_entry, "framing", -1, framing.fault +
                            f" (byte {framing.fault_offset}): the file is damaged")
    if audit.fault is None and not (state.game_over or audit.closed):
        audit.fault = Fault(len(framing.entries), "end of log", -1,
                            f"the log stops after {len(framing.entries)} entries, before the "
                            "game's end: truncated, or its peer stopped early")
    _conclude(audit, state)
    return audit


def _fold_one(audit: Audit, state: TableState, position: int, raw: bytes) -> bool:
    try:
        env = open_envelope(raw)
    except ProtocolError as error:
        step = "signature" if isinstance(error, BadSignature) else "framing"
        audit.fault = Fault(position, step, _host(state), _unreadable(error) + RELAYED)
        return False
    try:
        events = state.apply(raw, env)
    except TableClosed as closed:
        audit.closed = f"{state.who(closed.culprit)} {closed}"
        _void_current(audit, state, position, audit.closed)
        return True
    except FOLD_ERRORS as error:
        seat, reason = state.blame(error)
        at = error.position if isinstance(error, TableEnded) and error.position >= 0 else position
        audit.fault = Fault(at, _step(error), seat, reason)
        return False
    except Exception as error:
        audit.fault = Fault(position, "internal", -1, f"the audit could not check this entry "
                            f"({type(error).__name__}: {error}); please report it")
        return False
    _note_events(audit, state, position, events)
    return True


def _unreadable(error: ProtocolError) -> str:
    if isinstance(error, BadSignature):
        return (f"the signature of {error.peer or 'its author'} does not verify over the "
                "entry's bytes: forged or corrupted (its claimed author is not to blame)")
    return f"not a well-formed envelope: {error.reason}"


def _step(error: Exception) -> str:
    text = str(error)
    if isinstance(error, ProtocolError):
        return "signature" if isinstance(error, BadSignature) else (
            "chain" if isinstance(error, OrderFault) else "message")
    if isinstance(error, Cheat):
        return "seed commitment" if "commitment" in text else "deck round"
    if isinstance(error, DeckError):
        return "card shown" if "not the card" in text or "not theirs" in text else "deck round"
    if isinstance(error, TableEnded):
        for words, step in (("every card known", "move, with every card known"),
                            ("rules refuse", "move"), ("not the card", "card shown"),
                            ("not in its hand", "card shown"), ("refused to reveal", "seed reveal"),
                            ("before the hand was over", "seed reveal"),
                            ("log head", "log head"),
                            ("coin", "coin toss"), ("card appears twice", "deck round")):
            if words in text:
                return step
        return "table"
    return "message"


def _host(state: TableState) -> int:
    return state.seat_of(state.host_key)


def _note_events(audit: Audit, state: TableState, position: int, events: list[Event]) -> None:
    for event in events:
        data = event.data
        if event.kind == "hand":
            audit.hands.append(HandLine(int(data["hand"]), "unfinished", position))
        elif event.kind == "scores" and audit.hands:
            line = audit.hands[-1]
            line.status, line.last_entry = "ok", position
            line.scores = {int(k): int(v) for k, v in data["scores"].items()}
            line.text = event.text + "".join(f"; {note}" for note in line.returns)
            if state.settings is not None and state.history:
                line.missed = missed_calls(state.settings, state.seat_count, state.history[-1])
        elif event.kind == "back" and audit.hands:
            audit.hands[-1].returns.append(f"{state.who(int(data['seat']))} dropped and "
                                           f"returned at entry {position}")
        elif event.kind == "takeover" and audit.hands:  # the old host's leave follows
            _void_current(audit, state, position, f"{state.who(int(data['seat']))} took the "
                          f"table over as its host at entry {position} (the host's pageone "
                          "stopped)")
        elif event.kind == "left" and audit.hands:  # comes before the next hand's event
            line, why = audit.hands[-1], f"{state.who(int(data['seat']))} {data['why']}"
            if line.status == "unfinished":
                _void(line, position, why)
            else:  # between hands: the hand played stands
                line.text += f"; then {why}"


def _void(line: HandLine, position: int, why: str) -> None:
    line.status, line.last_entry, line.text = "void", position, why


def _void_current(audit: Audit, state: TableState, position: int, why: str) -> None:
    if audit.hands and audit.hands[-1].status == "unfinished":
        _void(audit.hands[-1], position, why)


def _conclude(audit: Audit, state: TableState) -> None:
    audit.table_id = state.table_id.hex()
    audit.table_name = state.table_name
    if state.settings is not None:
        audit.rules = state.settings.family
        audit.options = {k: getattr(state.settings, k) for k in state.settings.__dataclass_fields__}
    audit.players = [(seat, name, fingerprint(key))
                     for seat, (name, key) in enumerate(zip(state.names, state.keys, strict=False))]
    fault = audit.fault
    if fault is not None:
        if 0 <= fault.seat < len(state.names):
            fault.name, fault.fingerprint = state.names[fault.seat], fingerprint(
                state.keys[fault.seat])
        for line in audit.hands:
            if line.status == "unfinished":
                line.status, line.last_entry, line.text = "fault", fault.entry, fault.reason
    game = state.game
    audit.finished = state.game_over
    if game is not None and game.over:
        audit.places, audit.totals = list(game.places), list(game.totals)
