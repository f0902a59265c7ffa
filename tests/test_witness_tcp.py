"""The mesh over real sockets (loopback): a false timeout of a connected, playing seat is
disproved by the others, who hold its signed sign of life from after the claim, sent to their
listeners over proven connections; the game finishes and every log audits OK. A peer that
keeps flooding its host stalls nothing: the table goes on with it or without it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.engine import make_settings
from p2p_pageone.net.joiner import run_joiner
from p2p_pageone.net.logwriter import LogWriter
from p2p_pageone.net.runner import HostRunner
from p2p_pageone.session.client import PING, Client
from p2p_pageone.session.common import Event
from p2p_pageone.session.memory import make_peer
from p2p_pageone.session.peer import PeerSession

VICTIM = 2


class _Table:
    """Four peers on loopback, the first hosting, each with its log file; not started yet."""

    def __init__(self, tmp_path: Path, seed: str, deals: int = 2) -> None:
        settings = make_settings("classic", {"deals": deals})
        self.peers = [make_peer(f"{seed}/{i}", f"p{i}",
                                host_table=("t", settings, 4) if i == 0 else None)
                      for i in range(4)]
        self.paths = [tmp_path / f"p{i}.log" for i in range(4)]
        self.logs = [LogWriter(path) for path in self.paths]
        self.runner = HostRunner(self.peers[0], "127.0.0.1", 0, lambda s, e: None, self.logs[0])

    def close(self) -> None:
        for log in self.logs:
            log.close()


async def _table(tmp_path: Path) -> tuple[list[PeerSession], list[Path], list[list[Event]]]:
    table = _Table(tmp_path, "wt", deals=3)  # the claim comes in hand 1, long before the end
    peers, paths, logs, runner = table.peers, table.paths, table.logs, table.runner
    port = await runner.start()
    heard: list[list[Event]] = [[] for _ in peers]
    mid = asyncio.get_running_loop().create_future()

    def watch(i: int):  # type: ignore[no-untyped-def]
        def show(session: PeerSession, events: list[Event]) -> None:
            heard[i].extend(events)
            game = session.game
            if (not mid.done() and game is not None and game.deal.moves >= 3 and session.hand == 1
                    and session.hand_end is None and not session.game_over):
                mid.set_result(None)
        return show

    joiners = [asyncio.create_task(run_joiner(peer, "127.0.0.1", port, watch(i), log,
                                              listen=True))
               for i, (peer, log) in enumerate(zip(peers[1:], logs[1:], strict=True), 1)]
    host = asyncio.create_task(runner.run())
    await asyncio.wait_for(mid, 120)
    await asyncio.sleep(1.5)  # every listening seat has sent its signs of life by now
    assert runner.sequencer is not None
    runner.sequencer._timeout(VICTIM, "sent nothing for 10 s", asyncio.get_running_loop().time())
    await asyncio.wait_for(asyncio.gather(*joiners), 240)
    await asyncio.wait_for(host, 60)
    table.close()
    return peers, paths, heard


def test_a_false_timeout_is_disproved_over_the_mesh(tmp_path: Path) -> None:
    peers, paths, heard = asyncio.run(_table(tmp_path))
    assert all(p.game_over and not p.ended for p in peers), [p.ended for p in peers]
    assert all(VICTIM in p.active for p in peers)
    assert any(e.kind == "refuted" for e in heard[1])
    for path in paths:
        report = audit_bytes(path.read_bytes())
        assert report.ok, report.fault


FLOODER = 2


async def _flooded_table(tmp_path: Path) -> tuple[list[PeerSession], list[Path]]:
    """A table whose seat 2 floods the host with pings from its third move on, on every
    connection: the host drops it again and again; it comes back, or is timed out."""
    table = _Table(tmp_path, "fl")
    port = await table.runner.start()
    joiners = [asyncio.create_task(run_joiner(peer, "127.0.0.1", port, lambda s, e: None, log,
                                              listen=True))
               for peer, log in zip(table.peers[1:], table.logs[1:], strict=True)]
    await asyncio.wait_for(asyncio.gather(table.runner.run(), *joiners), 120)
    table.close()
    return table.peers, table.paths


def test_a_peer_that_keeps_flooding_its_host_stalls_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tick = Client.tick

    def flooding(self: Client, now: float) -> None:
        tick(self, now)
        game = self.session.game
        if self.session.name == f"p{FLOODER}" and game is not None and game.deal.moves >= 3:
            self.out.extend([PING] * 30)

    monkeypatch.setattr(Client, "tick", flooding)
    peers, paths = asyncio.run(_flooded_table(tmp_path))
    honest = [peer for i, peer in enumerate(peers) if i != FLOODER]
    assert all(p.game_over and not p.ended for p in honest), [p.ended for p in honest]
    assert all(p.host_key == peers[0].identity.public for p in honest)  # nobody took over
    for path in (paths[i] for i in range(4) if i != FLOODER):
        report = audit_bytes(path.read_bytes())
        assert report.ok and report.fault is None, report.fault
