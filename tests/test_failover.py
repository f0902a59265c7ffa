"""Failover (protocol/SPEC.md §7, "Failover"): the host's pageone stops mid-hand; the next seat
takes the table over, the others reconnect to it, the hand in play is void, the old host leaves
as a leaver, and the game finishes with every log the same."""

from __future__ import annotations

import asyncio
from pathlib import Path

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.audit.compare import compare
from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.net.joiner import run_joiner
from p2p_pageone.net.logwriter import LogWriter
from p2p_pageone.net.runner import HostRunner
from p2p_pageone.session.common import Event
from p2p_pageone.session.memory import make_peer
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.wire.codec import frame


def kinds(session: PeerSession) -> list[str]:
    return [open_envelope(raw).kind for raw in session.log]


async def _host_dies(tmp_path: Path, players: int, moves: int, with_it: int = 0,
                     ) -> tuple[list[PeerSession], list[Path], list[list[Event]]]:
    """A table of ``players`` on loopback; the host's process stops (every socket closed at
    once, nothing listening on its port) once hand 1 has ``moves`` moves; and with it, the
    first ``with_it`` joiners' (so the successors after them take over)."""
    settings = make_settings("classic", {"deals": 2})
    peers = [make_peer(f"fo/{i}", f"p{i}", host_table=("t", settings, players) if i == 0
                       else None) for i in range(players)]
    paths = [tmp_path / f"p{i}.log" for i in range(players)]
    logs = [LogWriter(path) for path in paths]
    runner = HostRunner(peers[0], "127.0.0.1", 0, lambda s, e: None, logs[0])
    port = await runner.start()
    mid = asyncio.get_running_loop().create_future()
    heard: list[list[Event]] = [[] for _ in peers]

    def watch(i: int):  # type: ignore[no-untyped-def]
        def show(session: PeerSession, events: list[Event]) -> None:
            heard[i].extend(events)
            game = session.game
            if not mid.done() and game is not None and game.deal.moves >= moves:
                mid.set_result(None)
        return show

    joiners = [asyncio.create_task(run_joiner(peer, "127.0.0.1", port, watch(i), log,
                                              listen=True, reconnect_window=4))
               for i, (peer, log) in enumerate(zip(peers[1:], logs[1:], strict=True), 1)]
    host = asyncio.create_task(runner.run())
    await asyncio.wait_for(mid, 120)
    host.cancel()  # kill -9: no bye, every connection closed, the port refuses
    await runner.close()
    for task in joiners[:with_it]:
        task.cancel()
    logs[0].close()
    await asyncio.wait_for(asyncio.gather(*joiners, return_exceptions=True), 240)
    for log in logs[1:]:
        log.close()
    return peers, paths, heard


def test_the_host_stops_mid_hand_the_next_seat_takes_over_and_the_game_finishes(
        tmp_path: Path) -> None:
    peers, paths, heard = asyncio.run(_host_dies(tmp_path, 4, 3))
    old, survivors = peers[0], peers[1:]
    assert all(s.game_over and not s.ended for s in survivors), [s.ended for s in survivors]
    new_host = survivors[0]
    assert new_host.is_host and all(s.host_key == new_host.identity.public for s in survivors)
    log = kinds(new_host)
    assert log.count("takeover") == 1 and log.count("back") == 2
    assert "timeout" not in log[:log.index("takeover")]
    data = [path.read_bytes() for path in paths]
    assert data[1] == data[2] == data[3]  # every survivor's log the same, byte for byte
    assert data[1].startswith(data[0]) and len(data[0]) < len(data[1])
    report = audit_bytes(data[1])
    assert report.ok, report.fault
    assert report.hands[0].status == "void" and "took the table over" in report.hands[0].text
    assert old.seat_of(old.identity.public) not in new_host.active  # the old host left
    assert new_host.history and new_host.hand >= 2  # the game went on after the void hand
    told = [e.text for e in heard[2]]
    assert any("is the table's host now" in text for text in told), told
    endpoint = new_host.endpoints[new_host.identity.public]
    assert any(f"host now (at {endpoint}: to come back, pageone join --connect {endpoint})"
               in text for text in told), told


def test_every_joiner_listens_and_says_where_in_its_hello(tmp_path: Path) -> None:
    peers, _, _ = asyncio.run(_host_dies(tmp_path, 3, 2))
    endpoints = peers[1].endpoints
    for peer in peers[1:]:
        address, _, port = endpoints[peer.identity.public].rpartition(":")
        assert address == "127.0.0.1" and int(port) > 0


def test_a_host_cut_off_from_its_players_and_their_takeover_split_the_table_naming_nobody(
        tmp_path: Path) -> None:
    """The old host lived on, cut off, and logged one more entry of its own where the others
    logged the takeover: the comparison says the table split, and names nobody."""
    peers, _, _ = asyncio.run(_host_dies(tmp_path, 3, 2))
    old, survivor = peers[0], peers[1]
    at = kinds(survivor).index("takeover")
    assert old.chain is not None and len(old.log) == at
    alone = seal(old.identity, old.table_id, old.hand, old.chain.next_seq(old.identity.public),
                 old.chain.head, "say", {"text": "anyone there?"})
    logs = [list(survivor.log), [*old.log, alone]]
    files = [b"".join(frame(raw) for raw in log) for log in logs]
    result = compare(["new.log", "old.log"], logs, [audit_bytes(data) for data in files])
    assert result.relation == "split" and result.ok and result.fork_entry == at, result.text
    assert "nobody is to blame" in result.text and "taken over by p1" in result.text


def test_when_the_successor_stopped_with_the_host_the_next_seat_takes_over(
        tmp_path: Path) -> None:
    """Five seats: the host and the first successor stop; the three left are a majority."""
    peers, paths, heard = asyncio.run(_host_dies(tmp_path, 5, 3, with_it=1))
    survivors = peers[2:]
    assert all(s.game_over and not s.ended for s in survivors), [s.ended for s in survivors]
    new_host = peers[2]
    assert new_host.is_host and peers[3].host_key == new_host.identity.public
    log = kinds(new_host)
    assert log.count("takeover") == 1 and log.count("back") == 2
    assert log[log.index("takeover"):].count("timeout") == 1  # p1 did not come back in time
    data = [path.read_bytes() for path in paths[2:]]
    assert data[0] == data[1] == data[2]
    report = audit_bytes(data[0])
    assert report.ok, report.fault
    assert any("p2 (seat 2) is the table's host now" in e.text for e in heard[3])
    takeover = open_envelope(new_host.log[log.index("takeover")])
    assert len(takeover.data["lost"]) >= 3  # of the 5 listening seats


def test_when_half_the_table_stopped_with_the_host_nobody_takes_over(tmp_path: Path) -> None:
    """Four seats: the host and the first successor stop; the two left are no majority of the
    four listening seats (they cannot tell this from a cut of their own): no takeover, they
    stop naming nobody, as this machine's network."""
    peers, _, _ = asyncio.run(_host_dies(tmp_path, 4, 3, with_it=1))
    for peer in peers[2:]:
        assert not peer.is_host and "takeover" not in kinds(peer)
        assert peer.attachment.network and "nobody is to blame" in peer.ended, peer.ended
