"""A host that lets in what an honest sequencer refuses is named for it, never the envelope's
author: a ``back`` signed on the host's word (its welcome said the seat was kept), and a
``hello`` after the game started."""

from __future__ import annotations

import pytest

from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.session.common import PROTOCOL_VERSION
from p2p_pageone.session.peer import PeerSession

from .cheats import audit_of
from .test_reconnect import MemorySeeds, mid_hand, table


def test_a_back_the_host_let_in_without_away_names_the_host_live_and_in_the_audit() -> None:
    t = table(MemorySeeds(), seed=21)
    mid_hand(t, 2)
    host, third, victim = t.sessions[0], t.sessions[1], t.sessions[2]
    assert host.chain is not None
    victim.resume()  # the host closed its connection; it comes back, told it holds a seat
    key = victim.identity.public
    victim.welcomed({"control": "welcome", "table": host.table_id, "head": host.chain.head,
                     "seq": host.chain.next_seq(key), "hand": host.hand,
                     "index": len(host.log), "seated": True}, t.now)
    back = victim.take_outgoing()[-1]
    assert open_envelope(back).kind == "back"
    t.kill(2)
    t.sequencer._append(open_envelope(back), t.now)  # no away first: an honest host refuses it
    while t.step():
        pass
    assert third.ended.startswith("p0 (seat 0") and "back" in third.ended, third.ended
    report = audit_of(third)
    assert not report.ok and report.fault is not None and report.fault.seat == 0, report.fault


def test_a_hello_the_host_let_in_mid_game_names_the_host() -> None:
    t = table(MemorySeeds(), seed=21)
    mid_hand(t, 2)
    host, third = t.sessions[0], t.sessions[1]
    assert host.chain is not None
    made_up = Identity(bytes(range(32)))
    hello = seal(made_up, host.table_id, 0, 0, host.chain.head, "hello",
                 {"name": "x", "proto": PROTOCOL_VERSION, "client": "pageone",
                  "endpoint": ""})
    t.sequencer._append(open_envelope(hello), t.now)
    while t.step():
        pass
    assert third.ended.startswith("p0 (seat 0") and "hello" in third.ended, third.ended


def test_a_flood_of_strangers_does_not_keep_a_returning_player_from_its_seat() -> None:
    from p2p_pageone.session.memory import make_peer
    from p2p_pageone.session.sequencer import MAX_UNSEATED, Client

    from .helpers import introduce
    from .test_reconnect import drop

    seeds = MemorySeeds()
    t = table(seeds, seed=22)
    mid_hand(t, 2)
    drop(t, 2)
    strangers = iter(range(100, 200))

    def flood(count: int) -> None:  # idle connections that never say a word
        for stranger in [next(strangers) for _ in range(count)]:
            t.dead.add(stranger)  # nobody reads what the host says to them
            t.sequencer.connect(stranger, t.now)

    flood(MAX_UNSEATED)  # every waiting place taken, each a moment ago
    returning = make_peer("22/2", "p2")
    returning.seeds = seeds
    t.clients.append(Client(returning, t.now))
    conn = len(t.clients)
    t.sequencer.connect(conn, t.now)  # the oldest stranger gives way
    intro = introduce(t.sequencer, conn, t.clients[-1], t.now)
    t.sequencer.receive(conn, intro, t.now)  # its intro proves a seat in the game
    flood(3 * MAX_UNSEATED)  # more strangers: this connection is never made to give way
    assert conn in t.sequencer.links
    while t.step():
        pass
    assert not returning.ended and returning.attachment.returning, returning.ended
    t.run(limit=t.now + 900)
    assert returning.game_over and not returning.ended, returning.ended


def test_a_player_back_before_the_host_noticed_the_drop_takes_its_seat() -> None:
    from p2p_pageone.session.memory import make_peer

    from .test_reconnect import come_back, kinds

    seeds = MemorySeeds()
    t = table(seeds, seed=23)
    mid_hand(t, 2)
    host = t.sessions[0]
    t.kill(2)  # its link is cut without a close: the host still holds the old connection
    assert not host.away
    again = make_peer("23/2", "p2")
    again.seeds = seeds
    come_back(t, again)
    assert again.attachment.returning and not again.ended, again.ended
    logged = kinds(host)
    assert logged.count("away") == 1 and logged.index("away") + 1 == logged.index("back")
    t.run(limit=t.now + 900)
    assert again.game_over and not again.ended and host.game_over and not host.ended
    assert audit_of(host).ok


def test_a_drop_never_takes_the_place_of_a_pending_expel() -> None:
    t = table(MemorySeeds(), seed=21)
    mid_hand(t, 2)
    host = t.sessions[0]
    host.in_flight = b"held"  # the host's own envelope is held in the catch window
    expel = ("expel", {"seat": 1, "reason": "bad keys", "evidence": b"..."})
    host.notify(*expel)
    assert t.sequencer._keep_seat(2, "disconnected", t.now)
    # the away is said later
    assert list(host.outbox.notices) == [expel] and 2 in t.sequencer.away_since


def test_a_joiner_whose_intro_is_never_answered_does_not_wait_forever() -> None:
    from p2p_pageone.session.client import PING, WELCOME_WITHIN, Client
    from p2p_pageone.session.memory import make_peer
    from p2p_pageone.wire.codec import frame, pack, unpack

    for challenged in (True, False):
        joiner = make_peer("d", "d")
        client = Client(joiner, 0.0)
        if challenged:
            client.receive(frame(pack({"control": "challenge", "nonce": bytes(16),
                                       "from": bytes(range(32))})), 0.0)
            assert unpack(client.out[0][4:])["control"] == "intro"
        now = 0.0
        while now < WELCOME_WITHIN + 2 and not joiner.ended:
            now += 1.0
            client.receive(PING, now)  # the host pings, and never says welcome
            client.tick(now)
        if challenged:
            assert "did not answer our introduction" in joiner.ended, joiner.ended
        else:  # an older host (version 6) sends no challenge: this pageone says so
            assert "sent no challenge" in joiner.ended and "older pageone" in joiner.ended


def test_a_joiner_back_in_after_a_drop_has_the_whole_retry_time_for_a_second_drop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from p2p_pageone.net import joiner as runner
    from p2p_pageone.session import reattach
    from p2p_pageone.session.memory import make_peer

    attempts: list[float] = []
    session = make_peer("e", "e")

    async def take_part(s: PeerSession, *args: object) -> None:
        attempts.append(asyncio.get_running_loop().time())
        if len(attempts) == 2:  # back in, and playing a while, longer than the retry time
            s.attachment.log_read = True
            await asyncio.sleep(0.3)
        elif len(attempts) == 4:
            s.attachment.dropped = ""  # the game went on to its end on this connection
            return
        s.attachment.dropped = "the connection to the host closed"

    monkeypatch.setattr(runner, "_take_part", take_part)
    monkeypatch.setattr(reattach, "RETRY_EVERY", 0.01)
    asyncio.run(runner.run_joiner(session, "127.0.0.1", 1, lambda s, e: None, None,
                                  retry_for=0.2))
    assert len(attempts) == 4 and not session.ended, (attempts, session.ended)


def test_a_back_refused_in_a_race_is_tried_again_on_a_new_connection() -> None:
    t = table(MemorySeeds(), seed=21)
    mid_hand(t, 2)
    victim = t.sessions[2]
    victim.attachment.may_resume = True
    victim.resume()
    victim.in_flight = victim.attachment.back_sent = b""
    victim.welcomed({"control": "welcome", "table": victim.table_id, "head": b"\x00" * 32,
                     "seq": 0, "hand": victim.hand,
                     "index": len(victim.log), "seated": True}, t.now)
    victim.refused("sequence number 0 was used already", t.now)  # its old connection's last
    # message went in first: it connects again
    assert victim.attachment.dropped and not victim.ended
    victim.attachment.may_resume = False
    victim.resume()
    victim.welcomed({"control": "welcome", "table": victim.table_id, "head": b"\x00" * 32,
                     "seq": 0, "hand": victim.hand,
                     "index": len(victim.log), "seated": True}, t.now)
    victim.refused("back is for a seat kept away for its return", t.now)
    assert victim.ended == "the host did not take us back: back is for a seat kept away for " \
                           "its return"
