"""The Page One window on the sequencer's clock: a person can always catch or call late first."""

from __future__ import annotations

import random

from p2p_pageone.bots import make_bot
from p2p_pageone.cli.cpu import ThinkingBot
from p2p_pageone.crypto.envelope import Envelope
from p2p_pageone.engine import Catch
from p2p_pageone.engine.moves import Play
from p2p_pageone.engine.settings import make_settings
from p2p_pageone.session.memory import MemoryTable, make_peer

WINDOW = 2.0


def _table(players: int, seed: int, human: bool) -> MemoryTable:
    settings = make_settings("classic", {"deals": 2})
    host = make_peer(f"w{seed}/0", "host", "normal", autoplay=not human,
                     host_table=("t", settings, players))
    cpus = [make_peer(f"w{seed}/{i}", f"cpu{i}", "random") for i in range(1, players)]
    table = MemoryTable(settings, players, peers=[host, *cpus], catch_window=WINDOW)
    table.sequencer.cpu_keys = {p.identity.public for p in cpus}
    return table


def test_no_cpu_move_and_no_closing_move_inside_the_window() -> None:
    table = _table(4, 3, human=False)
    seq = table.sequencer
    seq.cpu_keys.add(seq.host.identity.public)  # every seat is a CPU the window holds back
    early: list[str] = []
    windows = 0
    append = seq._append

    def checked(env: Envelope, now: float) -> None:
        nonlocal windows
        if seq.window is not None and env.kind == "move":
            seat, opened = seq.window
            author = seq.host.seat_of(env.sender)
            closes = env.data["kind"] != "catch" and author != seat
            if now - opened < WINDOW - 1e-9 and (env.sender in seq.cpu_keys or closes):
                early.append(f"{env.data['kind']} by seat {author} {now - opened:.2f} s "
                             f"after seat {seat} missed the call")
        append(env, now)

    note = seq._note_window

    def counted(now: float) -> None:
        nonlocal windows
        before = seq.window
        note(now)
        windows += seq.window is not None and seq.window != before

    seq._append = checked  # type: ignore[method-assign]
    seq._note_window = counted  # type: ignore[method-assign]
    table.run(limit=4 * 3600, dt=0.1)
    assert all(s.game_over and not s.ended for s in table.sessions)
    assert windows > 0, "random CPU players miss calls: the game should have had windows"
    assert early == []


def test_a_person_catches_a_missed_call_within_the_window() -> None:
    table = _table(3, 5, human=True)
    person = table.sequencer.host
    helper = make_bot("normal")
    rng = random.Random(1)
    caught = 0
    seen_at: dict[tuple[int, int], float] = {}
    while not table.finished() and table.now < 4 * 3600:
        table.advance(table.now + 0.1)
        game = person.game
        if game is None or game.chance is not None or not person.hand_known() or (
                person.outbox.requested is not None or person.in_flight):
            continue
        deal = game.deal
        miss = deal.open_miss
        if miss not in (-1, person.me):
            moment = (person.hand, deal.moves)
            seen_at.setdefault(moment, table.now)
            if table.now - seen_at[moment] >= 1.0:  # a person takes a second to react
                person.request(Catch(person.me, miss))
            continue
        if deal.turn == person.me:
            move = helper.choose(person.view(), rng)  # type: ignore[arg-type]
            if move is not None:
                person.request(move)
    for event in person.take_events():
        data = event.data.get("event")
        if event.kind == "engine" and data and data[0] == "caught" and data[1] == person.me:
            caught += 1
    assert person.game_over and caught >= 1


def test_a_thinking_cpu_waits_a_moment_before_its_move() -> None:
    table = _table(3, 7, human=False)
    cpu = table.clients[0].session
    cpu.autoplay = False  # stop it at its first turn
    while not (cpu.game is not None and cpu.game.chance is None and cpu.hand_known()
               and cpu.game.deal.turn == cpu.me):
        table.advance(table.now + 0.5)
    view = cpu.view()
    assert view is not None
    wanted = make_bot("normal").choose(view, random.Random(0))
    assert isinstance(wanted, Play)
    clock = [0.0]
    bot = ThinkingBot(make_bot("normal"), lambda: clock[0], think=1.0, catch_window=WINDOW,
                      rng=random.Random(0))
    assert bot.choose(view, random.Random(0)) is None  # it starts thinking
    clock[0] = 0.5  # never less than 0.6 × think
    assert bot.choose(view, random.Random(0)) is None
    clock[0] = 1.41  # never more than 1.4 × think
    assert bot.choose(view, random.Random(0)) == wanted
