"""The invariants every honest peer keeps, whatever the adversary does (protocol/SPEC.md §8):

- I1 no honest seat is named: live, or by ``pageone audit`` of any honest log alone or compared;
- I2 an honest seat that stays connected to the honest listening seats is not removed (timed
  out, expelled, given up) unless a dishonest party is named or the host is replaced;
- I3 honest logs are prefixes of one history, or the fork is named with its (dishonest) signer;
- I4 liveness, with an honest majority: every honest peer finishes (the game ends, the table
  ends naming a dishonest party, or it leaves the host) with no stretch of ``STUCK`` simulated
  seconds in which no honest log grew, and within ``LIMIT`` seconds in all unless the game
  itself still moves on at the pace the clocks allow (a host may hold each entry up to the
  joiners' give-up time); a table whose claims keep falling grows but never moves on. Where
  the dishonest hold half the table, no majority can replace a host that stops serving it, so
  its seats may wait on; and a table that waits for a dishonest seat's move (a seat that
  never moves, a host that keeps its own move from every seat) is out of scope
  (``stalled_by_a_move``: no clock times a move at a table of people), counted apart;
- I5 no honest peer blames its own machine for a fault injected elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from ..audit.check import Audit, audit_bytes
from ..audit.compare import compare
from ..session.attachment import NO_MAJORITY_LEFT
from ..session.common import TableClosed
from ..session.fold.obligations import Duty, owed
from ..session.peer import PeerSession
from ..session.reattach import CUT_FROM_HOST, NO_MAJORITY, NOBODY_LEFT, NOT_TAKEN_OVER
from ..wire.codec import frame

STUCK = 240.0  # simulated seconds with no honest log growing: the table hangs (the longest
# legitimate wait is a kept seat's return window, then its step time and the joiners' give-up)


@dataclass
class Watchful:
    """What the simulator notes of an honest peer as it runs: whom it named (live), and
    whether it left the host (gave up on it, lost it)."""

    named: list[tuple[int, str]] = field(default_factory=list)  # (seat, reason)
    left_host: str = ""  # cleared when it comes back
    ever_left: bool = False  # it left the host at some time in the run
    leaving: bool = False
    closing: bool = False  # the end being folded is a table closed, which names nobody
    closed: str = ""  # the table closed under it (its host's bye, too few left): nobody singled


def watch(session: PeerSession) -> Watchful:
    """Wrap ``session``'s ways of ending so the simulator sees whom it names, and when it
    leaves a host it no longer trusts (a clock is no evidence: that is no naming)."""
    notes = Watchful()
    end, give_up, lost_host = session._end, session.give_up, session.lost_host
    blame = session.blame

    def noted_blame(error: Exception) -> tuple[int, str]:
        notes.closing = isinstance(error, TableClosed)
        return blame(error)

    def noted_end(reason: str, culprit: int) -> None:
        if notes.closing and not session.ended:
            notes.closed = reason
        elif not notes.leaving and not session.ended and culprit >= 0:
            notes.named.append((culprit, reason))
        notes.closing = False
        end(reason, culprit)

    def leave(why: str, run: object) -> None:
        if not session.game_over and not session.ended and not notes.left_host:
            notes.left_host, notes.ever_left = why, True
        notes.leaving = True
        try:
            run()  # type: ignore[operator]
        finally:
            notes.leaving = False

    session._end = noted_end  # type: ignore[method-assign]
    session.blame = noted_blame  # type: ignore[method-assign]
    session.give_up = lambda reason, culprit, now: leave(  # type: ignore[method-assign]
        reason, lambda: give_up(reason, culprit, now))
    session.lost_host = lambda why: leave(why, lambda: lost_host(why))  # type: ignore
    return notes


@dataclass
class Verdict:
    invariant: str
    text: str


@dataclass
class Outcome:
    """A finished run: ``honest`` party indices, their notes, the corrupt seats, the parties hit
    by honest faults, whether every honest peer finished in time."""

    sessions: list[PeerSession]
    honest: list[int]
    notes: dict[int, Watchful]
    corrupt_seats: set[int]
    faulted: set[int]
    finished: bool
    idle: float  # simulated seconds since an honest log last grew, when the run stopped
    host: int = 0
    host_gone: bool = False  # a dishonest host's pageone ended or fell over, or an honest one
    # stopped for good: the table is over unless it fails over
    taken_over: bool = False  # an honest seat held a majority's lost statements: it takes over
    moves_withheld: set[int] = field(default_factory=set)  # dishonest seats an action kept a
    # move of from some peer (``stalled_by_a_move``)
    retrying: set[int] = field(default_factory=set)  # honest joiners still trying to get back
    played_for: float = 0.0  # simulated seconds since an honest game last moved on, at the end
    audits: dict[int, Audit] = field(default_factory=dict)
    by_bytes: dict[bytes, Audit] = field(default_factory=dict)  # a log's bytes -> its audit
    splits: dict[tuple[int, int], int | None] = field(default_factory=dict)
    # party -> (sent at, (hand, moves)) of its calls; (logged at, target seat, (hand, moves))
    calls: dict[int, list[tuple[float, tuple[int, int]]]] = field(default_factory=dict)
    catches: list[tuple[float, int, tuple[int, int]]] = field(default_factory=list)

    def seat(self, party: int) -> int:
        ref = self.sessions[self.honest[0]]
        return ref.seat_of(self.sessions[party].identity.public)

    def audit(self, party: int) -> Audit:
        """``pageone audit`` of the party's log; the same bytes are audited once."""
        if party not in self.audits:
            data = b"".join(frame(raw) for raw in self.sessions[party].log)
            if data not in self.by_bytes:
                self.by_bytes[data] = audit_bytes(data)
            self.audits[party] = self.by_bytes[data]
        return self.audits[party]


def _honest_seats(o: Outcome) -> set[int]:
    return {o.seat(p) for p in o.honest} - {-1}


def named_honest(o: Outcome) -> list[Verdict]:
    honest, found = _honest_seats(o), []
    for party in o.honest:
        for seat, reason in o.notes[party].named:
            if seat in honest and seat != o.seat(party):  # its own end is a removal (I2)
                found.append(Verdict("I1", f"p{party} named seat {seat} live: {reason}"))
        fault = o.audit(party).fault
        if fault is not None and fault.seat in honest:
            found.append(Verdict("I1", f"the audit of p{party}'s log names seat {fault.seat}: "
                                 f"{fault.reason}"))
    logs = [p for p in o.honest if len(o.sessions[p].log) > 0]
    groups = [list(c) for size in (2, len(logs)) if size >= 2 and size <= len(logs)
              for c in combinations(logs, size)]
    for group in groups[:12]:
        result = compare([f"p{p}" for p in group], [list(o.sessions[p].log) for p in group],
                         [o.audit(p) for p in group])
        if not result.ok and result.host_seat in honest:
            found.append(Verdict("I1", f"comparing the logs of {group} names the host "
                                 f"(seat {result.host_seat}): {result.text[:160]}"))
    return found


CALL_HELD = 1.5  # a call sent this long before a catch was logged: the host held it


def caught_for_a_call_made(o: Outcome) -> list[Verdict]:
    """An honest seat caught for a Page One call it had sent well before the catch: the host
    held the call, and only witnesses can show it (else the host penalises on its word)."""
    if named_dishonest(o):
        return []
    found = []
    for party in o.honest:
        seat = o.seat(party)
        for logged, target, moment in o.catches:
            if target == seat and party not in o.faulted and any(
                    sent <= logged - CALL_HELD and called == moment
                    for sent, called in o.calls.get(party, [])):
                found.append(Verdict("I1", f"honest p{party} was caught at {logged:.1f} s for "
                                     "a Page One call it had sent before, and nobody is named"))
    return found


def named_dishonest(o: Outcome) -> bool:
    """A corrupt seat named live or by an audit of an honest log, or as the signer of a fork
    that comparing two honest logs shows (I3's naming)."""
    if any(_split(o, a, b) in o.corrupt_seats for a, b in combinations(o.honest, 2)):
        return True
    for party in o.honest:
        if any(seat in o.corrupt_seats for seat, _ in o.notes[party].named):
            return True
        fault = o.audit(party).fault
        if fault is not None and fault.seat in o.corrupt_seats:
            return True
    return False


def host_replaced(o: Outcome) -> bool:
    """An honest seat holds a majority's lost statements (the simulator runs no takeover, it
    stops there), or honest seats that make a majority of the table left the host (a takeover
    would follow; the coalition is not counted on to sign)."""
    if o.taken_over:
        return True
    leavers = [p for p in o.honest if p != o.host and o.notes[p].left_host]
    return len(leavers) >= len(o.sessions) // 2 + 1


def host_abandoned(o: Outcome) -> bool:
    """A dishonest host every honest seat left: it stopped serving them all, which any host can
    do (a table it ends, a host that refuses to host); no honest seat was singled out. Where
    the honest seats are no majority (none can replace the host), every one that left it at
    some time counts, though some came back to it."""
    majority = 2 * len(o.honest) > len(o.sessions)
    leavers = [p for p in o.honest if p != o.host
               and (o.notes[p].left_host if majority else o.notes[p].ever_left)]
    return o.host not in o.honest and bool(leavers) and len(leavers) == len(o.honest)


def removed_honest(o: Outcome) -> list[Verdict]:
    if named_dishonest(o) or host_replaced(o) or o.host_gone or host_abandoned(o):
        return []
    found = []
    for party in o.honest:
        if party == o.host or party in o.faulted:
            continue
        seat, session = o.seat(party), o.sessions[party]
        gone_from = [p for p in o.honest if o.sessions[p].game is not None
                     and o.sessions[p].hand_deal is not None and seat not in o.sessions[p].active
                     and not _said_bye(o.sessions[p], session)]
        ended = session.ended and not session.game_over and not o.notes[party].closed
        left = (bool(o.notes[party].left_host) and party not in o.retrying  # it gave up,
                and not session.game_over)  # unless it played on through the others
        if gone_from or left or ended:
            why = o.notes[party].left_host or session.ended or f"not active for {gone_from}"
            found.append(Verdict("I2", f"honest p{party} (seat {seat}) was removed: {why[:200]}"))
    return found


def _said_bye(viewer: PeerSession, leaver: PeerSession) -> bool:
    """``leaver`` left by its own ``bye`` of its own accord (not a give-up of the host)."""
    from ..crypto.envelope import open_envelope
    key = leaver.identity.public
    return any(open_envelope(raw).sender == key and open_envelope(raw).kind == "bye"
               for raw in list(viewer.log)[-40:]) and not leaver.ended


def _split(o: Outcome, a: int, b: int) -> int | None:
    """None if the logs of parties ``a`` and ``b`` are prefixes of one history; else the seat
    their comparison names as the fork's signer (-1: none)."""
    if (a, b) not in o.splits:
        la, lb = list(o.sessions[a].log), list(o.sessions[b].log)
        short, long_ = (la, lb) if len(la) <= len(lb) else (lb, la)
        named: int | None = None
        if long_[:len(short)] != short:
            result = compare([f"p{a}", f"p{b}"], [la, lb], [o.audit(a), o.audit(b)])
            named = None if result.ok else result.host_seat
        o.splits[(a, b)] = named
    return o.splits[(a, b)]


def forked(o: Outcome) -> list[Verdict]:
    found = []
    for a, b in combinations(o.honest, 2):
        named = _split(o, a, b)
        if named is not None and named not in o.corrupt_seats:
            found.append(Verdict("I3", f"the logs of p{a} and p{b} split and no dishonest "
                                 "signer is named"))
    return found


def blamed_own_machine(o: Outcome) -> list[Verdict]:
    found = []
    for party in o.honest:
        session = o.sessions[party]
        if party in o.faulted:
            continue
        if session.local or session.attachment.network not in (
                "", NOBODY_LEFT, NO_MAJORITY, NOT_TAKEN_OVER, CUT_FROM_HOST, NO_MAJORITY_LEFT):
            found.append(Verdict("I5", f"p{party} blamed its own machine: "
                                 f"{(session.local or session.attachment.network)[:160]}"))
        elif any(e.kind == "stall" for e in session.events):
            found.append(Verdict("I5", f"p{party} says its own machine stalled"))
    return found


def stalled_by_a_move(o: Outcome) -> str:
    """Every honest peer still waiting waits, by its own log, for one dishonest seat's move,
    with nothing of its own out: a seat that never moves (or a host that keeps its own move from
    every seat) stalls the table, and no clock times a move at a table of people (SPEC §8,
    "Open"). Out of the invariants' scope: counted apart, never a violation, but only if an
    action of the plan keeps that seat's moves back (else what stalls is ours: I4). "" if not
    so."""
    waiting = [p for p in o.honest if not (o.sessions[p].game_over or o.sessions[p].ended
                                           or o.notes[p].left_host)]
    seats = set()
    for party in waiting:
        session = o.sessions[party]
        owed_now = owed(session)
        if (session.in_flight or session.outbox.pipe or len(owed_now) != 1
                or owed_now[0].duty is not Duty.MOVE):
            return ""
        seats.add(owed_now[0].seat)
    if len(seats) != 1 or not seats <= o.corrupt_seats & o.moves_withheld:
        return ""
    return f"{waiting} wait for the move of dishonest seat {seats.pop()}"


def check(o: Outcome) -> list[Verdict]:
    found = (named_honest(o) + caught_for_a_call_made(o) + forked(o) + removed_honest(o)
             + blamed_own_machine(o))
    slow = o.idle <= STUCK and o.played_for <= STUCK  # moving at the pace the clocks allow
    running = [p for p in o.honest if not (p == o.host and o.host_gone)]
    if (not o.finished and 2 * len(running) > len(o.sessions) and not slow
            and not stalled_by_a_move(o)):
        stuck = [p for p in running if not (o.sessions[p].game_over or o.sessions[p].ended
                                            or o.notes[p].left_host)]
        found.append(Verdict("I4", f"no end: {stuck} still waiting, no log grew for "
                             f"{o.idle:.0f} s" if o.idle > STUCK else
                             f"no end within the run's limit: {stuck} still waiting"))
    return found
