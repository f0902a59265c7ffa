"""The CPU players a host starts (`pageone host --bots N`, scripts/bench_table.py) connect all at
once from one address; the host's door closes the ones past its per-address bound at accept, and
those come back a second later instead of giving up (they once ended silently, and the lobby
waited for them forever)."""

from __future__ import annotations

import asyncio

from p2p_pageone.engine import make_settings
from p2p_pageone.net.joiner import start_cpu_peers
from p2p_pageone.net.runner import HostRunner
from p2p_pageone.session.client import Client
from p2p_pageone.session.common import BUSY
from p2p_pageone.session.links import MAX_UNPROVEN
from p2p_pageone.session.memory import make_peer


def test_a_connection_closed_before_its_challenge_is_busy_not_the_end() -> None:
    joiner = make_peer("door", "cpu1")
    joiner.attachment.may_resume = True
    client = Client(joiner, 0.0)
    client.closed()  # nothing came: the door closed it at accept
    assert joiner.attachment.dropped == BUSY
    assert not joiner.ended


def test_five_cpu_peers_of_one_address_all_sit_and_play() -> None:
    assert MAX_UNPROVEN < 5  # so the door does close some of them at accept

    async def table() -> None:
        settings = make_settings("classic", {"deals": 1})
        host = make_peer("h", "host", host_table=("t", settings, 6))
        runner = HostRunner(host, "127.0.0.1", 0, lambda s, e: None, None)
        port = await runner.start()
        cpus = [make_peer(f"c{i}", f"cpu{i}") for i in range(1, 6)]
        tasks = start_cpu_peers(runner, cpus, "127.0.0.1", port, [None] * 5)
        await asyncio.wait_for(runner.run(), 120)
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
        assert host.game_over and not host.ended, host.ended
        assert all(cpu.game_over and not cpu.ended for cpu in cpus)

    asyncio.run(table())
