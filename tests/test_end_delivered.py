"""The end of the game is delivered (protocol/SPEC.md §7, "The end of the game"): a peer's game
ends when it has the last entries and the host has its acknowledgement, or the host names who
did not confirm."""

from __future__ import annotations

import asyncio
import random

from p2p_pageone.bots import make_bot
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.engine import make_settings
from p2p_pageone.net.joiner import run_joiner
from p2p_pageone.net.proxy import DelayProxy, Link
from p2p_pageone.net.runner import HostRunner
from p2p_pageone.session.common import Event
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.session.sequencer import LINGER


def to_game_over(t: MemoryTable) -> None:
    """Step until the host's game is over: its last entries are sent, not yet delivered."""
    host = t.sessions[0]
    while not host.game_over:
        if not t.step():
            t.advance(t.now + 0.5)
        assert t.now < 3600


def test_every_peer_confirms_the_end_and_the_host_waits_for_it() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=2)
    to_game_over(t)
    seq = t.sequencer
    assert sorted(seq.unconfirmed()) == [1, 2] and not seq.delivered()
    while t.step():
        pass
    assert seq.unconfirmed() == [] and all(c.confirmed for c in t.clients)
    assert all(c.finished(t.now) for c in t.clients)
    assert all(s.log == t.sessions[0].log for s in t.sessions)


def test_a_peer_cut_off_at_the_end_is_named_once_the_host_gives_up_waiting() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=2)
    to_game_over(t)
    t.kill(2)  # its link goes dead before the last entries reach it
    host, cut = t.sessions[0], t.sessions[2]
    t.advance(t.now + LINGER - 1)
    assert t.sequencer.unconfirmed() == [2] and not t.sequencer.delivered()
    assert t.clients[0].confirmed and not cut.game_over
    for _ in range(4):
        t.advance(t.now + 0.5)
    told = [e.text for e in host.take_events() if e.kind == "unconfirmed"]
    assert len(told) == 1 and host.who(2) in told[0] and "did not confirm" in told[0], told
    assert t.sequencer.delivered() and host.game_over and not host.ended


def _peer(name: str, host_table: tuple[str, object, int] | None = None) -> PeerSession:
    randbytes = random.Random(f"end/{name}").randbytes
    return PeerSession(Identity(randbytes(32)), name, randbytes, bot=make_bot("normal"),
                       rng=random.Random(name), autoplay=True,
                       host_table=host_table)  # type: ignore[arg-type]


async def _lossy_table(link: Link) -> tuple[PeerSession, list[PeerSession], list[Event]]:
    host = _peer("host", ("lossy", make_settings("classic", {"deals": 1}), 3))
    told: list[Event] = []
    runner = HostRunner(host, "127.0.0.1", 0, lambda s, e: told.extend(e), None,
                        silent_after=20.0, step_timeout=60.0)
    proxy = DelayProxy(("127.0.0.1", await runner.start()), link, seed=3)
    port = await proxy.start()
    joiners = [_peer(f"cpu{i}") for i in (1, 2)]
    heard: list[Event] = []
    tasks = [asyncio.create_task(run_joiner(j, "127.0.0.1", port, lambda s, e: heard.extend(e),
                                            None, silent_after=20.0)) for j in joiners]
    await runner.run()
    await asyncio.wait_for(asyncio.gather(*tasks), 30)
    await proxy.close()
    return host, joiners, told + heard


def test_over_a_lossy_link_every_joiner_has_the_whole_game_and_the_host_its_ack() -> None:
    host, joiners, events = asyncio.run(_lossy_table(Link(delay=0.005, loss=0.15)))
    assert host.game_over and not host.ended
    for joiner in joiners:
        assert joiner.game_over and not joiner.ended, joiner.ended
        assert joiner.log == host.log  # the final reveals and heads included
    assert not [e.text for e in events if e.kind in ("unconfirmed", "ended")]
