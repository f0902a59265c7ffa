"""A joiner's way back to its table once a connection to the host ends (protocol/SPEC.md §7,
"Reconnect" and "Failover"), sans-I/O: whether the host is lost (we sign a ``lost`` statement),
where to connect next (the host again, past it to the successor that took our statement, our
statement first to a successor that lacks it, or nobody: we take the table over), how long to
wait before the next try, and when the retry window is over, with which words. The asyncio
runner (``net/joiner.py``) opens the connections, writes the frames, sleeps, and tells this
how each attempt went; the time is passed in as ``now``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .attachment import MINORITY
from .ceding import cede_when_due, statement_for, yielded
from .client import WELCOME_WITHIN
from .common import parse_endpoint
from .fold.lost import listening_seats, needed
from .fold.obligations import BOUNDS
from .peer import PeerSession
from .reach import DropReach, nobody_reached
from .route import Address, Route
from .rtt import SILENT_CAP

RETRY_FOR = 60.0  # a joiner whose connection drops mid-game tries again for this long
RETRY_EVERY = 1.0  # between two tries in the lobby (a busy door)
RETRY_IN_GAME = 0.25  # between two tries mid-game: the host again, the successor once it serves
HOST_AGAIN = 5.0  # a host the successor lost too is tried again no sooner than this
# the successor next in line, having lost the host itself, waits this long for the others'
# statements before it tries the host again: the longest try at a host (an intro unanswered)
# and the pause after it, so that every other seat comes round to it once
GATHER_FOR = WELCOME_WITHIN + 2.0
# a successor that took our lost statement waits GATHER_FOR for the others', tries the host
# once more and takes the table over if a majority lost it: one that has not after this long
# had no majority, or does not serve the table, and failed us as a successor (the next one in
# line gets our statement)
TAKE_OVER_WITHIN = 2 * GATHER_FOR
# a successor that refuses our lost statement ("the host still answers here") this long, from
# its first refusal in this drop, failed us too: an honest one notices a silent host within its
# link's longest silence threshold and one try at it (a host that serves its friend next in line
# alone, and the friend refusing every statement, held the table for good)
REFUSED_FOR = SILENT_CAP + WELCOME_WITHIN + HOST_AGAIN

NOBODY_LEFT = ("nobody of this table answers any more (the host and every seat that listens "
               "refused): the game most likely ended, or went on without this machine, while it "
               "could not take part; nobody is to blame")

CUT_FROM_HOST = ("could not get back to the host, though this machine's network works (a seat, "
                 "or the host itself, answered it) and no majority of the table lost the host: "
                 "the host, or the link between the host and this machine, fails this seat "
                 "alone; no takeover, and nobody is to blame")

NOT_TAKEN_OVER = ("could not reach the host; the seat next in line took this seat's statement that "
                  "the host is lost and has not taken the table over, and too few other seats "
                  "that listen still answer to make a majority: no takeover, and nobody is to "
                  "blame")

NO_MAJORITY = ("could not reach the host, and another seat that listens lost it too, but they are "
               "no majority of the table: either the host is gone, or this part of the network "
               "is cut off from the rest of the table; no takeover, and nobody is to blame")

# What one connection attempt came to: "refused" (nothing listens there), "unreachable"
# (nothing answered), "unanswered" (it took the connection and never welcomed us), or "" (it
# worked, or it said why not). Handing over our lost statement may also come to "taken".
Outcome = str


@dataclass(frozen=True)
class TakeOver:
    """A majority of the listening seats lost the host (or it handed the table over) and we are
    next: our listener becomes the table's sequencer (``start_takeover``)."""


@dataclass(frozen=True)
class Attempt:
    """Connect to ``target`` and take part there (``Reattach.expected_key``: who must answer).
    ``tell``: our lost statement, signed for the successor listening there, to hand to it
    first, on a connection of its own (b"": none to hand); ``to_host``: ``target`` was the
    host's address (not a successor's) when this attempt was chosen; ``base``: our own
    statement ``tell`` was signed from (``Reattach.told`` keeps it)."""

    target: Address
    tell: bytes
    to_host: bool
    base: bytes = b""


@dataclass(frozen=True)
class Retry:
    """Try again after ``pause`` seconds, resuming the session (``session.resume()``) first."""

    pause: float


@dataclass(frozen=True)
class Wait:
    """Ask again (``next_step``) after ``pause`` seconds: we are the successor next in line
    and wait for the others' lost statements rather than go back to the host."""

    pause: float


@dataclass(frozen=True)
class Finished:
    """The game ended, or the session left the table on that connection: nothing more to do."""


@dataclass(frozen=True)
class Stopped:
    """The retry window is over: the session ended, and its events say why."""


class Reattach:
    """One joiner's attempts to stay at its table: where each goes, and what follows from how
    it went. Kept across connections: which addresses failed us (``route``), whom this drop
    reached (``reach``), which successor took our lost statement (``told``), when the host's
    address was last tried, and when this drop's retry window closes."""

    def __init__(self, session: PeerSession, first: Address, retry_for: float = RETRY_FOR) -> None:
        self.session, self.retry_for = session, retry_for
        self.route = Route(first)
        self.reach = DropReach()  # whom this drop's attempts reached: none at all is our network
        self.told: dict[Address, bytes] = {}  # the lost statement a successor took
        self.told_at: dict[Address, float] = {}  # when it took it
        self.refused_since: dict[Address, float] = {}  # when it first refused our statement
        self.looked_at: dict[Address, float] = {}  # when we last looked whether it took over
        self.asked_at = 0.0  # when the attempt in course was chosen
        self.passed_tried: dict[Address, float] = {}  # when each passed one was tried again
        self.follows: dict[Address, bytes] = {}  # the host a successor says its seat follows now
        self.holds: dict[bytes, list[bytes]] = {}  # or, by its key, the statements it holds
        self.host_tried = -HOST_AGAIN
        self.deadline = -1.0  # this drop's retry window closes then (-1: no drop yet)
        self.was_up = False  # the last attempt got back to the table
        self.gathering = -1.0  # since when we, next in line, wait for the others' statements
        session.attachment.may_resume = retry_for > 0

    def next_step(self, listening: bool, now: float) -> TakeOver | Attempt | Wait:
        """Where to go now. ``listening``: we have a listener to take the table over with."""
        session, route = self.session, self.route
        self.asked_at = now
        if self.gathering >= 0 and now - self.gathering >= GATHER_FOR:
            self.gathering = -1.0  # the host again, then we wait once more if it fails us
        if (look := self._look(now)) is not None:
            return look
        last = route.last
        for where in self._not_taken_over(now):  # the next successor in line is asked now
            if where != route.host(session):  # (unless it is the host now: it took over)
                route.note(where, "idle")
        cede_when_due(session, route, self.holds, listening)
        route.yielded = yielded(session)
        target = route.next(session, listening, session.lost_majority())
        if target is None:
            return TakeOver()
        address = route.host(session)
        if self.gathering >= 0 and target == address:
            route.last = last  # the host is still next once the wait is over
            return Wait(RETRY_IN_GAME)
        lost = session.attachment.lost.get(session.identity.public, b"")
        if now - self.host_tried < HOST_AGAIN:
            target = self._past_host(target, address, lost)
        if target == address:  # the host's turn: a passed successor may have it instead
            target = self._idle_again(lost, now) or target
        to_host = target == address
        if to_host:
            self.host_tried = now
        session.attachment.via_successor = not to_host
        step = Attempt(target, b"", to_host)
        if not to_host and self.told.get(target) != lost:
            if tell := statement_for(session, route, key_at(session, target), lost):
                return Attempt(target, tell, to_host, lost)  # first to a successor lacking it
            self.told_lost(step, "", now)  # none to hand over: as from one that said why not
        return step

    def expected_key(self, step: Attempt) -> bytes:
        """The key that must answer at ``step.target`` before we prove ours there: the seat's
        that announced that endpoint, or at the host's address the host's (b"": any). Asked
        just before each connection: the log may have moved on since the step was chosen."""
        session = self.session
        return key_at(session, step.target) or (session.host_key if step.to_host else b"")

    def _past_host(self, target: Address, address: Address, lost: bytes) -> Address:
        """The host failed us and the successor standing next took our lost statement (it lost
        the host too): we try it, not the host between (a stopped host's machine costs a
        challenge's wait each time; a successor that still had the host would have refused the
        statement), the host again only ``HOST_AGAIN`` after the last try (it may be back)."""
        session = self.session
        if target != address or not self.route.failed.get(address) or not lost:
            return target
        seat = self.route.next_standing(session)
        endpoint = (parse_endpoint(session.endpoints.get(session.keys[seat], ""))
                    if seat >= 0 else None)
        return endpoint if endpoint is not None and self.told.get(endpoint) == lost else target

    def _idle_again(self, lost: bytes, now: float) -> Address | None:
        """A successor we passed by may yet take over (a majority that formed late: a seat on a
        slow link noticed a silent host late), and the others cannot always show us its
        takeover: we try each again, an intro alone, by turns, every ``HOST_AGAIN``, in the
        host's turn (never the next successor's, which must get our statement). Not while a
        successor we have not passed holds our statement: we follow that one alone (else a
        passed one could take over late and draw us from the table the next one made with our
        statement: two tables)."""
        passed = self._not_taken_over(now)
        if now - max(self.passed_tried.values(), default=-HOST_AGAIN) < HOST_AGAIN:
            return None
        holders = [where for where, statement in self.told.items()
                   if statement and statement == lost and where not in passed]
        host = self.route.host(self.session)
        where = self._followed(holders) if holders else min(
            (w for w in passed if w != host), default=None,
            key=lambda w: self.passed_tried.get(w, -1e9))
        if where is not None:
            self.passed_tried[where] = now
        return where

    def _followed(self, holders: list[Address]) -> Address | None:
        """Where the host listens that a successor holding our statement says its seat follows
        now (it joined that one's takeover: so do we; that takeover stands or falls by its own
        statements), if one said so."""
        s = self.session
        keys = [self.follows.get(holder, b"") for holder in holders]
        return next((endpoint for key in keys if key not in (b"", s.host_key, s.identity.public)
                     and s.seat_of(key) in s.active
                     and (endpoint := parse_endpoint(s.endpoints.get(key, ""))) is not None), None)

    def told_lost(self, step: Attempt, outcome: Outcome, now: float) -> None:
        """How handing ``step.tell`` to the successor at ``step.target`` went: "taken" (it said
        nothing: it took the statement), "refused"/"unreachable", or "" (it said why not)."""
        taken = outcome == "taken"
        self.told[step.target] = (step.base or step.tell) if taken else b""
        if taken:
            self.told_at.setdefault(step.target, now)
        else:
            self.told_at.pop(step.target, None)
        if step.tell and not outcome:
            self.refused_since.setdefault(step.target, now)
        else:
            self.refused_since.pop(step.target, None)
        self.route.note(step.target, "" if taken else outcome)

    def attempted(self, step: Attempt, outcome: Outcome, now: float) -> Retry | Finished | Stopped:
        """The connection of ``step`` ended with ``outcome``: what follows."""
        session, at = self.session, self.session.attachment
        outcome = host_failure(session, step.to_host, outcome)
        if up := at.log_read:  # it got in: this drop has its whole retry window, and only
            self.deadline = -1.0  # what we said of the host on it counts (a host we left for
            self.route.failed.clear()  # not serving the table failed us: the successor next)
            self.reach.clear()
            self.gathering = -1.0
            self.told_at.clear()
            if now - self.asked_at >= REFUSED_FOR:  # (a host that lets us back for a moment
                self.refused_since.clear()  # now and then keeps its friend's refusals counted)
            self.looked_at.clear()
            self.holds.clear()
        self.route.note(step.target, outcome)
        if not step.to_host:
            self.follows[step.target] = at.follows
            self.holds[key_at(session, step.target)] = at.holds
        if not up:  # one that got in says nothing of this machine's network, nor one the
            self.reach.note(step.target, "" if at.answered else outcome)  # host answered
        if not at.dropped or session.game_over or session.ended:
            return Finished()
        self.deadline = now + self.retry_for if self.deadline < 0 else self.deadline
        if self.told_at:  # the last successor that took our statement has its time to use it
            self.deadline = max(self.deadline,
                                max(self.told_at.values()) + TAKE_OVER_WITHIN + GATHER_FOR)
        # every new connection failing, at two places or more, is this machine's network,
        # whatever a mesh connection opened before still brings
        idle = self._not_taken_over(now)
        over = now >= self.deadline and (self.reach.nobody() or not still_heard(
            session, now, frozenset(session.seat_of(key_at(session, where)) for where in idle)))
        if over or self.route.nobody_left(session):
            stop_retrying(session, self.route, self.reach, self.retry_for,
                          shared=any(self.told.values()), idle=bool(idle))
            return Stopped()
        now_up, self.was_up = up and not self.was_up, up  # one that worked: again at once, once
        if self.gathering < 0 and self._next_in_line(step):
            self.gathering = now
        return Retry(0.0 if now_up else RETRY_IN_GAME if session.game else RETRY_EVERY)

    def _due_to_pass(self) -> dict[Address, float]:
        """When each successor that took our lost statement fails us unless it took the table
        over by then (``TAKE_OVER_WITHIN`` after it took it), and each that refused it does
        (``REFUSED_FOR`` after its first refusal)."""
        due = {where: since + TAKE_OVER_WITHIN for where, since in self.told_at.items()
               if self.told.get(where)}
        due.update({where: since + REFUSED_FOR for where, since in self.refused_since.items()})
        return due

    def _look(self, now: float) -> Attempt | None:
        """A successor whose time is up is not passed on the clock alone: we may have been
        away from it (on a connection to the host that kept us waiting) while it took the
        table over. First an intro alone, to see (it gets us in if it did)."""
        host = self.route.host(self.session)
        for where, due in self._due_to_pass().items():
            if now >= due and self.looked_at.get(where, -1e9) < due and where != host:
                self.looked_at[where] = now
                self.session.attachment.via_successor = True
                return Attempt(where, b"", False)
        return None

    def _not_taken_over(self, now: float) -> list[Address]:
        """Where the successors listen that failed us (``_due_to_pass``) and that an intro
        since did not find a new host (``_look``): the next one in line gets our statement (we
        still try each again, ``_idle_again``). Their talk counts while the game goes on
        (``still_heard``): a seat that gathers statements without a majority is no sign that
        the table is gone."""
        return [where for where, due in self._due_to_pass().items()
                if now >= due and self.looked_at.get(where, -1e9) >= due]

    def _next_in_line(self, step: Attempt) -> bool:
        """The host failed us on ``step``, our lost statement stands, and we are the successor
        standing next: the others hand us theirs, which we would refuse once back with the
        host, so we wait ``GATHER_FOR`` for them (``Wait``) before we try it again."""
        s = self.session
        return (step.to_host and s.identity.public in s.attachment.lost
                and bool(self.route.failed.get(self.route.host(s)))
                and self.route.next_standing(s) == s.me and not s.lost_majority())


def still_heard(session: PeerSession, now: float, idle: frozenset[int] = frozenset()) -> bool:
    """Our seat is in the running game, and the listening seats that talked to us within the
    give-up time, with us, could still make a majority: a drop's retry window does not end
    then. Our seat is still at the table (they serve us its log and hand our word to the
    host), our ``back`` through them disproves the host's claim about us, and only the table (a
    majority that left the host too) may decide it is over (SPEC §7, "Reconnect"). Fewer than
    a majority can neither take the table over nor keep it going: their talk keeps nothing
    open. Nor does a successor's (``idle``) that took our lost statement and never took over,
    once the table stands still: while the others' logs still grow it is a seat cut off from
    the host as we are, in a game that goes on without a majority lost."""
    if (session.game is None or session.game_over or session.ended
            or session.me not in session.active):
        return False
    mesh = session.mesh
    heard, moving = mesh.heard_from, max(mesh.table_moved_at, mesh.synced_at)
    idle = idle if now - moving >= BOUNDS.give_up else frozenset()
    talking = [seat for seat in listening_seats(session)
               if seat != session.me and seat not in idle
               and session.keys[seat] != session.host_key
               and now - heard.get(session.keys[seat], -1e9) < BOUNDS.give_up]
    return len(talking) + 1 >= needed(session)


def host_failure(session: PeerSession, to_host: bool, outcome: Outcome) -> Outcome:
    """How a connection failed us: as it says, or, one to the host that never answered our
    intro, or that we left signing that it does not serve the table, "unanswered". A failed
    host is lost: we sign that (kept for the successor)."""
    at = session.attachment
    if (not outcome and to_host and at.dropped
            and (not at.answered or session.identity.public in at.lost)):
        outcome = "unanswered"
    if to_host and outcome:
        session.sign_lost(f"{at.dropped or 'the host is gone'} ({outcome} again)")
    return outcome


def stop_retrying(session: PeerSession, route: Route, reach: DropReach, retry_for: float,
                  shared: bool = False, idle: bool = False) -> None:
    """The retry window is over and no takeover came: who lost what decides the words.
    ``shared``: a successor took our lost statement (it lost the host too); ``idle``: one that
    took it did not take the table over in time."""
    session.attachment.may_resume = False
    if route.nobody_left(session):
        session.network_stop(NOBODY_LEFT)
    elif reach.nobody():  # every attempt failed: this machine's network (exit 5)
        session.network_lost(nobody_reached(retry_for))
    elif (session.identity.public in session.attachment.lost and session.may_take_over()
          and not shared and len(session.lost_statements()) < 2):
        # the others did not lose the host: we did; a seat that answered us shows that this
        # machine's network works, so the host or our link to it is what failed
        session.network_stop(CUT_FROM_HOST if reach.answered else MINORITY)
    elif session.identity.public in session.attachment.lost:  # others lost it too
        session.network_stop(NOT_TAKEN_OVER if idle else NO_MAJORITY)
    else:
        session.lost_host(session.attachment.dropped)


def could_not_connect(session: PeerSession, target: Address, refused: bool,
                      why: str) -> Outcome:
    """A connection to ``target`` failed before it opened (``refused``: nothing listens there;
    ``why``: what the system said, if anything): the session hears of it, and the outcome."""
    host, port = target
    session.lost_host(f"could not connect to {host}:{port} ({why or 'no answer'})")
    return "refused" if refused else "unreachable"


def key_at(session: PeerSession, where: Address | None) -> bytes:
    """The key of the seat that announced the endpoint ``where`` (b"" if none did): what must
    answer there before we prove our key to it."""
    return next((key for key, endpoint in session.endpoints.items()
                 if where is not None and parse_endpoint(endpoint) == where), b"")
