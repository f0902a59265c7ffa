"""A takeover that comes late (a review found it): the host's machine goes off mid-hand and a
seat on a slow link notices 30-40 s after the others, so the first successor holds the early
seats' `lost` statements for more than the 24 s after which they pass it by. It still takes the
table over once the late statement is in, a legitimate majority, and every seat must join it:
one that passed it by tries it again (an intro alone), since nothing else may show it the
takeover. Real sessions, clients, sequencer and `Reattach` in memory, the mesh between the
listening seats, a takeover run as `net/joiner` runs it; no sockets."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.engine import make_settings
from p2p_pageone.session.attachment import intro_answer
from p2p_pageone.session.client import Client
from p2p_pageone.session.common import parse_endpoint
from p2p_pageone.session.handover import start_takeover, take_lost_statement
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.reattach import (
    Attempt,
    Finished,
    Reattach,
    Retry,
    Stopped,
    TakeOver,
    Wait,
    could_not_connect,
)
from p2p_pageone.session.route import Address
from p2p_pageone.session.sequencer import Sequencer
from p2p_pageone.wire.codec import frame

from .test_takeover_attacks import run_until

HOST = ("127.0.0.1", 7000)
CONNECT_TIMEOUT = 5.0  # a try at the dead host's machine costs this much
DT = 0.25
STOPPED = "its pageone stopped"


@dataclass
class Line:
    reattach: Reattach
    step: Attempt
    client: Client | None
    conn: int = -1  # the connection to the new host (-1: the old one, or none)
    retry_at: float = -1.0
    over: bool = False
    waiting: bool = False


def assert_one_history(table: LateTakeover, seats: list[int]) -> None:
    """Every log of ``seats`` audits clean, and each is a prefix of the others or they agree."""
    for p in seats:
        log = list(table.s[p].log)
        assert audit_bytes(b"".join(frame(raw) for raw in log)).fault is None
        for q in seats:
            other = list(table.s[q].log)
            shared = min(len(log), len(other))
            assert log[:shared] == other[:shared], f"seats {p} and {q} hold two histories"


class LateTakeover:
    """The table after its host's machine went off: each joiner follows its ``Reattach``.
    ``cut``: pairs of seats whose link is down; ``fast_host``: the old host's address refuses
    at once (else a try at it costs ``CONNECT_TIMEOUT``). Every seat that takes over runs a
    sequencer of its own (``seqs``); ``host`` is the first."""

    def __init__(self, players: int, slow: dict[int, float],
                 stop: dict[int, float] | None = None, seed: int = 5,
                 cut: tuple[tuple[int, int], ...] = (), fast_host: bool = False) -> None:
        self.stop = stop or {}  # seat -> its pageone stops this long after the host's
        self.cut, self.fast_host = {frozenset(pair) for pair in cut}, fast_host
        t = self.table = MemoryTable(make_settings("classic", {"deals": 2}), players,
                                     seed=seed, direct=True)
        s = self.s = t.sessions
        run_until(t, lambda: s[1].game is not None and s[1].game.deal.moves >= 3)
        out, t.sequencer.out = t.sequencer.out, []
        for conn, data in out:
            t.clients[conn - 1].receive(data, t.now)
        self.start = t.now
        self.seqs: dict[int, Sequencer] = {}
        self.host, self.next_conn = -1, 100
        self.at: dict[int, tuple[int, int]] = {}  # connection -> (its joiner, its new host)
        self.lines: dict[int, Line] = {}
        for p in range(1, players):
            reattach = Reattach(s[p], HOST, 60.0)
            first = reattach.next_step(True, self.start)
            assert isinstance(first, Attempt)
            client = t.clients[p - 1]
            client.silent_after = slow.get(p, 10.0)
            self.lines[p] = Line(reattach, first, client)

    def owner_of(self, address: Address) -> int:
        if address == HOST:
            return 0
        return next((p for p in self.lines
                     if parse_endpoint(self.s[p].attachment.endpoint) == address), -1)

    def linked(self, a: int, b: int) -> bool:
        return frozenset((a, b)) not in self.cut

    def pump(self, now: float) -> None:
        for _ in range(50):
            if not (self._from_new_host(now) | self._to_new_host(now) | self._mesh(now)):
                return

    def _line_at(self, conn: int) -> Line | None:
        line = self.lines.get(self.at.get(conn, (-1, -1))[0])
        return line if line is not None and line.conn == conn and line.client else None

    def _from_new_host(self, now: float) -> bool:
        moved = False
        for seq in self.seqs.values():
            out, seq.out = seq.out, []
            for conn, data in out:
                if (line := self._line_at(conn)) is not None and line.client is not None:
                    line.client.receive(data, now)
                    moved = True
            for conn in seq.to_close:
                if (line := self._line_at(conn)) is not None and line.client is not None:
                    line.client.gone = True
                    line.client.closed()
            seq.to_close.clear()
        return moved

    def _to_new_host(self, now: float) -> bool:
        moved = False
        for line in self.lines.values():
            if line.client is not None:
                chunks, line.client.out = line.client.out, []
                seq = self.seqs.get(self.at.get(line.conn, (-1, -1))[1])
                if seq is not None and line.conn in seq.links:
                    for chunk in chunks:
                        seq.receive(line.conn, chunk, now)
                        moved = True
        return moved

    def _mesh(self, now: float) -> bool:
        moved = False
        for p in self.lines:
            sent, self.s[p].outbox.direct_out = self.s[p].outbox.direct_out, []
            for endpoint, raw in sent:
                q = self.owner_of(parse_endpoint(endpoint) or HOST)
                if q > 0 and not self.s[q].ended and self.linked(p, q):
                    self.s[q].direct(raw, now)
                    if (client := self.lines[q].client) is not None:
                        client.collect()
                    moved = True
        return moved

    def after(self, line: Line, result: Retry | Finished | Stopped, now: float,
              extra: float = 0.0) -> None:
        if isinstance(result, Retry):
            line.retry_at = now + result.pause + extra
        else:
            line.over = True

    def take_over(self, p: int, now: float) -> None:
        start_takeover(self.s[p])
        self.seqs[p], self.lines[p].over = Sequencer(self.s[p], now), True
        self.host = p if self.host < 0 else self.host

    def attempt(self, p: int, line: Line, now: float) -> None:
        session, reattach = self.s[p], line.reattach
        step = reattach.next_step(True, now)
        line.waiting = isinstance(step, Wait)
        if isinstance(step, Wait):
            line.retry_at = now + step.pause
            return
        if isinstance(step, TakeOver):
            self.take_over(p, now)
            return
        line.step, owner = step, self.owner_of(step.target)
        if step.tell:
            reattach.told_lost(step, self._tell(p, owner, step), now)
        if owner > 0 and self.stopped(owner):  # its machine is on, nothing listens there
            outcome = could_not_connect(session, step.target, True, "Connection refused")
            self.after(line, reattach.attempted(step, outcome, now), now)
        elif owner == 0 or not self.linked(p, owner):  # the try times out (or is refused)
            refused = owner == 0 and self.fast_host
            outcome = could_not_connect(session, step.target, refused, "")
            self.after(line, reattach.attempted(step, outcome, now), now,
                       0.0 if refused else CONNECT_TIMEOUT)
        elif owner in self.seqs:
            self.next_conn += 1
            self.at[self.next_conn], line.conn = (p, owner), self.next_conn
            line.client = Client(session, now, 10.0, expect=reattach.expected_key(step))
            self.seqs[owner].connect(self.next_conn, now)
        else:  # its listener takes our intro and closes (it has not taken the table over),
            # saying which host its seat follows now, if one answers it
            if answer := intro_answer(self.s[owner]):
                Client(session, now, expect=reattach.expected_key(step)).receive(answer, now)
            session.lost_host("the connection to the host closed")
            self.after(line, reattach.attempted(step, "", now), now)

    def _tell(self, p: int, owner: int, step: Attempt) -> str:
        if owner <= 0 or not self.linked(p, owner):
            return "unreachable"
        if self.stopped(owner):
            return "refused"
        if owner in self.seqs:
            return "taken"
        reason = take_lost_statement(self.s[owner], self.s[p].identity.public, step.tell)
        return "" if reason else "taken"

    def tick(self, p: int, line: Line, now: float) -> None:
        session = self.s[p]
        if line.client is not None:
            line.client.tick(now)
            if line.client.finished(now) or session.attachment.dropped:
                seq = self.seqs.get(self.at.get(line.conn, (-1, -1))[1])
                if seq is not None:
                    seq.disconnect(line.conn, now)
                line.client = None
                self.after(line, line.reattach.attempted(line.step, "", now), now)
        else:
            session.tick(now)
            if 0 <= line.retry_at <= now:
                line.retry_at = -1.0
                if not line.waiting:
                    session.resume()
                self.attempt(p, line, now)

    def stopped(self, p: int) -> bool:
        return self.s[p].ended == STOPPED

    def one_more_entry_for(self, p: int) -> None:
        """Seat ``p``'s envelopes out go to the old host, and what it sequences reaches ``p``
        alone: ``p``'s log is one entry ahead of the others' (the host's machine went off
        mid-broadcast, or sent that entry to its friend only)."""
        table, client = self.table, self.table.clients[p - 1]
        chunks, client.out = client.out, []
        for chunk in chunks:
            table.sequencer.receive(p, chunk, self.start)
        out, table.sequencer.out = table.sequencer.out, []
        for conn, data in out:
            if conn == p:
                client.receive(data, self.start)

    def halt(self, p: int) -> None:
        """Seat ``p``'s pageone stops: a new host's connections close with it."""
        self.lines[p].over, self.s[p].ended = True, STOPPED
        if self.seqs.pop(p, None) is None:
            return
        for conn, (_, host) in self.at.items():
            if host == p and (line := self._line_at(conn)) is not None and line.client:
                line.client.gone = True
                line.client.closed()

    def before(self, now: float) -> None:
        """What happens first at each step (a coalition seat's own doing, in a subclass)."""

    def run(self, limit: float = 400.0) -> None:
        now = self.start
        while now < self.start + limit:
            now += DT
            self.before(now)
            self.pump(now)
            for seq in list(self.seqs.values()):
                seq.tick(now)
            for p, line in self.lines.items():
                if p in self.stop and now - self.start >= self.stop[p] and not self.stopped(p):
                    self.halt(p)
                if not line.over:
                    self.tick(p, line, now)
            self.pump(now)
            if all(line.over or self.s[p].game_over or self.s[p].ended
                   for p, line in self.lines.items()):
                return


@pytest.mark.parametrize(("players", "slow"), [
    (4, {3: 40.0}), (4, {3: 30.0}), (6, {4: 40.0, 5: 40.0}), (6, {2: 40.0, 3: 40.0})])
def test_a_late_takeover_gathers_every_seat_that_passed_it_by(
        players: int, slow: dict[int, float]) -> None:
    table = LateTakeover(players, slow)
    table.run()
    assert table.host == 1  # the first successor took over
    for p in range(1, players):
        session = table.s[p]
        assert session.seat_of(session.host_key) == 1, (p, session.ended)
        assert session.game_over and not session.ended and not session.attachment.network
        assert sorted(session.active) == list(range(1, players)), p


def test_two_seats_that_never_reach_the_new_host_close_its_table_naming_nobody() -> None:
    # (a review found it) six seats: the host's machine goes off, two seats' pageones stop
    # before they reach the new host, and each is a due witness of the other's timeout: the
    # round can close neither claim (the free witnesses are fewer than half the table), and
    # the host, which timed nothing for seats kept away, let the table wait for good while
    # the others left it and came back. Now it closes the table, as for seats there
    table = LateTakeover(6, {4: 40.0, 5: 40.0}, stop={2: 30.0, 3: 30.0})
    table.run(limit=600.0)
    assert table.host == 1
    for p in (1, 4, 5):
        session = table.s[p]
        assert "half the table went silent at once" in session.ended, (p, session.ended)
        report = audit_bytes(b"".join(frame(raw) for raw in session.log))
        assert report.fault is None, report.fault


@pytest.mark.parametrize("slow", [{}, {2: 35.0, 3: 45.0}])
def test_seats_cut_from_each_other_cede_to_the_one_both_reach(slow: dict[int, float]) -> None:
    # (review helper-24, against the first ceding rule) four seats, the link between seats 1
    # and 2 cut: each of them can never gather a majority (the seats it reaches are too few),
    # so each gives its statement to seat 3 at once, which takes over
    table = LateTakeover(4, slow, cut=((1, 2),))
    table.run(limit=900.0)
    assert table.host == 3
    for p in (1, 2, 3):
        session = table.s[p]
        assert session.game_over and not session.ended, (p, session.ended)
    assert_one_history(table, [1, 2, 3])


def test_a_seat_that_reaches_the_gathering_new_host_early_keeps_its_back() -> None:
    # (a review found it) four seats, the second successor noticing the host 50 s late and the
    # link between seats 1 and 3 cut: seat 2 takes over, and seat 3 reaches it at once, 8 s
    # before the gathering ends. The new host holds its `back` until its `takeover` is in;
    # seat 3's own fold, lacking that entry, refuses a back, and after 5 s it gave the back
    # up for the keys it owed the voided hand, so it could not seal it again on the second
    # welcome, and it stopped. Now a back waits for its log
    table = LateTakeover(4, {2: 50.0}, cut=((1, 3),))
    table.run(limit=600.0)
    assert table.host == 2
    for p in (1, 2, 3):
        session = table.s[p]
        assert session.game_over and not session.ended, (p, session.ended)
        assert session.seat_of(session.host_key) == 2
    assert_one_history(table, [1, 2, 3])


def _random_failover(seed: int) -> tuple[LateTakeover, list[int]]:
    """Honest faults only, drawn from ``seed``: four to six seats, each noticing the silent
    host after 10-60 s (its link's silence threshold), and up to two pageones stopping, the
    new host's included (then the next successor takes over from it)."""
    rng = random.Random(seed)
    players = rng.choice((4, 5, 6))
    slow = {p: rng.choice((10.0, 10.0, 15.0, 25.0, 35.0, 45.0, 60.0)) for p in range(1, players)}
    stopping = rng.sample(range(1, players), rng.choice((0, 0, 1, 1, 2) if players > 4 else (0, 1)))
    stop = {p: rng.choice((5.0, 20.0, 30.0, 50.0, 80.0)) for p in stopping}
    table = LateTakeover(players, slow, stop, seed=rng.randrange(8))
    table.run(limit=900.0)
    return table, [p for p in range(1, players) if p not in stop]


@pytest.mark.parametrize("seed", [26, 0, 17, 112, 331])
def test_failovers_with_honest_faults_keep_one_table(seed: int) -> None:
    # a search over 400 such draws kept all of this (once a table held for good closes, above);
    # five run here: a new host that stops too, so the next successor takes over from it (26),
    # stops before and after the takeover (0), six seats each noticing at its own time (17), a
    # seat that stops at the takeover (112), and two early seats whose statements the second
    # successor holds when it joins the first's late takeover: its listener says where it went
    # (`follows`), and they follow (331). One history, every log audits, nobody hangs, and
    # with a majority of the listening seats still running nobody is left behind
    table, running = _random_failover(seed)
    players = len(table.lines) + 1
    sessions = [table.s[p] for p in running]
    assert all(table.lines[p].over or table.s[p].game_over or table.s[p].ended for p in running)
    assert_one_history(table, running)
    if len(running) >= players // 2 + 1:
        assert all(not s.ended or "half the table" in s.ended for s in sessions), [
            s.ended for s in sessions]
