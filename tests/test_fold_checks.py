"""Admission and the fold ask the same check of each entry kind (session/fold/apply.py). These
are the refusals that changed when they were made one: each an entry an honest sequencer refuses
and a dishonest one appends anyway, which every peer's fold now refuses too, naming the host (its
author may have sealed it before the log moved on). And the host's notices are a queue: an expel
no longer takes the place of a notice said before it."""

from __future__ import annotations

from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession

from .cheats import audit_of
from .test_reconnect import MemorySeeds, drop, mid_hand, table


def sealed(peer: PeerSession, kind: str, data: dict[str, object],
           log: PeerSession | None = None) -> bytes:
    """Signed by ``peer``, at its next place in ``log``'s chain (its own, by default)."""
    view = log or peer
    assert view.chain is not None
    return seal(peer.identity, view.table_id, view.hand, view.chain.next_seq(peer.identity.public),
                view.chain.head, kind, data)


def waiting_lobby() -> MemoryTable:
    """Three seats taken; seat 2 sat down and went silent, so it is never ready."""
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=7)
    while len(t.sessions[0].keys) < 3:
        assert t.step()
    t.kill(2)
    while t.step():
        pass
    return t


def appended_anyway(t: MemoryTable, raw: bytes) -> None:
    """A dishonest host appends what admission refused."""
    t.sequencer._append(open_envelope(raw), t.now)
    while t.step():
        pass


def test_a_second_ready_in_the_log_names_the_host_not_its_author() -> None:
    t = waiting_lobby()
    host, p1 = t.sessions[0], t.sessions[1]
    again = sealed(p1, "ready", {})
    assert host.admissible(open_envelope(again)) == "ready is said once, when every seat is taken"
    appended_anyway(t, again)
    assert p1.ended.startswith("p0 (seat 0"), p1.ended
    assert "must refuse (ready is said once" in p1.ended and "not to blame" in p1.ended


def test_a_coin_commitment_out_of_its_turn_names_the_host_not_its_author() -> None:
    t = waiting_lobby()
    host, p1 = t.sessions[0], t.sessions[1]
    early = sealed(p1, "coin_commit", {"commit": bytes(32)})
    assert host.admissible(open_envelope(early)) == (
        "a coin commitment comes once, when every player is ready")
    appended_anyway(t, early)
    assert p1.ended.startswith("p0 (seat 0") and "coin commitment comes once" in p1.ended


def test_an_expel_from_a_joiner_is_refused_by_admission() -> None:
    t = waiting_lobby()
    host, p1 = t.sessions[0], t.sessions[1]
    expel = sealed(p1, "expel", {"seat": 0, "reason": "made up", "evidence": b"x"})
    assert host.admissible(open_envelope(expel)) == "only the host may send expel"


def test_a_message_from_an_away_seat_names_the_host() -> None:
    t = table(MemorySeeds(), seed=21)
    mid_hand(t, 2)
    host, third, victim = t.sessions[0], t.sessions[1], t.sessions[2]
    drop(t, 2)
    assert 2 in host.away
    stale = sealed(victim, "say", {"text": "still here?"}, log=host)
    assert host.admissible(open_envelope(stale)) == (
        "that seat is away: its first message on its return is back")
    appended_anyway(t, stale)
    assert third.ended.startswith("p0 (seat 0") and "that seat is away" in third.ended
    report = audit_of(third)
    assert report.fault is not None and report.fault.seat == 0, report.fault


def test_a_hello_to_a_full_lobby_names_the_host() -> None:
    t = waiting_lobby()
    host, p1 = t.sessions[0], t.sessions[1]
    twin = sealed(p1, "hello", {"name": "p1", "proto": 6, "client": "pageone", "endpoint": ""})
    assert host.admissible(open_envelope(twin)) == (
        "this identity is already at the table: each user sits once")
    appended_anyway(t, twin)
    assert p1.ended.startswith("p0 (seat 0") and "each user sits once" in p1.ended


def test_an_expel_queues_behind_a_notice_said_before_it() -> None:
    t = table(MemorySeeds(), seed=21)
    mid_hand(t, 2)
    host = t.sessions[0]
    host.in_flight = b"held"  # nothing is sealed while this is out
    timeout = ("timeout", {"seat": 2, "waited_for": "its move"})
    host.notify(*timeout)
    expel = ("expel", {"seat": 1, "reason": "bad keys", "evidence": b"..."})
    host.notify(*expel)
    assert list(host.outbox.notices) == [timeout, expel] and host.expelling(1)
