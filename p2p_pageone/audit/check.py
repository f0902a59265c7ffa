"""``pageone audit`` of one log: the public fold of every entry, in order, with the seeds the log
reveals; the first fault stops the fold and is reported with its entry, its step and its seat.

The order of the checks is that of the fold: framing, each envelope's signature over its exact
bytes (``open_envelope``), the chain and sequence numbers (``ChainVerifier``), then each entry's
meaning (seat, turn, deck round, keys, moves as far as the public cards tell), and at each hand's
end the seeds against their commitments, every deck round re-derived from the seeds, no card twice,
every move again with every card known, and the scores.

Three verdicts, from this one result (``Audit.verdict``): ``OK``, the game was played to its
end and every check holds; ``FAIL``, a check fails, naming the seat the log proves at fault (or
nobody, for a damaged file); ``INCOMPLETE``, the table ended early or the log stops before the
game's end with nobody at fault (a quit, a close, a timeout, a crash): what the log holds was
checked and holds, but it has no result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from ..crypto.deck import Cheat, DeckError
from ..crypto.envelope import BadSignature, Envelope, OrderFault, open_envelope
from ..crypto.identity import fingerprint
from ..session.common import Event, TableClosed, TableEnded
from ..session.fold.table import FOLD_ERRORS, TableState
from ..wire.codec import ProtocolError
from ..wire.kinds import EntryKind
from .logfile import read_frames
from .replay import missed_calls

VERDICTS = ("OK", "INCOMPLETE", "FAIL")
# The steps of the audit, in the order it meets them (protocol/SPEC.md §9's table, row by row).
Step = Literal["framing", "signature", "chain", "message", "coin toss", "deck round",
               "seed commitment", "card shown", "move", "move, with every card known",
               "seed reveal", "log head", "table", "internal"]
STEPS: tuple[Step, ...] = get_args(Step)
RELAYED = "; the host relayed it, unless this file was changed after it was written"


@dataclass
class Fault:
    entry: int
    step: Step
    seat: int  # -1: nobody at the table can be named
    reason: str
    name: str = ""
    fingerprint: str = ""

    def who(self) -> str:
        return f"{self.name} (seat {self.seat}, {self.fingerprint})" if self.seat >= 0 else ""


@dataclass
class EarlyEnd:
    """The table ended, or this log stops, before the game's end, with nobody at fault.
    ``seat``: who left, closed the table or went silent (-1: the log does not say)."""

    entry: int
    seat: int
    reason: str
    table_closed: bool  # the table itself ended; False: only this log stops
    name: str = ""
    fingerprint: str = ""

    def who(self) -> str:
        return f"{self.name} (seat {self.seat}, {self.fingerprint}) " if self.seat >= 0 else ""

    def text(self) -> str:
        if self.table_closed:
            return (f"the table ended early, nobody at fault: {self.who()}{self.reason} "
                    f"(entry {self.entry})")
        return f"the log ends early, nobody at fault: {self.reason}"


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
    early: EarlyEnd | None = None
    not_a_log: str = ""  # why the file is no pageone log at all (then ``fault`` says it too)
    finished: bool = False
    places: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    state: TableState | None = None
    last_left: tuple[int, int, str] = (-1, -1, "")  # entry, seat, why of the last leave

    @property
    def verdict(self) -> str:
        """``OK``, ``INCOMPLETE`` or ``FAIL``: what the text and the JSON both say."""
        if self.fault is not None:
            return "FAIL"
        return "OK" if self.finished and self.early is None else "INCOMPLETE"

    @property
    def ok(self) -> bool:
        return self.verdict == "OK"

    @property
    def closed(self) -> str:
        """Why the table itself ended early ("" if it did not)."""
        early = self.early
        return f"{early.who()}{early.reason}" if early and early.table_closed else ""


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
UNAPPLIED = ("framing", "signature", "chain")


def _unproven_hold(state: TableState) -> bool:
    try:
        return state.unproven_hold()
    except Exception:  # whatever a log holds, the fold that checks everything says what is wrong
        return False


def _audit(data: bytes, defer_proofs: bool) -> Audit:
    framing = read_frames(data)
    entries = len(framing.entries)
    audit = Audit(entries=entries)
    state = TableState(defer_proofs=defer_proofs, rederive=True)
    audit.state = state
    for position, raw in enumerate(framing.entries):
        if not fold_entry(audit, state, position, raw):
            break
        if audit.early and position + 1 < entries:
            audit.fault = Fault(position + 1, "table", host_seat(state), "an entry after the table "
                                "ended: the sequencer must append nothing more" + RELAYED)
            break
    if not framing.entries:
        _not_a_log(audit, framing.fault or "the file is empty")
    elif audit.fault is None and framing.fault:
        audit.fault = Fault(framing.fault_entry, "framing", -1, framing.fault +
                            f" (byte {framing.fault_offset}): the file is damaged")
    if audit.fault is None and not (state.game_over or audit.early):
        audit.early = log_stops(audit, state)
    conclude(audit, state)
    return audit


def _not_a_log(audit: Audit, why: str) -> None:
    audit.not_a_log = why
    audit.fault = Fault(0, "framing", -1, f"not a pageone log: {why}")


def log_stops(audit: Audit, state: TableState) -> EarlyEnd:
    """The log ends before the game did, and no entry in it is at fault."""
    count = audit.entries
    stops = f"it stops after {count} entr{'y' if count == 1 else 'ies'}"
    at, seat, why = audit.last_left
    if at == count - 1 and seat >= 0:  # a leaver's own pageone records nothing after its bye
        return EarlyEnd(count, seat, f"{stops}, right after {state.who(seat)} {why} (entry "
                        f"{at}), as a leaver's own log does", table_closed=False)
    where = "before the game started" if state.game is None else "before the game's end"
    return EarlyEnd(count, -1, f"{stops}, {where}; the pageone that wrote it stopped there (it "
                    "quit, crashed or was killed) or the file was cut short", table_closed=False)


def fold_entry(audit: Audit, state: TableState, position: int, raw: bytes) -> bool:
    try:
        env = open_envelope(raw)
    except ProtocolError as error:
        if position == 0 and not isinstance(error, BadSignature):
            _not_a_log(audit, f"its first entry is not a pageone message ({error.reason})")
            return False
        step: Step = "signature" if isinstance(error, BadSignature) else "framing"
        audit.fault = Fault(position, step, host_seat(state), _unreadable(error) + RELAYED)
        return False
    try:
        events = state.apply(raw, env)
    except TableClosed as closed:
        who = f"{state.who(closed.culprit)} " if closed.culprit >= 0 else ""
        _void_current(audit, state, position, f"{who}{closed}")
        if env.kind == EntryKind.EXPEL:  # too few left once a cheater is out: its evidence logged
            audit.fault = Fault(position, _expel_step(env), closed.culprit, str(closed))
            return False
        audit.early = EarlyEnd(position, closed.culprit, str(closed), table_closed=True)
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


def _expel_step(env: Envelope) -> Step:
    """The step of the refused message an ``expel`` carries (the fold checked it)."""
    evidence = open_envelope(env.data["evidence"]).kind
    return "card shown" if evidence == EntryKind.MOVE else "deck round"


def _unreadable(error: ProtocolError) -> str:
    if isinstance(error, BadSignature):
        return (f"the signature of {error.peer or 'its author'} does not verify over the "
                "entry's bytes: forged or corrupted (its claimed author is not to blame)")
    return f"not a well-formed envelope: {error.reason}"


def _step(error: Exception) -> Step:
    text = str(error)
    if isinstance(error, ProtocolError):
        return "signature" if isinstance(error, BadSignature) else (
            "chain" if isinstance(error, OrderFault) else "message")
    if isinstance(error, Cheat):
        return "seed commitment" if "commitment" in text else "deck round"
    if isinstance(error, DeckError):
        return "card shown" if "not the card" in text or "not theirs" in text else "deck round"
    if isinstance(error, TableEnded):  # the fold says which step, never in words
        return next((step for step in STEPS if step == error.step), "table")
    return "message"


def host_seat(state: TableState) -> int:
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
            if state.settings is not None and state.history:
                line.missed = missed_calls(state.settings, state.seat_count, state.history[-1])
            line.text = event.text + "".join(f"; {note}" for note in line.returns) + (
                _calls(line.missed, state.names))
        elif event.kind == "refuted" and audit.hands:  # the host's word, disproved
            audit.hands[-1].returns.append(f"at entry {position} {event.text}")
        elif event.kind == "back" and audit.hands:
            audit.hands[-1].returns.append(f"{state.who(int(data['seat']))} dropped and "
                                           f"returned at entry {position}")
        elif event.kind == "takeover" and audit.hands:  # the old host's leave follows
            _void_current(audit, state, position, f"{state.who(int(data['seat']))} took the "
                          f"table over as its host at entry {position} (" + (
                              "the host handed it over" if data.get("handed") else
                              f"the table moved by a majority: {data.get('lost')} seats signed "
                              "that they lost the host") + ")")
        elif event.kind == "left":  # comes before the next hand's event
            audit.last_left = (position, int(data["seat"]), str(data["why"]))
            if audit.hands:
                _left(audit.hands[-1], position, f"{state.who(int(data['seat']))} {data['why']}")


def _left(line: HandLine, position: int, why: str) -> None:
    if line.status == "unfinished":
        _void(line, position, why)
    else:  # between hands: the hand played stands
        line.text += f"; then {why}"


def _calls(missed: list[tuple[int, int, int]], names: list[str]) -> str:
    def name(seat: int) -> str:
        return names[seat] if 0 <= seat < len(names) else f"seat {seat}"

    return "".join(f"; {name(seat)} missed Page One at entry {at} ("
                   + (f"caught by {name(by)})" if by >= 0 else "not caught)")
                   for seat, at, by in missed)


def _void(line: HandLine, position: int, why: str) -> None:
    line.status, line.last_entry, line.text = "void", position, why


def _void_current(audit: Audit, state: TableState, position: int, why: str) -> None:
    if audit.hands and audit.hands[-1].status == "unfinished":
        _void(audit.hands[-1], position, why)


def conclude(audit: Audit, state: TableState) -> None:
    audit.table_id = state.table_id.hex()
    audit.table_name = state.table_name
    if state.settings is not None:
        audit.rules = state.settings.family
        audit.options = {k: getattr(state.settings, k) for k in state.settings.__dataclass_fields__}
    audit.players = [(seat, name, fingerprint(key))
                     for seat, (name, key) in enumerate(zip(state.names, state.keys, strict=False))]
    if audit.fault is not None:  # an entry after the table's end, or a damaged tail: a FAIL
        audit.early = None
    for named in (audit.fault, audit.early):
        if named is not None and 0 <= named.seat < len(state.names):
            named.name, named.fingerprint = state.names[named.seat], fingerprint(
                state.keys[named.seat])
    fault = audit.fault
    if fault is not None:
        for line in audit.hands:
            if line.status == "unfinished":
                line.status, line.last_entry, line.text = "fault", fault.entry, fault.reason
    game = state.game
    audit.finished = state.game_over
    if game is not None and game.over:
        audit.places, audit.totals = list(game.places), list(game.totals)
