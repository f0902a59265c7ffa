"""An honest seat serving us entries the host's stream brought first is no flooder (review
helper-42): a copy of an entry our log has, with a receipt naming our head after it, is neither
handed on nor counted toward a direct connection's flood limit (session/mesh_gate.py). Else a
host that holds a seat's stream back, then lets it through at once, could have the seats that
served it meanwhile counted until their keys were refused, and their signs of life with them."""

from __future__ import annotations

import asyncio

from p2p_pageone.net.standby import Standby
from p2p_pageone.session import links
from p2p_pageone.session.logsync import entry_frame
from p2p_pageone.session.receipts import sign_receipt
from p2p_pageone.wire.codec import frame

from .test_proofs import _connect, dealt_table


def test_an_honest_servers_stale_batches_are_not_counted_and_junk_is() -> None:
    t = dealt_table()
    host, me, server = t.sessions[0], t.sessions[1], t.sessions[2]
    key = server.identity.public
    assert host.chain is not None
    length = len(me.log)
    stale = b"".join(frame(entry_frame(i, host.log[i], t.sequencer.receipts.of(host.log, i)))
                     for i in range(length - 10, length))
    forked = frame(entry_frame(length - 1, host.log[length - 1], sign_receipt(
        host.identity, host.table_id, length, b"\1" * 32)))  # another head: counted

    async def send(port: int, payload: bytes) -> None:
        _, writer, challenge = await _connect(port)
        writer.write(links.answer_challenge(challenge, server.identity, {"control": "direct"},
                                            me.identity.public))
        await asyncio.sleep(0.05)
        writer.write(payload)
        await writer.drain()
        await asyncio.sleep(0.3)
        writer.close()

    async def run() -> None:
        standby = Standby(me)
        port = int((await standby.open("127.0.0.1")).rsplit(":", 1)[1])
        await send(port, stale * (3 * links.IDLE_FRAMES // 10))  # 150 copies in one window
        assert key not in standby.banned and not me.ended
        await send(port, forked * (links.IDLE_FRAMES + 1))
        assert key in standby.banned
        standby.close()

    asyncio.run(run())
