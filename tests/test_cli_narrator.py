"""The narrator's wording and order, on events made by hand."""

from __future__ import annotations

import random

from p2p_pageone.cli.narrator import Narrator
from p2p_pageone.cli.render import Line, plain, without_ruling_ids
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.session.common import Event
from p2p_pageone.session.peer import PeerSession


def _narrator() -> tuple[Narrator, list[str]]:
    rng = random.Random(0)
    session = PeerSession(Identity(rng.randbytes(32)), "me", rng.randbytes)
    session.names, session.me = ["me", "bob", "cy"], 0
    printed: list[str] = []

    def sink(lines: list[Line]) -> None:
        printed.extend(plain(line) for line in lines)

    return Narrator(session, sink, symbols=False), printed


def engine(*event: object) -> Event:
    return Event("engine", "", {"event": event})


def test_repeated_draws_collapse_and_penalties_stand_alone() -> None:
    narrator, printed = _narrator()
    narrator.show([engine("draw", 1, 1, "follow") for _ in range(6)])
    assert printed == []  # still counting
    narrator.show([engine("draw", 1, 1, "follow"), engine("play", 1, (20,))])
    narrator.show([engine("caught", 2, 1), engine("draw", 1, 5, "penalty")])
    assert [line.strip() for line in printed] == [
        "bob draws 7 cards", "bob plays 9h",
        "cy catches bob: no Page One call, penalty cards", "bob draws 5 cards as a penalty"]


def test_a_pause_prints_a_draw_still_being_counted_and_you_are_you() -> None:
    narrator, printed = _narrator()
    narrator.show([engine("draw", 1, 1, "follow"), engine("draw", 1, 1, "follow")])
    narrator.idle()
    narrator.show([engine("play", 0, (52,)), engine("trick", 0, (52,)), engine("call", 0)])
    assert [line.strip() for line in printed] == [
        "bob draws 2 cards", "you play jk", "you win the trick", 'you: "Page One!"']


def test_player_messages_never_cite_ruling_ids() -> None:
    assert without_ruling_ids("draw 2 or stack another d2r: nothing else answers it (Q4)") == (
        "draw 2 or stack another d2r: nothing else answers it")
    assert without_ruling_ids("you hold 9h: follow suit instead of drawing (C5)") == (
        "you hold 9h: follow suit instead of drawing")
