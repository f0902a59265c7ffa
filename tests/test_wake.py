"""The runners tick when the session says it next needs to (``next_wake``), not on a fixed poll:
the deadlines each part reports, and the asyncio ``Waker`` that sleeps until them."""

from __future__ import annotations

import asyncio
import math
import random

from p2p_pageone.bots import make_bot
from p2p_pageone.cli.cpu import ThinkingBot
from p2p_pageone.engine import make_settings
from p2p_pageone.net.runner import Waker
from p2p_pageone.session.memory import MemoryTable


def test_a_sequencer_wakes_for_its_ping_and_for_a_page_one_window_closing() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=7)
    t.step()
    sequencer = t.sequencer
    assert sequencer.next_wake(t.now) <= t.now + sequencer.heartbeat
    sequencer.heartbeat = 60.0
    sequencer.catch_window = 0.5
    sequencer.window = (1, t.now + 0.25)  # a window opened: it closes before the next ping
    assert sequencer.next_wake(t.now) == t.now + 0.75


def test_a_peer_wakes_when_its_cpu_player_is_ready_and_a_client_at_its_ping() -> None:
    now = [100.0]
    bot = ThinkingBot(make_bot("normal"), lambda: now[0], 1.0, 0.0, random.Random(1))
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=7)
    peer, client = t.sessions[1], t.clients[0]
    peer.bot = bot
    assert peer.next_wake(now[0]) == math.inf  # nothing decided: nothing due by time
    bot._intent, bot._since, bot._delay = object(), 100.0, 0.8  # type: ignore[assignment]
    assert peer.next_wake(now[0]) == 100.8
    assert client.next_wake(t.now) <= t.now + client.heartbeat


def test_the_waker_sleeps_to_the_deadline_and_wakes_at_once_when_told() -> None:
    async def scenario() -> list[float]:
        loop = asyncio.get_running_loop()
        deadline = [loop.time() + 0.3]
        waker = Waker(lambda now: deadline[0], loop.time)
        took = []
        start = loop.time()
        await waker.sleep()  # to the deadline
        took.append(loop.time() - start)
        deadline[0] = loop.time() + 5.0
        loop.call_later(0.05, waker.now)  # the player typed something
        start = loop.time()
        await waker.sleep()
        took.append(loop.time() - start)
        deadline[0] = loop.time() + 5.0

        def earlier() -> None:  # a frame brought the deadline forward
            deadline[0] = loop.time() + 0.1
            waker.nudge()

        loop.call_later(0.05, earlier)
        start = loop.time()
        await waker.sleep()
        took.append(loop.time() - start)
        return took

    to_deadline, told, brought_forward = asyncio.run(scenario())
    assert 0.25 <= to_deadline < 1.0
    assert told < 1.0
    assert 0.12 <= brought_forward < 1.0
