"""A joiner's way back to its table (session/reattach.py), sans-I/O: each attempt's outcome is
passed in as a value ("refused", "unreachable", "taken", …) with the time, on a table pumped in
memory; no sockets, no sleeps."""

from __future__ import annotations

import pytest

from p2p_pageone.crypto.statements import check_proof
from p2p_pageone.engine import make_settings
from p2p_pageone.session.fold.lost import open_lost
from p2p_pageone.session.fold.obligations import BOUNDS
from p2p_pageone.session.handover import offer_lost, start_takeover, unanswered_word
from p2p_pageone.session.memory import MemoryTable, make_peer
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.session.reach import DropReach
from p2p_pageone.session.reattach import (
    CUT_FROM_HOST,
    GATHER_FOR,
    HOST_AGAIN,
    NOT_TAKEN_OVER,
    REFUSED_FOR,
    RETRY_EVERY,
    RETRY_IN_GAME,
    TAKE_OVER_WITHIN,
    Attempt,
    Finished,
    Reattach,
    Retry,
    Stopped,
    TakeOver,
    Wait,
    could_not_connect,
    host_failure,
    key_at,
    stop_retrying,
)
from p2p_pageone.session.route import Route
from p2p_pageone.wire.codec import FrameDecoder, ProtocolError, pack, unpack

from .helpers import lost_to
from .test_takeover_attacks import run_until

HOST = ("127.0.0.1", 7000)  # where the joiners first found the host
CLOSED = "the connection to the host closed"


def _mid_hand(players: int = 4) -> MemoryTable:
    """Four seats in a running hand, every one listening (seat n at 127.0.0.1:4000n), every
    joiner holding the host's whole log."""
    t = MemoryTable(make_settings("classic", {"deals": 2}), players, seed=5, direct=True)
    s = t.sessions
    run_until(t, lambda: s[1].game is not None and s[1].game.deal.moves >= 3)
    out, t.sequencer.out = t.sequencer.out, []
    for conn, data in out:
        t.clients[conn - 1].receive(data, t.now)
    return t


def _endpoint(seat: int) -> tuple[str, int]:
    return ("127.0.0.1", 40000 + seat)


def _dropped(t: MemoryTable, seat: int) -> tuple[PeerSession, Reattach]:
    """Seat ``seat`` was at the table through ``HOST`` and its connection closed at 0 s: the
    runner resumed the session for its next attempt."""
    session = t.sessions[seat]
    reattach = Reattach(session, HOST, 60.0)
    step = reattach.next_step(True, 0.0)
    assert step == Attempt(HOST, b"", True)
    session.lost_host(CLOSED)
    assert reattach.attempted(step, "", 0.0) == Retry(0.0)  # it had got in: at once
    session.resume()
    return session, reattach


def _tell(session: PeerSession, seat: int) -> Attempt:
    """The attempt that hands our statement, signed for ``seat``, to that successor."""
    return Attempt(_endpoint(seat), session.lost_for(session.keys[seat]), False,
                   _own_lost(session))


def _own_lost(session: PeerSession) -> bytes:
    return session.attachment.lost.get(session.identity.public, b"")


def _refused_by_host(session: PeerSession, reattach: Reattach, now: float) -> Retry:
    """An attempt at the host's address, refused (its pageone stopped)."""
    step = reattach.next_step(True, now)
    assert isinstance(step, Attempt) and step.target == HOST, step
    outcome = could_not_connect(session, HOST, True, "Connection refused")
    after = reattach.attempted(step, outcome, now + 0.5)
    assert isinstance(after, Retry), after
    session.resume()
    return after


# --- whether a failed connection means the host is lost (we sign it) -------------------------

def test_a_connection_to_the_host_that_answered_signs_nothing() -> None:
    t = _mid_hand()
    session = t.sessions[2]
    session.attachment.may_resume = True
    session.lost_host(CLOSED)  # it had answered our intro, and we signed nothing yet
    assert host_failure(session, True, "") == ""
    assert not session.attachment.lost


def test_a_host_that_refused_or_never_answered_is_lost_and_we_sign_so() -> None:
    for outcome, answered, said in [("refused", True, "refused"), ("", False, "unanswered")]:
        t = _mid_hand()
        session = t.sessions[2]
        session.attachment.may_resume = True
        session.lost_host(CLOSED)
        session.attachment.answered = answered
        assert host_failure(session, True, outcome) == said
        statement = open_lost(session, _own_lost(session), None)
        assert statement.data["why"] == f"{CLOSED} ({said} again)"


def test_a_host_that_answered_but_does_not_serve_us_counts_as_unanswered() -> None:
    t = _mid_hand()
    session = t.sessions[2]
    session.attachment.may_resume = True
    session.lost_host(CLOSED)
    signed = session.sign_lost("the host does not serve this table")  # we left signing that
    assert host_failure(session, True, "") == "unanswered"
    assert _own_lost(session) == signed  # the statement kept: the log did not move on


def test_a_successor_that_failed_us_is_no_evidence_against_the_host() -> None:
    t = _mid_hand()
    session = t.sessions[2]
    session.attachment.may_resume = True
    session.lost_host(CLOSED)
    assert host_failure(session, False, "refused") == "refused"
    assert not session.attachment.lost


def test_a_host_that_took_our_intro_and_said_nothing_gets_our_lost_statement() -> None:
    t = _mid_hand()
    session = t.sessions[2]
    session.attachment.may_resume = True
    session.lost_host(CLOSED)
    session.resume()
    session.lost_host("the host sent nothing for 10 s")  # no welcome on this connection
    (payload,) = FrameDecoder().feed(unanswered_word(session))
    value = unpack(payload)
    assert value["control"] == "lost" and value["proof"] == b""
    assert value["statement"] == _own_lost(session)
    why = open_lost(session, value["statement"], None).data["why"]
    assert "a new connection was not answered" in why


def test_no_lost_statement_on_a_connection_that_was_answered_or_to_a_successor() -> None:
    for answered, via_successor in [(True, False), (False, True)]:
        t = _mid_hand()
        session = t.sessions[2]
        session.attachment.may_resume = True
        session.lost_host(CLOSED)
        session.attachment.answered, session.attachment.via_successor = answered, via_successor
        assert unanswered_word(session) == b""
        assert not session.attachment.lost


def test_a_connection_that_could_not_open_says_why_and_how() -> None:
    session, _ = _dropped(_mid_hand(), 2)
    assert could_not_connect(session, HOST, True, "Connection refused") == "refused"
    assert session.attachment.dropped == "could not connect to 127.0.0.1:7000 (Connection refused)"
    assert not session.ended  # the seat may be resumed: we try again
    assert could_not_connect(session, HOST, False, "") == "unreachable"
    assert session.attachment.dropped == "could not connect to 127.0.0.1:7000 (no answer)"


# --- where the next attempt goes --------------------------------------------------------------

def test_the_host_first_with_the_host_key_expected_there() -> None:
    session, reattach = _dropped(_mid_hand(), 2)
    step = reattach.next_step(True, 0.0)
    assert step == Attempt(HOST, b"", True)
    assert reattach.expected_key(step) == session.host_key
    assert not session.attachment.via_successor


def test_our_lost_statement_goes_first_to_the_successor_and_only_once() -> None:
    t = _mid_hand()
    session, reattach = _dropped(t, 2)
    _refused_by_host(session, reattach, 0.0)
    step = reattach.next_step(True, 1.0)
    assert step == _tell(session, 1)
    assert session.attachment.via_successor
    assert reattach.expected_key(step) == t.sessions[1].identity.public
    reattach.told_lost(step, "taken", 1.0)
    session.lost_host(CLOSED)  # it did not serve the table (yet)
    assert isinstance(reattach.attempted(step, "", 1.5), Retry)
    session.resume()
    again = reattach.next_step(True, 2.0)  # the host failed and it took our statement: past
    assert again == Attempt(_endpoint(1), b"", False)  # the host, and not told twice


def test_the_host_is_tried_again_once_a_while_has_passed() -> None:
    session, reattach = _dropped(_mid_hand(), 2)
    _refused_by_host(session, reattach, 0.0)
    step = reattach.next_step(True, 1.0)
    reattach.told_lost(step, "taken", 1.0)
    session.lost_host(CLOSED)
    reattach.attempted(step, "", 1.5)
    session.resume()
    assert reattach.next_step(True, HOST_AGAIN) == Attempt(HOST, b"", True)  # it may be back


def _told_seat_1(session: PeerSession, reattach: Reattach) -> None:
    """The host refused us at 0 s, and seat 1, the first successor, took our statement at 1 s
    (it lost the host too) and then closed our intro: it has not taken the table over."""
    _refused_by_host(session, reattach, 0.0)
    step = reattach.next_step(True, 1.0)
    assert step == _tell(session, 1)
    reattach.told_lost(step, "taken", 1.0)
    session.lost_host(CLOSED)
    reattach.attempted(step, "", 1.5)
    session.resume()


def _look_at_seat_1(session: PeerSession, reattach: Reattach, now: float) -> None:
    """Seat 1's time is up: first an intro alone, to see whether it took the table over while
    we looked elsewhere; its listener closes it (it has not)."""
    step = reattach.next_step(True, now)
    assert step == Attempt(_endpoint(1), b"", False), step
    session.lost_host(CLOSED)
    reattach.attempted(step, "", now)
    session.resume()


def test_a_successor_that_took_our_statement_and_never_took_over_is_passed() -> None:
    # a host's friend next in line takes every seat's statement and sits on them: once it has
    # had them for the time a takeover takes, it failed us as a successor, and the next one in
    # line (at five seats, we: with the other two honest seats' statements we take over)
    t = _mid_hand(5)
    session, reattach = _dropped(t, 2)
    _told_seat_1(session, reattach)
    later = 1.0 + TAKE_OVER_WITHIN
    for seat in (3, 4):
        assert session.take_lost(lost_to(t.sessions[seat], session, "the host went silent")) is None
    assert not isinstance(reattach.next_step(True, later - 0.5), TakeOver)
    _look_at_seat_1(session, reattach, later)
    assert isinstance(reattach.next_step(True, later), TakeOver)
    assert reattach.route.failed[_endpoint(1)] == "idle"


def test_our_statement_goes_past_a_successor_that_sat_on_it_to_the_next() -> None:
    t = _mid_hand()
    session, reattach = _dropped(t, 2)
    _told_seat_1(session, reattach)
    later = 1.0 + TAKE_OVER_WITHIN
    _look_at_seat_1(session, reattach, later)
    steps = [reattach.next_step(True, later + n) for n in range(3)]
    # we stand next, with no majority: an intro alone to seat 3 while we may yet take over
    assert Attempt(_endpoint(3), b"", False) in steps and _tell(session, 3) not in steps
    # it may yet take over (a majority that formed late): an intro alone, once per 5 s
    assert steps.count(Attempt(_endpoint(1), b"", False)) == 1
    # seat 3 holds statements naming it that make a majority with ours: we cede, seat 3 gets
    # our statement, and we never take over from this host
    third, first = t.sessions[3], t.sessions[1]
    third.sign_lost("the host went silent")
    reattach.holds[third.identity.public] = [third.attachment.lost[third.identity.public],
                                    lost_to(first, third, "the host went silent")]
    steps = [reattach.next_step(True, later + 3 + n) for n in range(3)]
    assert _tell(session, 3) in steps and reattach.route.ceded == session.host_key


def test_a_successor_that_sits_on_our_statement_still_counts_as_heard() -> None:
    # two seats cut from a host that still serves the rest hold each other's statements and
    # neither has a majority: while the game goes on (the third seat's log grows), each one's
    # talk still shows the other that its seat is at the table, so neither gives up; once the
    # table stands still, a successor that sat on our statement keeps nothing open
    t = _mid_hand()
    session, reattach = _dropped(t, 2)
    _told_seat_1(session, reattach)
    now = 100.0 + TAKE_OVER_WITHIN
    for seat in (1, 3):
        session.mesh.heard_from[session.keys[seat]] = now
    session.mesh.table_moved_at = now - 1.0
    _look_at_seat_1(session, reattach, now)
    step = reattach.next_step(True, now)
    assert reattach.route.failed[_endpoint(1)] == "idle"
    session.lost_host(CLOSED)
    assert isinstance(reattach.attempted(step, "", now), Retry)
    session.resume()
    later = now + BOUNDS.give_up
    for seat in (1, 3):
        session.mesh.heard_from[session.keys[seat]] = later
    step = reattach.next_step(True, later)
    session.lost_host(CLOSED)
    assert reattach.attempted(step, "", later) == Stopped()
    assert any(NOT_TAKEN_OVER in e.text for e in session.take_events())


def test_a_successor_whose_time_is_up_is_looked_at_before_it_is_passed() -> None:
    # (the simulator found it) we were on a connection to the host that kept us waiting while
    # seat 1 took the table over: on the clock alone we passed it, handed our statement on
    # and the next one took over as well (two tables). An intro first: if it took over, we
    # are in
    t = _mid_hand()
    session, reattach = _dropped(t, 2)
    _told_seat_1(session, reattach)
    step = reattach.next_step(True, 1.0 + TAKE_OVER_WITHIN + 20.0)
    assert step == Attempt(_endpoint(1), b"", False)
    assert _endpoint(1) not in reattach.route.failed


def test_a_successor_that_took_over_is_the_host_and_never_idle() -> None:
    t = _mid_hand()
    session, reattach = _dropped(t, 2)
    _told_seat_1(session, reattach)
    session.host_key = session.keys[1]  # the others serve us its takeover
    session.endpoints[session.keys[1]] = "127.0.0.1:40001"
    step = reattach.next_step(True, 1.0 + TAKE_OVER_WITHIN)
    assert _endpoint(1) not in reattach.route.failed
    assert isinstance(step, Attempt) and step.target == _endpoint(1) and step.to_host


@pytest.mark.parametrize("outcome", ["", "refused"])
def test_a_successor_that_did_not_take_our_statement_is_told_again(outcome: str) -> None:
    session, reattach = _dropped(_mid_hand(), 3)
    _refused_by_host(session, reattach, 0.0)
    step = reattach.next_step(True, 1.0)
    assert isinstance(step, Attempt) and step.tell
    reattach.told_lost(step, outcome, 1.0)  # it said why not, or nothing listens there
    assert reattach.route.failed.get(_endpoint(1), "") == outcome
    assert reattach.told[_endpoint(1)] == b""
    reattach.route.note(_endpoint(1), "")  # later it serves again, and the route is back
    reattach.route.last = HOST  # at it after a try of the host
    assert reattach.next_step(True, 2.0) == _tell(session, 1)


def test_a_successor_with_nothing_to_hand_over_is_noted_as_told_nothing() -> None:
    _, reattach = _dropped(_mid_hand(), 2)
    reattach.route.note(HOST, "refused")  # a host's refusal, while the seat signs nothing
    reattach.route.last = HOST
    step = reattach.next_step(True, 1.0)
    assert step == Attempt(_endpoint(1), b"", False)
    assert reattach.told == {_endpoint(1): b""}


def test_a_majority_lost_and_we_are_next_we_take_over() -> None:
    t = _mid_hand()
    session, reattach = _dropped(t, 1)
    _refused_by_host(session, reattach, 0.0)
    for other in t.sessions[2:]:
        assert session.take_lost(lost_to(other, session, "the host went silent")) is None
    assert isinstance(reattach.next_step(True, 1.0), TakeOver)
    start_takeover(session)
    assert session.attachment.taking_over == 0
    (event,) = [e for e in session.take_events() if e.kind == "takeover"]
    assert event.text.startswith("3 of the 4 seats that listen lost ")
    assert event.text.endswith("a majority: this pageone takes the table over, and the others "
                               "reconnect to it…")


def test_no_listener_no_takeover_the_next_seat_gets_our_statement() -> None:
    t = _mid_hand()
    session, reattach = _dropped(t, 1)
    _refused_by_host(session, reattach, 0.0)
    for other in t.sessions[2:]:
        session.take_lost(lost_to(other, session, "the host went silent"))
    step = reattach.next_step(False, 1.0)
    assert step == _tell(session, 2)


def test_without_a_majority_the_successor_does_not_take_over() -> None:
    session, reattach = _dropped(_mid_hand(), 1)
    _refused_by_host(session, reattach, 0.0)
    step = reattach.next_step(True, 1.0)
    assert isinstance(step, Attempt) and step.target == _endpoint(2)


def test_the_key_that_announced_an_endpoint_must_answer_there() -> None:
    t = _mid_hand()
    session = t.sessions[2]
    assert key_at(session, _endpoint(3)) == t.sessions[3].identity.public
    assert key_at(session, ("127.0.0.9", 1)) == b"" and key_at(session, None) == b""


# --- handing our statement over -----------------------------------------------------------

def test_our_statement_goes_only_to_the_key_that_announced_the_listener() -> None:
    t = _mid_hand()
    session, successor = t.sessions[2], t.sessions[1]
    statement = session.sign_lost("the host went silent")
    nonce = bytes(range(16))
    challenge = pack({"control": "challenge", "nonce": nonce, "from": successor.identity.public})
    (payload,) = FrameDecoder().feed(offer_lost(session, statement, challenge,
                                                successor.identity.public))
    value = unpack(payload)
    assert value["control"] == "lost" and value["statement"] == statement
    assert check_proof(value["proof"], session.identity.public, nonce,
                       successor.identity.public, "lost") is None
    assert offer_lost(session, statement, challenge, t.sessions[3].identity.public) == b""
    with pytest.raises(ProtocolError):
        offer_lost(session, statement, pack({"control": "intro"}), b"")


# --- the next try, and the end of the retry window --------------------------------------------

def test_the_pause_before_the_next_try() -> None:
    lobby = make_peer("e", "e")
    reattach = Reattach(lobby, HOST, 60.0)
    step = reattach.next_step(False, 0.0)
    lobby.attachment.dropped = CLOSED
    assert reattach.attempted(step, "", 0.0) == Retry(RETRY_EVERY)  # a busy door
    session, reattach = _dropped(_mid_hand(), 2)  # it had got in: at once (in _dropped)
    assert _refused_by_host(session, reattach, 0.0) == Retry(RETRY_IN_GAME)
    step = reattach.next_step(True, 1.0)
    session.lost_host(CLOSED)
    session.attachment.log_read = True  # in again, and dropped again
    assert reattach.attempted(step, "", 1.0) == Retry(0.0)
    step = reattach.next_step(True, 1.0)
    session.lost_host(CLOSED)
    session.attachment.log_read = True  # once more in a row: not at once twice
    assert reattach.attempted(step, "", 1.0) == Retry(RETRY_IN_GAME)


def test_a_connection_that_ends_the_game_or_leaves_the_table_ends_the_tries() -> None:
    t = _mid_hand()
    session = t.sessions[2]
    reattach = Reattach(session, HOST, 60.0)
    step = reattach.next_step(True, 0.0)
    assert reattach.attempted(step, "", 0.0) == Finished()  # not dropped: over, or left
    assert session.attachment.may_resume


def test_getting_back_in_gives_the_next_drop_a_whole_window() -> None:
    session, reattach = _dropped(_mid_hand(), 2)
    _refused_by_host(session, reattach, 0.0)
    assert reattach.route.failed and session.attachment.lost
    step = reattach.next_step(True, 50.0)
    session.lost_host(CLOSED)
    session.attachment.log_read = True  # back at the table, until it dropped again at 50 s
    session.attachment.lost.clear()  # as its ``back`` in the log clears it: old news
    reattach.attempted(step, "", 50.0)
    assert not reattach.route.failed and not session.attachment.lost
    session.resume()
    assert isinstance(_refused_by_host(session, reattach, 100.0), Retry)  # past 0 + 60 s
    step = reattach.next_step(True, 111.0)
    session.lost_host(CLOSED)
    assert reattach.attempted(step, "refused", 111.0) == Stopped()  # past 50 + 60 s


def test_the_window_over_with_nobody_reached_is_this_machines_network() -> None:
    session, reattach = _dropped(_mid_hand(), 2)
    step = reattach.next_step(True, 0.0)
    session.lost_host(CLOSED)
    reattach.attempted(step, "unreachable", 1.0)
    session.resume()
    step = reattach.next_step(True, 1.25)
    assert isinstance(step, Attempt) and step.target == _endpoint(1)
    reattach.told_lost(step, "unreachable", 1.25)
    outcome = could_not_connect(session, step.target, False, "")
    assert reattach.attempted(step, outcome, 61.0) == Stopped()
    assert session.local_network and not session.attachment.may_resume
    assert session.ended.startswith("left the table: could not reach the host or any other "
                                    "player for 60 s")


def test_the_window_over_when_the_host_alone_failed_is_the_host_lost() -> None:
    t = _mid_hand()
    session = t.sessions[2]
    session.attachment.may_resume = True
    session.lost_host(CLOSED)
    route, reach = Route(HOST), DropReach()
    route.note(HOST, "unreachable")
    reach.note(HOST, "unreachable")  # the host alone is no evidence against our network
    stop_retrying(session, route, reach, 60.0)
    assert CLOSED in session.ended and not session.attachment.network
    assert not session.local_network


def test_the_window_over_when_only_we_lost_the_host_names_nobody() -> None:
    t = _mid_hand()
    session = t.sessions[2]
    session.attachment.may_resume = True
    session.lost_host(CLOSED)
    session.sign_lost(CLOSED)
    route, reach = Route(HOST), DropReach()
    route.note(HOST, "refused")
    reach.note(HOST, "refused")
    reach.note(_endpoint(1), "")  # a successor answered: our network works
    stop_retrying(session, route, reach, 60.0)
    assert session.ended == CUT_FROM_HOST and session.attachment.network == CUT_FROM_HOST


def test_the_window_over_when_every_seat_refused_is_the_table_gone() -> None:
    t = _mid_hand()
    session = t.sessions[2]
    session.attachment.may_resume = True
    session.lost_host(CLOSED)
    route, reach = Route(HOST), DropReach()
    for target in (HOST, _endpoint(1), _endpoint(3)):
        route.note(target, "refused")
        reach.note(target, "refused")
    stop_retrying(session, route, reach, 60.0)
    assert session.ended.startswith("nobody of this table answers any more")
    assert session.attachment.network == session.ended


def test_every_seat_refusing_ends_the_tries_before_the_window_is_over() -> None:
    session, reattach = _dropped(_mid_hand(), 2)
    for target in (_endpoint(1), _endpoint(3)):
        reattach.route.note(target, "refused")
    step = reattach.next_step(True, 1.0)
    assert step == Attempt(HOST, b"", True)
    outcome = could_not_connect(session, HOST, True, "Connection refused")
    assert reattach.attempted(step, outcome, 2.0) == Stopped()
    assert session.ended.startswith("nobody of this table answers any more")


def test_the_window_over_while_the_others_still_hear_us_we_keep_trying() -> None:
    # a host that hangs up on us and never answers again, while the other seats that listen
    # still talk to us: our seat is still at the table (they serve us its log, and our signs of
    # life disprove the host's claim about us), so only their silence ends the tries
    session, reattach = _dropped(_mid_hand(), 2)
    for seat in (1, 3):
        session.mesh.heard_from[session.keys[seat]] = 100.0
    step = reattach.next_step(True, 100.0)
    session.lost_host(CLOSED)
    assert isinstance(reattach.attempted(step, "", 100.5), Retry)  # past 0 + 60 s
    session.resume()
    step = reattach.next_step(True, 146.0)
    session.lost_host(CLOSED)
    assert reattach.attempted(step, "", 146.0) == Stopped()  # nobody heard for 46 s


def test_the_window_over_when_those_still_heard_cannot_make_a_majority() -> None:
    # one other seat still talks to us, but the two of us are not a majority of the four
    # listening seats (the host's counted): no takeover can come, so the tries end
    session, reattach = _dropped(_mid_hand(), 2)
    session.mesh.heard_from[session.keys[1]] = 100.0
    step = reattach.next_step(True, 100.0)
    session.lost_host(CLOSED)
    assert reattach.attempted(step, "", 100.5) == Stopped()


def _left_for_not_serving(session: PeerSession, reattach: Reattach, now: float) -> Attempt:
    """On a connection that got in, ``session`` judged the host not serving the table: it
    signed that it lost the host, and the connection ended."""
    step = reattach.next_step(True, now)
    assert isinstance(step, Attempt) and step.to_host
    session.attachment.log_read = True  # it got in
    session.sign_lost("the host is not serving the table")
    session.lost_host("the host is not serving the table: this pageone follows the table")
    return step


def test_a_host_left_for_not_serving_the_table_failed_us_though_we_had_got_in() -> None:
    # getting in gives the drop a whole window, but what we said of the host on that very
    # connection stands: the successor comes next, with our statement, not the host again
    session, reattach = _dropped(_mid_hand(), 2)
    session.resume()
    step = _left_for_not_serving(session, reattach, 1.0)
    assert isinstance(reattach.attempted(step, "", 1.0), Retry)
    assert reattach.route.failed == {HOST: "unanswered"} and _own_lost(session)
    session.resume()
    step = reattach.next_step(True, 1.25)
    assert isinstance(step, Attempt) and step.target == _endpoint(1) and step.tell


def _next_in_line_told_seat_2(t: MemoryTable) -> tuple[PeerSession, Reattach]:
    """Seat 1, the next in line, left the host for not serving the table at 1 s and handed
    its statement to seat 2 (which took it) at 1.5 s."""
    session, reattach = _dropped(t, 1)
    session.resume()
    step = _left_for_not_serving(session, reattach, 1.0)
    reattach.attempted(step, "", 1.0)
    session.resume()
    step = reattach.next_step(True, 1.25)  # past us to seat 2 (it has no host either): an
    assert step == Attempt(_endpoint(2), b"", False)  # intro alone, we may yet take over
    session.lost_host(CLOSED)
    reattach.attempted(step, "", 1.5)
    return session, reattach


def test_the_next_in_line_waits_for_the_others_statements_then_takes_over() -> None:
    # seat 1 left the host for not serving the table; the others hand it their statements,
    # which it would refuse once back with the host, so it does not go back at once
    t = _mid_hand()
    session, reattach = _next_in_line_told_seat_2(t)
    assert reattach.next_step(True, 1.75) == Wait(RETRY_IN_GAME)  # not the host yet
    for seat in (2, 3):
        other = t.sessions[seat]
        other.attachment.may_resume = True
        other.lost_host(CLOSED)
        word = lost_to(other, session, "the host is not serving the table")
        assert session.take_lost(word) is None
    assert isinstance(reattach.next_step(True, 2.0), TakeOver)


def test_the_next_in_line_tries_the_host_again_once_the_wait_is_over() -> None:
    _, reattach = _next_in_line_told_seat_2(_mid_hand())
    assert isinstance(reattach.next_step(True, 1.0 + GATHER_FOR - 0.5), Wait)
    step = reattach.next_step(True, 1.0 + GATHER_FOR)
    assert isinstance(step, Attempt) and step.target == HOST


def test_back_in_the_log_makes_who_lost_the_host_old_news() -> None:
    from .test_reconnect import MemorySeeds, come_back, drop, mid_hand, table
    seeds = MemorySeeds()
    t = table(seeds)
    mid_hand(t, 2)
    drop(t, 2)
    again = make_peer("21/2", "p2")
    again.seeds = seeds
    again.attachment.lost[b"x" * 32] = b"old"  # what it held of losing the host before
    come_back(t, again)
    assert again.attachment.returning and again.attachment.lost == {}


@pytest.mark.parametrize(("stayed", "kept"), [(5.0, True), (REFUSED_FOR + 1.0, False)])
def test_a_successors_refusals_count_across_a_return_that_does_not_last(
        stayed: float, kept: bool) -> None:
    # (a review found it) a host that lets a seat back for a moment now and then would have
    # restarted the clock of its friend's refusals each time, and the friend was never passed
    session, reattach = _dropped(_mid_hand(), 2)
    _refused_by_host(session, reattach, 0.0)
    step = reattach.next_step(True, 1.0)
    assert step == _tell(session, 1)
    reattach.told_lost(step, "", 1.0)  # "the host still answers here"
    step = reattach.next_step(True, 2.0)
    session.attachment.log_read = True  # the host took us back ...
    session.lost_host(CLOSED)  # ... and dropped us again
    reattach.attempted(step, "", 2.0 + stayed)
    assert (_endpoint(1) in reattach.refused_since) == kept
