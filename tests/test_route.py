"""Where a joiner connects next when its host is lost (session/route.py): a pure function of
the public table and what its own connections told it."""

from __future__ import annotations

from p2p_pageone.session.fold.state import PublicState
from p2p_pageone.session.route import Route

HOST = ("10.0.0.1", 5000)


def table(me: int) -> PublicState:
    """Four seats in a running game; the host at seat 0; every joiner listens."""
    s = PublicState()
    s.keys = [bytes([n]) * 32 for n in range(4)]
    s.host_key = s.keys[0]
    s.endpoints = {s.keys[n]: f"127.0.0.{n}:700{n}" for n in range(1, 4)}
    s.game = object()  # type: ignore[assignment]  # only "is there a game" is asked
    s.active = [0, 1, 2, 3]
    s.me = me
    return s


def test_the_host_first_and_again_after_one_failure() -> None:
    route, s = Route(HOST), table(me=3)
    assert route.next(s, listening=True, majority=False) == HOST
    route.note(HOST, "refused")
    assert route.next(s, listening=True, majority=False) == ("127.0.0.1", 7001)
    route.note(("127.0.0.1", 7001), "unreachable")
    assert route.next(s, listening=True, majority=False) == HOST  # the host again between


def test_the_first_successor_takes_over_only_with_a_majority_and_listening() -> None:
    route, s = Route(HOST), table(me=1)
    route.next(s, True, False)
    route.note(HOST, "refused")  # a refused or dead path alone is never enough
    assert route.next(s, listening=True, majority=False) == ("127.0.0.2", 7002)  # seats after
    route.note(("127.0.0.2", 7002), "")  # it is there
    assert route.next(s, listening=True, majority=False) == HOST
    # no listener: the seats after us, each in turn (one that never fails us must not hide
    # what the others hold)
    assert route.next(s, listening=False, majority=True) == ("127.0.0.3", 7003)
    # the host failed us and a majority lost it: no other try of the host first
    assert route.next(s, listening=True, majority=True) is None


def test_a_later_seat_takes_over_once_every_successor_before_it_failed() -> None:
    route, s = Route(HOST), table(me=3)
    for target in (HOST, ("127.0.0.1", 7001), HOST, ("127.0.0.2", 7002)):
        assert route.next(s, True, True) == target
        route.note(target, "refused")
    assert route.next(s, True, False) == HOST  # no majority: no takeover
    assert route.next(s, True, True) is None  # every successor before us failed: at once


def test_a_successor_with_a_majority_takes_over_without_trying_the_host_again() -> None:
    route, s = Route(HOST), table(me=1)
    assert route.next(s, True, False) == HOST
    route.note(HOST, "unanswered")  # a stopped host: each try costs the challenge's wait
    assert route.next(s, True, True) is None
    route.note(HOST, "")  # it answered after all: the host it is
    assert route.next(s, True, True) == HOST


def test_nobody_left_once_the_host_and_every_other_listening_seat_refused() -> None:
    route, s = Route(HOST), table(me=1)
    route.note(HOST, "refused")
    route.note(("127.0.0.2", 7002), "refused")
    assert not route.nobody_left(s)
    route.note(("127.0.0.3", 7003), "unreachable")  # a frozen path may be ours
    assert not route.nobody_left(s)
    route.note(("127.0.0.3", 7003), "refused")
    assert route.nobody_left(s)


def test_a_new_host_is_followed_and_a_connection_that_worked_clears_its_failure() -> None:
    route, s = Route(HOST), table(me=3)
    s.host_key = s.keys[1]  # seat 1 took the table over
    assert route.host(s) == ("127.0.0.1", 7001)
    assert route.next(s, True, False) == ("127.0.0.1", 7001)
    route.note(("127.0.0.1", 7001), "refused")
    route.note(("127.0.0.1", 7001), "")
    assert route.next(s, True, False) == ("127.0.0.1", 7001)
