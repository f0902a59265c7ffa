"""Connections prove their key (protocol/SPEC.md §7, "Transport", "Strangers and floods", "Keys
to their owner, directly"): every listener challenges, every frame that claims a key answers with
a proof, and a key's proof is all that buys it anything."""

from __future__ import annotations

import asyncio
from typing import Any

from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.crypto.statements import proof_of_key
from p2p_pageone.engine import make_settings
from p2p_pageone.net.mesh import Mesh
from p2p_pageone.net.standby import BANNED_FOR, DIRECT_FRAME, Standby
from p2p_pageone.session import links
from p2p_pageone.session.client import Client
from p2p_pageone.session.memory import MemoryTable, make_peer
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.wire.codec import FrameDecoder, frame, pack, unpack

from .helpers import challenge_to, claim
from .test_reconnect import MemorySeeds, drop, kinds, mid_hand

CROWD = "192.0.2.9"  # the strangers' address
MALLORY = Identity(bytes([7]) * 32)


def lobby() -> MemoryTable:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 4, seed=1)
    t.kill(3)  # its client never speaks: a seat stays free
    for _ in range(20):
        t.step()
    return t


def refusals(t: MemoryTable, conn: int) -> list[str]:
    values = [unpack(data[4:]) for c, data in t.sequencer.out if c == conn]
    return [v["reason"] for v in values if isinstance(v, dict) and v["control"] == "refused"]


def stranger(t: MemoryTable, conn: int, source: str = CROWD) -> None:
    t.sequencer.connect(conn, t.now, source)
    t.kill(conn)


def test_an_intro_without_a_proof_is_refused_saying_to_use_the_same_version() -> None:
    t = lobby()
    stranger(t, 99)
    t.sequencer.receive(99, frame(pack({"control": "intro", "from": MALLORY.public})), t.now)
    assert 99 not in t.sequencer.links and 99 in t.sequencer.to_close
    [reason] = refusals(t, 99)
    assert "no proof" in reason and "use the same pageone version" in reason


def test_a_proof_for_another_key_nonce_or_role_is_refused() -> None:
    t = lobby()
    victim = t.sessions[1].identity
    for conn, make in enumerate((
            lambda c: {"from": victim.public, "proof": proof_of_key(MALLORY, c["nonce"],
                                                                    c["from"], "intro")},
            lambda c: {"from": MALLORY.public, "proof": proof_of_key(MALLORY, bytes(16),
                                                                     c["from"], "intro")},
            lambda c: {"from": MALLORY.public, "proof": proof_of_key(MALLORY, c["nonce"],
                                                                     c["from"], "direct")}),
            start=100):
        stranger(t, conn, f"192.0.2.{conn}")
        forged = {"control": "intro", **make(challenge_to(t.sequencer, conn))}
        t.sequencer.receive(conn, frame(pack(forged)), t.now)
        assert conn not in t.sequencer.links
        assert "could not prove it holds that key" in refusals(t, conn)[0]
    assert all(not s.ended for s in t.sessions[:3])


def test_a_watch_without_a_proof_is_refused() -> None:
    t = lobby()
    stranger(t, 99)
    t.sequencer.receive(99, frame(pack({"control": "watch", "from": MALLORY.public})), t.now)
    assert 99 not in t.sequencer.links and "no proof" in refusals(t, 99)[0]


def test_nothing_but_the_intro_before_the_proof_an_envelope_drops_the_connection() -> None:
    t = lobby()
    stranger(t, 99)
    host = t.sessions[0]
    assert host.chain is not None
    raw = t.clients[0].session.log[0]  # any envelope at all
    t.sequencer.receive(99, frame(raw), t.now)
    assert 99 not in t.sequencer.links and len(host.log) == len(t.clients[0].session.log)


def test_one_address_holds_four_unproven_connections_the_oldest_gives_way() -> None:
    t = lobby()
    for conn in range(100, 100 + links.MAX_UNPROVEN):
        stranger(t, conn)
    seq = t.sequencer
    assert seq.door(CROWD, t.now) == "close" and seq.door("192.0.2.1", t.now) == "take"
    assert seq.door("192.0.2.1", t.now, opening=links.MAX_UNPROVEN) == "close"
    t.now += links.PROVE_WITHIN
    assert seq.door(CROWD, t.now) == "replace"  # they had their chance: a new one makes room
    stranger(t, 200)
    assert 100 not in seq.links and 200 in seq.links
    assert len([c for c, link in seq.links.items() if link.source == CROWD]) == 4
    for conn in (201, 202, 203):  # each older one gives way once...
        assert seq.door(CROWD, t.now) == "replace"
        stranger(t, conn)
    assert seq.door(CROWD, t.now) == "close"  # ...then none has had its chance yet


def returning_table() -> tuple[MemoryTable, PeerSession]:
    """A 3-seat game in its first hand whose seat 2 dropped and is kept for its return."""
    seeds = MemorySeeds()
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=21)
    t.sessions[2].seeds = seeds
    mid_hand(t, 2)
    drop(t, 2)
    t.advance(t.now + 5)
    assert t.sessions[0].away == {2: 60}
    again = make_peer("21/2", "p2")  # the same user, a new process
    again.seeds = seeds
    return t, again


def forged_crowd(t: MemoryTable, first: int, count: int, victim: bytes) -> None:
    """``count`` connections from many addresses whose intros name ``victim`` with no valid
    proof (an older pageone's, or a replayed one)."""
    for conn in range(first, first + count):
        t.sequencer.connect(conn, t.now, f"198.51.100.{conn % 200}")
        t.kill(conn)
        forged = {"control": "intro", "from": victim,
                  "proof": proof_of_key(MALLORY, bytes(16), bytes(32), "intro")}
        if conn % 2:
            t.sequencer.receive(conn, frame(pack(forged)), t.now)


def test_forged_intros_naming_a_seat_never_keep_its_player_out() -> None:
    t, again = returning_table()
    host, victim = t.sessions[0], again.identity.public
    forged_crowd(t, 500, 40, victim)  # before it comes back: they hold nothing
    assert host.away == {2: 60} and not any(link.keeps for link in t.sequencer.links.values())
    t.clients.append(Client(again, t.now))
    conn = len(t.clients)
    connected = t.now
    t.sequencer.connect(conn, t.now, "192.0.2.2")
    # While its proof is on its way (a round trip), fewer strangers than wait at once come in
    # (the host takes 20 a second): they do not push it out.
    forged_crowd(t, 600, links.MAX_UNSEATED - 1, victim)
    assert conn in t.sequencer.links
    steps = 0
    while t.step():  # its proof arrives: welcomed as seated, its back in the log at once
        steps += 1
        forged_crowd(t, 1000 + 10 * steps, 10, victim)
        assert conn in t.sequencer.links
    assert t.sequencer.links[conn].keeps and "back" in kinds(host) and host.away == {}
    assert t.now - connected < 2.0 and again.me == 2 and not again.ended
    forged_crowd(t, 2000, 40, victim)  # after: a proven seat never gives way
    assert conn in t.sequencer.links
    t.run(limit=t.now + 900)
    assert all(s.game_over and not s.ended for s in (host, t.sessions[1], again))


def test_the_joiner_proves_its_key_only_to_the_host_it_expects() -> None:
    t = lobby()
    session = make_peer("other", "other")
    host_key = t.sessions[0].identity.public
    client = Client(session, t.now, expect=host_key)
    assert client.out == []  # nothing before the challenge
    impostor = frame(pack({"control": "challenge", "nonce": bytes(16), "from": MALLORY.public}))
    client.receive(impostor, t.now)
    assert not any(unpack(f[4:]).get("control") == "intro" for f in client.out
                   if isinstance(unpack(f[4:]), dict))
    assert "not the table's host" in session.ended and MALLORY.fingerprint in session.ended


# --- a joiner's standby listener, over loopback -------------------------------------------------


def dealt_table() -> MemoryTable:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=5)
    while not all(s.game is not None and s.hand_known() for s in t.sessions):
        if not t.step():
            t.advance(t.now + 0.5)
    return t


async def _connect(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, dict[str, Any]]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    decoder = FrameDecoder()
    while not (payloads := decoder.feed(await reader.read(4096))):
        pass
    return reader, writer, unpack(payloads[0])


async def _closed(reader: asyncio.StreamReader) -> list[Any]:
    """What the listener sends until it closes the connection."""
    data = await asyncio.wait_for(reader.read(), 5.0)
    return [unpack(p) for p in FrameDecoder().feed(data)]


def test_a_direct_claiming_another_seats_key_replaces_nothing() -> None:
    t = dealt_table()
    me, honest = t.sessions[1], t.sessions[2]

    async def run() -> None:
        standby = Standby(me)
        port = int((await standby.open("127.0.0.1")).rsplit(":", 1)[1])
        _, writer, challenge = await _connect(port)
        assert challenge["from"] == me.identity.public and len(challenge["nonce"]) == 16
        writer.write(links.answer_challenge(challenge, honest.identity, {"control": "direct"},
                                            me.identity.public))
        await asyncio.sleep(0.1)
        kept = standby._by_peer[honest.identity.public]
        forged_reader, forged_writer, challenge = await _connect(port)
        proof = proof_of_key(MALLORY, challenge["nonce"], challenge["from"], "direct")
        forged_writer.write(frame(pack({"control": "direct", "from": honest.identity.public,
                                        "proof": proof})))
        [refused] = await _closed(forged_reader)
        assert "could not prove it holds that key" in refused["reason"]
        assert standby._by_peer[honest.identity.public] is kept and not kept.done()
        assert honest.identity.public not in standby.banned  # nobody is named for it
        writer.close()
        forged_writer.close()
        standby.close()

    asyncio.run(run())


def test_a_direct_flood_is_cut_off_and_that_key_refused_for_a_while() -> None:
    t = dealt_table()
    me, flooder = t.sessions[1], t.sessions[2]
    key = flooder.identity.public

    async def flood(port: int, payload: bytes, count: int) -> list[Any]:
        reader, writer, challenge = await _connect(port)
        writer.write(links.answer_challenge(challenge, flooder.identity,
                                            {"control": "direct"}, me.identity.public))
        await asyncio.sleep(0.05)  # proven first: its frames are then a proven key's
        writer.write(payload * count)
        try:
            return await _closed(reader)
        finally:
            writer.close()

    async def run() -> None:
        standby = Standby(me)
        port = int((await standby.open("127.0.0.1")).rsplit(":", 1)[1])
        small = frame(pack({"n": 1}))
        assert await flood(port, small, links.IDLE_FRAMES + 1) == []  # closed, no word
        until = standby.banned[key]
        assert until > asyncio.get_running_loop().time() + BANNED_FOR - 1
        assert await flood(port, frame(pack({"n": 2})), 1) == []  # refused meanwhile
        standby.banned.clear()
        big = (DIRECT_FRAME + 1).to_bytes(4, "big") + bytes(DIRECT_FRAME + 1)
        assert await flood(port, big, 1) == [] and key in standby.banned
        assert not me.ended
        standby.close()

    asyncio.run(run())


def test_the_mesh_never_proves_its_key_to_another_key_than_the_seats() -> None:
    t = dealt_table()
    me, peer = t.sessions[1], t.sessions[2]
    raw = next(r for r in me.log if open_envelope(r).kind == "keys")

    async def run() -> None:
        got: list[bytes] = []

        async def impostor(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(frame(pack({"control": "challenge", "nonce": bytes(16),
                                     "from": MALLORY.public})))
            got.append(await reader.read())
            writer.close()

        server = await asyncio.start_server(impostor, "127.0.0.1", 0)
        endpoint = f"127.0.0.1:{server.sockets[0].getsockname()[1]}"
        mesh = Mesh(me.identity, lambda e: peer.identity.public if e == endpoint else b"")
        mesh.send(endpoint, raw)
        await asyncio.sleep(0.3)
        assert got == [b""]  # it hung up without a word: no proof, no envelope
        mesh.close()
        server.close()

    asyncio.run(run())


def test_claim_helper_answers_the_sequencers_challenge() -> None:
    t = lobby()
    stranger(t, 99)
    intro = claim(t.sequencer, 99, MALLORY)
    t.sequencer.receive(99, intro, t.now)
    assert t.sequencer.links[99].proven == MALLORY.public


def test_the_host_closes_a_crowd_from_one_address_at_accept_unread() -> None:
    """Over loopback: of many connections from one address at once, 4 are challenged; the rest
    are closed at accept (not a byte sent to them), not counted toward the accept rate."""
    from p2p_pageone.net.runner import HostRunner

    host = make_peer("crowd", "host", host_table=("crowd", make_settings("classic"), 3))

    async def run() -> None:
        runner = HostRunner(host, "127.0.0.1", 0, lambda s, e: None, None)
        port = await runner.start()
        crowd = [await asyncio.open_connection("127.0.0.1", port) for _ in range(12)]
        said = [await asyncio.wait_for(reader.read(4096), 5.0) for reader, _ in crowd]
        challenged = [data for data in said if data]
        assert len(challenged) == links.MAX_UNPROVEN  # the rest: closed, nothing sent
        assert all(unpack(data[4:])["control"] == "challenge" for data in challenged)
        assert runner.sequencer is not None and len(runner.sequencer.links) == 4
        for _, writer in crowd:
            writer.close()
        await runner.close()

    asyncio.run(run())


def test_a_watcher_proves_its_key_only_to_the_host_it_expects() -> None:
    from p2p_pageone.session.watch import Watcher

    watcher = Watcher(Identity(bytes([9]) * 32), 0.0)
    watcher.reconnect(0.0, expect=Identity(bytes([3]) * 32).public)  # a successor, from the log
    watcher.receive(frame(pack({"control": "challenge", "nonce": bytes(16),
                                "from": MALLORY.public})), 0.0)
    assert watcher.take_out() == [] and "not the table's host" in watcher.lost
    watcher.reconnect(1.0)  # the first host: whoever answers there
    watcher.receive(frame(pack({"control": "challenge", "nonce": bytes(16),
                                "from": MALLORY.public})), 1.0)
    [watch] = watcher.take_out()
    assert unpack(watch[4:])["control"] == "watch" and not watcher.lost
