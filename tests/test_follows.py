"""A successor's listener says which host its seat follows now (`follows`, protocol/SPEC.md §7,
"Failover"), and a seat whose `lost` statement that successor holds follows it there: a
failover search found six honest seats where the early ones handed their statements to the
second successor, which then joined the first's late takeover, and they never learnt where
the table went."""

from __future__ import annotations

from p2p_pageone.session.attachment import intro_answer
from p2p_pageone.session.client import Client
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.session.reattach import TAKE_OVER_WITHIN, Attempt, Reattach, Wait
from p2p_pageone.wire.codec import frame, pack, unpack

from .test_reattach import CLOSED, _dropped, _endpoint, _mid_hand, _tell, _told_seat_1


def test_a_listener_names_the_host_its_seat_follows_only_while_one_answers_it() -> None:
    t = _mid_hand()
    joiner = t.sessions[2]
    word = unpack(intro_answer(joiner)[4:])
    assert word == {"control": "follows", "host": joiner.host_key}
    assert intro_answer(t.sessions[0]) == b""  # the host itself says nothing
    joiner.attachment.may_resume = True
    joiner.lost_host(CLOSED)  # in a drop: it follows no host now
    assert intro_answer(joiner) == b""


def test_a_joiner_hears_the_word_on_its_connection_and_forgets_it_on_the_next() -> None:
    t = _mid_hand()
    session = t.sessions[3]
    Client(session, t.now).receive(frame(pack({"control": "follows",
                                              "host": session.keys[1]})), t.now)
    assert session.attachment.follows == session.keys[1] and not session.ended
    session.attachment.may_resume = True
    session.lost_host(CLOSED)
    session.resume()
    assert session.attachment.follows == b""


def _hand_statement_to_seat_2(t: MemoryTable) -> tuple[PeerSession, Reattach, float]:
    """Seat 3 lost the host, seat 1 sat on its statement 24 s (passed), and seat 2 took it."""
    session, reattach = _dropped(t, 3)
    _told_seat_1(session, reattach)
    now = 1.0 + TAKE_OVER_WITHIN
    for _ in range(8):
        step = reattach.next_step(True, now)
        if isinstance(step, Attempt) and step.tell:
            break
        now += 0.25
    assert step == _tell(session, 2)
    reattach.told_lost(step, "taken", now)
    session.lost_host(CLOSED)
    reattach.attempted(step, "", now)
    session.resume()
    return session, reattach, now


def _targets(session: PeerSession, reattach: Reattach, start: float, word: bytes,
             span: float = 20.0) -> list[object]:
    """Where the next ``span`` seconds of attempts go, each one at seat 2's listener answered
    ``word`` (seat 2 took our statement less than 24 s before: it is not passed)."""
    targets: list[object] = []
    now = start
    while now < start + span:
        step = reattach.next_step(True, now)
        if isinstance(step, Attempt):
            targets.append(step.target)
            if step.target == _endpoint(2) and word:
                Client(session, now).receive(word, now)
            session.lost_host(CLOSED)
            reattach.attempted(step, "", now)
            session.resume()
        else:
            assert isinstance(step, Wait), step
        now += 0.5
    return targets


def test_a_seat_follows_the_holder_of_its_statement_to_the_host_it_joined() -> None:
    t = _mid_hand(6)
    session, reattach, now = _hand_statement_to_seat_2(t)
    # seat 2, which holds our statement, says nothing: we follow it alone, never seat 1
    assert _endpoint(1) not in _targets(session, reattach, now, b"", 10.0)
    # seat 2 joined seat 1's takeover and says so: we try seat 1 (an intro alone)
    joined = frame(pack({"control": "follows", "host": session.keys[1]}))
    assert _endpoint(1) in _targets(session, reattach, now + 10.0, joined, 10.0)


def test_a_word_naming_the_host_we_lost_or_ourselves_leads_nowhere() -> None:
    for lost_host in (True, False):
        session, reattach, now = _hand_statement_to_seat_2(_mid_hand(6))
        key = session.host_key if lost_host else session.identity.public
        word = frame(pack({"control": "follows", "host": key}))
        targets = _targets(session, reattach, now, word)
        assert _endpoint(1) not in targets and _endpoint(3) not in targets
