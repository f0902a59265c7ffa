"""A Page One call sent to the others only (found by review): up to version 16 a seat that sent
its late call to the others, never to the host, had every peer and the audit name the honest
host for holding it until an honest catcher caught it. A witness hands such a call to the host
at once (one for each number of its author's), and since version 17 a catch names nobody."""

from __future__ import annotations

import itertools
import random
from typing import Any

from p2p_pageone.byzantine.deeds import sealed_by
from p2p_pageone.cli.cpu import cpu_bot
from p2p_pageone.engine import make_settings
from p2p_pageone.engine.moves import Call, Catch, Play
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.witnessing import tell_all
from tests.cheats import audit_of

CHEAT = 1


class Forgetful:
    """Leaves its call off every play (and never calls or catches): its late call is the
    test's, sent to the others only."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name = inner, inner.name

    def choose(self, view: Any, rng: Any) -> Any:
        move = self.inner.choose(view, rng)
        if isinstance(move, Play) and move.call:
            return Play(move.seat, move.slots, move.cards, False, move.colour)
        return None if isinstance(move, (Call, Catch)) else move

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_late_call_sent_to_the_others_only_names_nobody() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 3}), 4, seed=3, direct=True,
                        catch_window=2.0)
    cheat = table.clients[CHEAT - 1].session
    for seat, session in enumerate(table.sessions):  # the honest seats catch like people
        if seat != CHEAT:
            session.bot = cpu_bot("normal", lambda: table.now, 3.0, 2.0, random.Random(seat))
    cheat.bot = Forgetful(cheat.bot)
    sent: list[tuple[int, int]] = []
    while table.now < 1200 and not any(s.ended for s in table.sessions):
        if not table.step():
            table.advance(table.now + 0.25)
        game = cheat.game
        if (game is not None and game.deal.open_miss == CHEAT and not cheat.claims
                and (cheat.hand, len(cheat.log)) not in sent):
            env = sealed_by(cheat, "move", {"kind": "call", "target": -1, "positions": [],
                                            "cards": [], "keys": [], "call": False,
                                            "colour": -1})
            tell_all(cheat, env.raw)  # to every listening peer, never to the host
            sent.append((cheat.hand, len(cheat.log)))
    assert sent, "the cheat missed no call: pick another seed"
    for seat, session in enumerate(table.sessions):
        if seat != CHEAT:
            assert not session.ended.startswith("p0"), session.ended
    fault = audit_of(table.sessions[2]).fault
    assert fault is None or fault.seat != 0, fault


def test_calls_of_one_number_go_on_to_the_host_once() -> None:
    # (review) a seat that handed another sixty signed calls, each a little different, had them
    # all relayed at once, and the host dropped the honest relayer as a flooder
    table = MemoryTable(make_settings("classic", {"deals": 3}), 4, seed=3, direct=True)
    while not (table.sessions[2].game is not None and table.sessions[2].game.deal.moves >= 2):
        if not table.step():
            table.advance(table.now + 0.5)
    cheat, honest = table.sessions[CHEAT], table.sessions[2]
    honest.outbox.relay_out.clear()
    sent = 0
    for target, colour, call in itertools.product(range(-1, 4), range(-1, 4), (False, True)):
        env = sealed_by(cheat, "move", {"kind": "call", "target": target, "positions": [],
                                        "cards": [], "keys": [], "call": call,
                                        "colour": colour})
        if env is not None:
            honest.direct(env.raw, table.now)
            sent += 1
    assert sent >= 20 and len(honest.outbox.relay_out) <= 1
