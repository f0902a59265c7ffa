"""Honest joiners' connections to the host, and their way back after one ends, as
``net/joiner.run_joiner`` does it: each keeps a ``session.reattach.Reattach`` and follows it.
A connection ends when its session drops it (the host unresponsive, lost), the host closes it,
or the game is over; the host hears the close a link's delay later (``disconnect``). A try at
the host opens a new connection the host's sequencer accepts (when it runs); one at a
successor hands over our ``lost`` statement as its listener would take it. An honest joiner
whose ``Reattach`` says to take the table over does (``takeovers``: its session becomes a new
host's sequencer, ``Table.take_over``), and the others reach it as they would: a try at its
endpoint opens a connection to that sequencer. Coalition seats never take over.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ..session.attachment import intro_answer
from ..session.client import Client
from ..session.handover import take_lost_statement, unanswered_word
from ..session.peer import PeerSession
from ..session.reattach import (
    Attempt,
    Finished,
    Reattach,
    Retry,
    Stopped,
    TakeOver,
    Wait,
    could_not_connect,
)
from ..session.route import Address

HOST_ADDRESS: Address = ("127.0.0.1", 40000)
SILENT_AFTER = 10.0  # as ``MemoryTable``'s clients
FIRST_NEW_CONN = 100  # new connections are numbered from here (watchers from 1000)


@dataclass
class Line:
    """One honest joiner's way to the table: its ``Reattach``, the attempt in course, the
    connection it reads (-1: none), when the next try starts (-1: none due), and whether it
    is done with the table (finished, stopped, or would take it over)."""

    reattach: Reattach
    step: Attempt
    conn: int
    retry_at: float = -1.0
    over: bool = False
    waiting: bool = False  # the step due at ``retry_at`` follows a ``Wait``


class Links:
    """Which connection each side holds: the host's open ones (``host_open``), each joiner's
    (``lines``), and the ways of the table (``Table``) to reach the parties."""

    def __init__(self, table: Table, honest: list[int]) -> None:
        self.table = table
        self.host_open: set[int] = set(range(1, table.players))
        self.party_at: dict[int, int] = {conn: conn for conn in self.host_open}
        self.host_at: dict[int, int] = {}  # a connection to a new host -> that host's party
        self.lines: dict[int, Line] = {}
        self.honest = set(honest)
        self.takeovers: set[int] = set()
        self.next_conn = FIRST_NEW_CONN
        for party in honest:
            if party > 0:
                self._add_line(party)

    def _add_line(self, party: int) -> None:
        """Joiner ``party`` comes back as ``pageone join`` does, from its first connection."""
        reattach = Reattach(self.table.session(party), HOST_ADDRESS)
        first = reattach.next_step(True, 0.0)
        assert isinstance(first, Attempt)
        self.lines[party] = Line(reattach, first, party)

    def host_of(self, conn: int) -> int:
        """The party whose sequencer connection ``conn`` reaches (0: the first host)."""
        return self.host_at.get(conn, 0)

    def reads(self, party: int, conn: int) -> bool:
        """Joiner ``party`` still reads connection ``conn`` (a corrupt joiner keeps its first)."""
        return self.conn_of(party) == conn

    def conn_of(self, party: int) -> int:
        """The connection joiner ``party`` reads now (-1: none)."""
        line = self.lines.get(party)
        return line.conn if line is not None else party

    def back_in(self, party: int) -> bool:
        """``party`` is at the table again over a connection that got in."""
        line = self.lines.get(party)
        if line is None or line.conn < 0:
            return False
        at = self.table.session(party).attachment
        return at.log_read and not at.dropped

    def flap(self, party: int) -> None:
        """A coalition joiner drops its connection, to come back as ``pageone join`` does
        (a ``Line`` of its own from now on)."""
        if party not in self.lines:
            self._add_line(party)
        session = self.table.session(party)
        if self.lines[party].conn >= 0 and not session.attachment.dropped:
            session.attachment.dropped = "it drops its connection on purpose"

    def _coalition_follows(self) -> None:
        """Once the table has a new host, the coalition's joiners come to it as ``pageone join``
        does (their frames still pass the adversary's rules): at the new table they can stall,
        withhold and lie as they did at the old one."""
        for party in range(1, self.table.players):
            if (party not in self.honest and party not in self.lines
                    and not self.table.session(party).ended):
                self._add_line(party)

    def done(self, party: int) -> bool:
        line = self.lines.get(party)
        return line is None or line.over

    def tick(self, now: float) -> None:
        for party, line in list(self.lines.items()):  # a takeover adds the coalition's
            if line.over or self.table.stopped(party, now) or self.table.gone(party):
                continue
            if line.conn >= 0:
                client = self.table.client(party)
                if client.finished(now) or client.session.attachment.dropped:
                    self._ended(party, line, now)
            elif 0 <= line.retry_at <= now:
                line.retry_at = -1.0
                if not line.waiting:  # a wait asks again without a connection between
                    self.table.session(party).resume()
                self._try(party, line, now)

    def host_closed(self, party: int, conn: int) -> None:
        """The host's close of ``conn`` reached joiner ``party``: it reads the end (as
        ``net/joiner``'s reader does)."""
        if not self.reads(party, conn):
            return
        client = self.table.client(party)
        client.gone = True
        session = client.session
        if not (session.game_over or session.ended) and not session.attachment.dropped:
            client.closed()

    def _ended(self, party: int, line: Line, now: float) -> None:
        session = self.table.session(party)
        word = unanswered_word(session)
        if word:
            self.table.send_up(party, line.conn, word)
        self.table.close_up(party, line.conn)
        line.conn = -1
        self._after(line, line.reattach.attempted(line.step, "", now), now)

    def _after(self, line: Line, after: Retry | Finished | Stopped, now: float) -> None:
        if isinstance(after, Retry):
            line.retry_at = now + after.pause
        else:
            line.over = True

    def _try(self, party: int, line: Line, now: float) -> None:
        reattach, session = line.reattach, self.table.session(party)
        step = reattach.next_step(True, now)
        line.waiting = isinstance(step, Wait)
        if isinstance(step, Wait):
            line.retry_at = now + step.pause
            return
        if isinstance(step, TakeOver):
            line.over = True
            if party in self.honest:
                self.takeovers.add(party)
                self.table.take_over(party, now)
                self._coalition_follows()
            return
        line.step = step
        if step.tell:
            reattach.told_lost(step, self._tell(party, step, now), now)
        owner = self._listening(step, now)
        if owner < 0:
            outcome = could_not_connect(session, step.target, True, "Connection refused")
        elif owner == 0 or owner in self.table.hosts:  # a host: the first, or a new one
            line.conn = self._open(party, reattach.expected_key(step), now, owner)
            return
        else:  # its listener takes our intro and closes: it has not taken the table over
            if word := intro_answer(self.table.session(owner)):  # whom its seat follows now
                Client(session, now, SILENT_AFTER).receive(word, now)
            session.lost_host("the connection to the host closed")
            outcome = ""
        self._after(line, reattach.attempted(step, outcome, now), now)

    def _tell(self, party: int, step: Attempt, now: float) -> str:
        """Our lost statement to the successor listening at ``step.target``: "taken", "" (it
        said why not), or "refused" (nothing listens there)."""
        owner = self._listening(step, now)
        if owner < 0:
            return "refused"
        if owner in self.table.hosts:  # one that took over already says nothing
            return "taken"
        key = self.table.session(party).identity.public
        reason = take_lost_statement(self.table.session(owner), key, step.tell)
        return "" if reason else "taken"

    def _listening(self, step: Attempt, now: float) -> int:
        """The party whose pageone listens at ``step.target``, or -1: nobody, or one no longer
        running (gone, or its table over for it: ``pageone`` exits then)."""
        party = 0 if step.target == HOST_ADDRESS else self.table.at_endpoint(step.target)
        if party < 0:
            return -1
        session = self.table.session(party)
        over = session.ended or (session.game_over and (
            party in self.table.hosts or self.table.client(party).finished(now)))
        return -1 if self.table.gone(party) or over else party

    def _open(self, party: int, expect: bytes, now: float, host: int = 0) -> int:
        conn, self.next_conn = self.next_conn, self.next_conn + 1
        self.party_at[conn] = party
        if host:
            self.host_at[conn] = host
        self.host_open.add(conn)
        self.table.replace_client(party, Client(self.table.session(party), now, SILENT_AFTER,
                                                expect=expect))
        self.table.open_up(party, conn)
        return conn


class Table(Protocol):
    """What ``Links`` needs of the simulated table (``world.SimTable`` is one)."""

    players: int
    hosts: dict[int, Any]  # party -> its sequencer: the first host's, and each new host's

    def session(self, party: int) -> PeerSession: ...
    def client(self, party: int) -> Client: ...
    def stopped(self, index: int, now: float) -> bool: ...
    def gone(self, index: int) -> bool: ...
    def at_endpoint(self, address: Address) -> int: ...
    def replace_client(self, party: int, client: Client) -> None: ...
    def send_up(self, party: int, conn: int, data: bytes) -> None: ...
    def open_up(self, party: int, conn: int) -> None: ...
    def close_up(self, party: int, conn: int) -> None: ...
    def take_over(self, party: int, now: float) -> None: ...
