"""A move is judged by the rules where it stands in the log, but blamed on its author only if
it met the game it was sealed against: one sealed before the game last changed may have been
legal there, and a host that logs it then is to blame (found by review: a host alone had an
honest catcher named for a catch it held until the window closed)."""

from __future__ import annotations

from typing import Any

from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.engine import make_settings
from p2p_pageone.engine.moves import Catch
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.wire.kinds import EntryKind
from tests.cheats import audit_of

VICTIM, FORGETFUL = 2, 3


def _host_never_catches(table: MemoryTable) -> None:
    host = table.sequencer.host
    bot = host.bot
    choose = bot.choose

    def no_catch(view: Any, rng: Any) -> Any:
        move = choose(view, rng)
        if not isinstance(move, Catch):
            return move
        if view.turn != view.seat:
            return None
        return bot.decide(view, [m for m in view.legal_moves() if not isinstance(m, Catch)], rng)

    bot.choose = no_catch  # type: ignore[method-assign]


def test_a_catch_the_host_held_until_the_window_closed_names_the_host() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 3}), 4, seed=0, direct=True,
                        levels=["normal", "normal", "normal", "easy"])
    seq, host = table.sequencer, table.sequencer.host
    _host_never_catches(table)
    victim = table.clients[VICTIM - 1].session
    held: list[bytes] = []
    submit = seq._submit

    def holding(conn: int, link: Any, raw: bytes, now: float) -> bool:
        env = open_envelope(raw)
        if env.kind == EntryKind.MOVE and env.data["kind"] == "catch":
            if env.sender == victim.identity.public:
                held.append(raw)
            return True  # neither logged nor refused
        return submit(conn, link, raw, now)

    seq._submit = holding  # type: ignore[method-assign]
    while not held and table.now < 900:
        if not table.step():
            table.advance(table.now + 0.5)
    assert held, "the easy player forgot a call and the victim caught it"
    target = open_envelope(held[0]).data["target"]
    while host.game is not None and (host.game.deal.open_miss == target or host.claims):
        if not table.step():
            table.advance(table.now + 0.5)
    seq._append(open_envelope(held[0]), table.now)  # the held catch, after the window closed
    for _ in range(20):
        table.step()
    fault = audit_of(table.clients[FORGETFUL - 1].session).fault
    assert fault is not None and fault.seat == 0, fault
    assert "must refuse" in fault.reason
    assert "p0" in victim.ended and "must refuse" in victim.ended
