"""A first successor that is the host's friend (a review found both): it takes every honest
seat's `lost` statement and sits on them. The honest seats pass it by after 24 s and the next
successor takes over with their statements; a passed successor is tried again (it may have
taken over late, rightly), but only in the host's turn (never the next successor's, which
must get the statements: else nobody took over while the host's machine took 5 s a try) and
only by a seat that stands next itself (else the friend, taking over the moment after the next
one did, drew a seat from that table onto its own: two histories, nobody named)."""

from __future__ import annotations

from typing import Any

import pytest

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.audit.compare import compare
from p2p_pageone.crypto.statements import seal_statement
from p2p_pageone.session.handover import take_lost_statement
from p2p_pageone.wire.codec import frame

from .test_late_takeover import LateTakeover, Line, assert_one_history

FRIEND = 1
NEVER = 1e9


class FriendNextInLine(LateTakeover):
    """Seat 1 is the dead host's friend: it never takes over on its own. Once honest seats
    pass it by, it hands its own statement to seat 2; it takes over ``delay`` s after seat 2
    does (-1: as soon as seat 2 holds a majority)."""

    def __init__(self, players: int, delay: float, slow: dict[int, float] | None = None,
                 fast_host: bool = False) -> None:
        super().__init__(players, slow or {}, fast_host=fast_host)
        self.delay, self.gave, self.next_at = delay, False, -1.0

    def attempt(self, p: int, line: Line, now: float) -> None:
        if p != FRIEND:
            super().attempt(p, line, now)
            if p in self.seqs and self.next_at < 0:
                self.next_at = now
            return
        line.reattach.next_step(True, now)  # it keeps its own books, and waits
        line.waiting, line.retry_at = True, now + 0.25

    def before(self, now: float) -> None:
        friend = self.s[FRIEND]
        if friend.attachment.dropped and friend.identity.public not in friend.attachment.lost:
            friend.sign_lost("the host went silent")
        own = friend.lost_for(self.s[2].identity.public)  # signed for seat 2's use: it cedes
        passed = any(self.lines[p].reattach.route.failed for p in self.lines if p != FRIEND)
        if own and passed and not self.gave:
            self.gave = not take_lost_statement(self.s[2], friend.identity.public, own)
        if self.delay < 0:
            due = self.s[2].lost_majority()
        else:
            due = self.next_at >= 0 and now >= self.next_at + self.delay
        if FRIEND not in self.seqs and due and friend.lost_majority():
            self.take_over(FRIEND, now)


def _one_history(table: LateTakeover) -> list[int]:
    honest = [p for p in table.lines if p != FRIEND]
    assert_one_history(table, honest)
    return honest


def test_the_next_successor_gets_the_statements_though_the_host_is_slow_to_refuse() -> None:
    table = FriendNextInLine(5, NEVER)
    table.run(limit=600.0)
    assert 2 in table.seqs
    for p in _one_history(table):
        assert table.s[p].seat_of(table.s[p].host_key) == 2 and not table.s[p].ended


@pytest.mark.parametrize(("delay", "slow"), [(0.0, {}), (3.0, {})])
def test_a_friend_that_takes_over_just_after_the_next_one_draws_nobody_away(
        delay: float, slow: dict[int, float]) -> None:
    table = FriendNextInLine(5, delay, slow, fast_host=True)
    table.run(limit=600.0)
    assert 2 in table.seqs
    for p in _one_history(table):
        assert table.s[p].seat_of(table.s[p].host_key) == 2, (p, table.s[p].ended)


def test_a_friend_that_ceded_and_took_over_is_named_by_the_logs() -> None:
    # (SPEC §8, two takeovers) the friend takes over the instant seat 2 does, and keeps seat
    # 4, which noticed the host late and still holds it as its successor: two tables. Seat 2's
    # takeover carries the friend's own statement naming seat 2, so the friend ceded the table
    # and took it over all the same: comparing the logs names it
    table = FriendNextInLine(5, -1.0, {4: 20.0}, fast_host=True)
    table.run(limit=600.0)
    assert {2, FRIEND} <= set(table.seqs)
    logs = [list(table.s[p].log) for p in (2, 4)]
    audits = [audit_bytes(b"".join(frame(raw) for raw in log)) for log in logs]
    result = compare(["p2", "p4"], logs, audits)
    assert result.relation == "fork" and result.host_seat == FRIEND and result.signed, result.text
    assert "ceded the table and took it over all the same" in result.text


class OneAheadFriend(FriendNextInLine):
    """(review helper-24) The host sequenced one more entry, the friend's own, and sent it to
    the friend alone, which serves it to nobody: the friend cedes to seat 2 at seat 2's own
    position and takes over one entry later, so the two logs part before either takeover."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.one_more_entry_for(FRIEND)

    def _mesh(self, now: float) -> bool:
        self.s[FRIEND].outbox.direct_out.clear()  # it serves nobody its longer log
        return super()._mesh(now)

    def before(self, now: float) -> None:
        friend, two = self.s[FRIEND], self.s[2]
        if friend.attachment.dropped and friend.identity.public not in friend.attachment.lost:
            friend.sign_lost("the host went silent")
        passed = any(self.lines[p].reattach.route.failed for p in self.lines if p != FRIEND)
        if passed and not self.gave and two.chain is not None:
            word = seal_statement(friend.identity, "lost", {
                "table": two.table_id, "host": two.host_key, "index": two.chain.length,
                "head": two.chain.head, "why": "the host went silent",
                "for": two.identity.public})
            self.gave = not take_lost_statement(two, friend.identity.public, word)
        if FRIEND not in self.seqs and two.lost_majority() and friend.lost_majority():
            self.take_over(FRIEND, now)


def test_a_friend_that_ceded_and_took_over_one_entry_later_is_named_too() -> None:
    table = OneAheadFriend(5, -1.0, {4: 20.0}, fast_host=True)
    assert len(table.s[FRIEND].log) == len(table.s[2].log) + 1
    table.run(limit=600.0)
    logs = [list(table.s[p].log) for p in (2, 4)]
    audits = [audit_bytes(b"".join(frame(raw) for raw in log)) for log in logs]
    assert [audit.fault for audit in audits] == [None, None]
    result = compare(["p2", "p4"], logs, audits)
    assert result.relation == "fork" and result.host_seat == FRIEND and result.signed, result.text


@pytest.mark.parametrize("stops_at", [42.0, 50.0])
def test_a_first_successor_cut_from_two_seats_that_then_stops_leaves_nobody_behind(
        stops_at: float) -> None:
    # honest: seat 1 cannot reach seats 4 and 5, holds the early statements and stops after
    # the others passed it by; seat 3 must still reach seat 2 with its statement
    table = LateTakeover(6, {}, stop={1: stops_at}, cut=((1, 4), (1, 5)))
    table.run(limit=600.0)
    assert 2 in table.seqs
    for p in (2, 3, 4, 5):
        session = table.s[p]
        assert session.game_over and not session.ended, (p, session.ended)
        assert session.seat_of(session.host_key) == 2


def test_the_window_waits_for_a_next_successor_that_noticed_late() -> None:
    # (a review found it) the friend sits on the statements and seat 2 notices the host's loss
    # 40 s late: the others' 60 s windows closed before it took over (each now lasts until the
    # successor that took its statement last had its time). A friend that answers every
    # statement "the host still answers here" (the host serves it alone) is passed only after
    # 75 s: passing a successor that refuses at 24 s also passed an honest one that noticed
    # the host's loss 30 s after the others, and broke a late takeover (below: one that keeps
    # refusing longer than an honest one can)
    table = FriendNextInLine(5, NEVER, {2: 40.0})
    table.run(limit=1500.0)
    assert 2 in table.seqs
    for p in _one_history(table):
        session = table.s[p]
        assert session.game_over and not session.ended, (p, session.ended)


class ServedAlone(LateTakeover):
    """The host still serves seat 1, its friend next in line, and nobody else: seat 1 answers
    every statement "the host still answers here" (true) and never loses the host."""

    def __init__(self, players: int) -> None:
        super().__init__(players, {})
        self.lines[FRIEND].over = True  # attached to the host for good: it never tries anything


@pytest.mark.parametrize("players", [5, 6])
def test_a_friend_the_host_serves_alone_is_passed_once_no_honest_successor_would_refuse(
        players: int) -> None:
    # (a review found it) the friend's refusals are true, so they were never a reason to pass
    # it, and the table waited for good; an honest successor notices a silent host within its
    # link's longest silence threshold and one try, so one that refuses longer is passed
    table = ServedAlone(players)
    table.run(limit=900.0)
    assert 2 in table.seqs
    others = list(range(2, players))
    assert_one_history(table, others)
    for p in others:
        session = table.s[p]
        assert session.game_over and not session.ended, (p, session.ended)
        assert session.seat_of(session.host_key) == 2
