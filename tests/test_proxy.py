"""The delaying, lossy TCP proxy used by the latency benchmark: order kept, delay added, seeded."""

from __future__ import annotations

import asyncio
import random

from p2p_pageone.net.proxy import MIN_RTO, DelayProxy, Link


async def _echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while data := await reader.read(65536):
        writer.write(data)
        await writer.drain()
    writer.close()


async def _round_trip(link: Link, messages: list[bytes]) -> tuple[bytes, float]:
    server = await asyncio.start_server(_echo, "127.0.0.1", 0)
    proxy = DelayProxy(("127.0.0.1", server.sockets[0].getsockname()[1]), link, seed=3)
    port = await proxy.start()
    loop = asyncio.get_running_loop()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    start = loop.time()
    for message in messages:
        writer.write(message)
        await writer.drain()
        await asyncio.sleep(0.001)
    expected = sum(map(len, messages))
    received = b""
    while len(received) < expected:
        received += await asyncio.wait_for(reader.read(65536), 10)
    elapsed = loop.time() - start
    writer.close()
    await proxy.close()
    server.close()
    return received, elapsed


def test_bytes_arrive_in_order_after_the_round_trip() -> None:
    messages = [bytes([i]) * (i + 1) for i in range(20)]
    received, elapsed = asyncio.run(_round_trip(Link(delay=0.05), messages))
    assert received == b"".join(messages)
    assert elapsed >= 0.1  # one delay each way


def test_loss_delays_but_never_drops_or_reorders() -> None:
    messages = [bytes([i]) * 50 for i in range(30)]
    received, elapsed = asyncio.run(_round_trip(Link(delay=0.0, loss=0.3), messages))
    assert received == b"".join(messages)
    assert elapsed >= MIN_RTO  # with 30 % loss over 60 chunks, something was retransmitted


def test_retransmission_wait_is_seeded_and_backs_off() -> None:
    link = Link(delay=0.1, loss=0.5)
    first = [link.retransmission_wait(random.Random(9)) for _ in range(3)]
    assert first == [link.retransmission_wait(random.Random(9)) for _ in range(3)]
    waits = {link.retransmission_wait(random.Random(seed)) for seed in range(200)}
    assert 0.0 in waits and 0.4 in waits and 0.4 + 0.8 in waits  # RTO 4x delay, doubling
    assert Link(delay=0.1).retransmission_wait(random.Random(1)) == 0.0
