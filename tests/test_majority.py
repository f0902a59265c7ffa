"""Takeover by majority (protocol/SPEC.md §7, "Failover"), in memory and on one listener: a
successor takes the table over only with signed ``lost`` statements from a majority of the
listening seats; a minority side stops naming nobody; a host the majority left stops appending;
intros are no witnesses; a takeover without its majority names its author."""

from __future__ import annotations

import asyncio

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.audit.compare import compare
from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.crypto.statements import proof_of_key, seal_statement
from p2p_pageone.engine import make_settings
from p2p_pageone.net.standby import Standby
from p2p_pageone.session.attachment import lost_frame
from p2p_pageone.session.fold.lost import HANDOVER, listening_seats, needed
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.session.reach import DropReach
from p2p_pageone.session.reattach import CUT_FROM_HOST, stop_retrying
from p2p_pageone.session.route import Route
from p2p_pageone.wire.codec import FrameDecoder, frame, pack, unpack

from .helpers import lost_to
from .test_takeover_attacks import NewHost, kinds, run_until

HOST = ("127.0.0.1", 7000)


def _mid_hand(players: int = 4) -> MemoryTable:
    t = MemoryTable(make_settings("classic", {"deals": 2}), players, seed=5, direct=True)
    s = t.sessions
    run_until(t, lambda: s[1].game is not None and s[1].game.deal.moves >= 3)
    out, t.sequencer.out = t.sequencer.out, []
    for conn, data in out:  # every peer has the host's whole log (what it says waits)
        t.clients[conn - 1].receive(data, t.now)
    assert all(len(p.log) == len(s[0].log) for p in s)
    return t


def _log_bytes(session: PeerSession) -> bytes:
    return b"".join(frame(raw) for raw in session.log)


def _takeover(author: PeerSession, lost: list[bytes]) -> bytes:
    chain = author.chain
    assert chain is not None
    return seal(author.identity, author.table_id, author.hand,
                chain.next_seq(author.identity.public), chain.head, "takeover",
                {"seat": 0, "window": 60, "lost": lost})


def test_the_listening_seats_and_their_majority() -> None:
    t = _mid_hand()
    host = t.sessions[0]
    assert listening_seats(host) == [0, 1, 2, 3] and needed(host) == 3  # host+A+B+C: 3 of 4
    t.clients[2].session.attachment.endpoint = ""
    three = _mid_hand(3)
    assert needed(three.sessions[0]) == 2  # host+A+B: 2 of 3


def test_a_successor_cut_off_from_a_live_host_stops_and_nobody_is_named() -> None:
    """Only the path host<->successor fails: the successor has its own statement and nobody
    else's, so it never takes over; the host's side plays on; every log audits clean."""
    t = _mid_hand()
    successor = t.sessions[1]
    successor.attachment.may_resume = True
    t.kill(1)  # its link to the host: nothing passes either way
    run_until(t, lambda: bool(successor.attachment.dropped), limit=t.now + 30)
    route = Route(HOST)
    route.note(HOST, "refused")
    assert successor.sign_lost("the connection to the host closed; it refused a new one")
    assert not successor.lost_majority()
    assert route.next(successor, True, successor.lost_majority()) is not None  # no takeover
    reach = DropReach()  # the others' listeners answered: not this machine's whole network
    reach.note(HOST, "refused")
    reach.note(("127.0.0.3", 7003), "")
    stop_retrying(successor, route, reach, 60.0)
    assert successor.ended == CUT_FROM_HOST and successor.attachment.network
    t.run()
    others = [t.sessions[0], *t.sessions[2:]]
    assert all(s.game_over and not s.ended for s in others), [s.ended for s in others]
    for session in t.sessions:
        report = audit_bytes(_log_bytes(session))
        assert report.fault is None, report.fault
    assert "takeover" not in kinds(t.sessions[0])


def test_the_successor_takes_over_only_with_a_majority_of_statements() -> None:
    t = _mid_hand()
    s = t.sessions
    successor = s[1]
    route = Route(HOST)
    route.note(HOST, "unanswered")
    route.last = HOST
    successor.sign_lost("the host sent nothing for 10 s; a new connection was not answered")
    after = route.next(successor, True, successor.lost_majority())
    assert after not in (None, HOST)  # no takeover: it looks whether the seats after it are
    assert successor.take_lost(lost_to(s[2], successor, "the host went silent")) is None
    assert not successor.lost_majority()  # 2 of the 4 listening seats: no majority
    route.last = HOST
    assert route.next(successor, True, successor.lost_majority()) is not None
    assert successor.take_lost(lost_to(s[3], successor, "the host went silent")) is None
    assert successor.lost_majority()  # 3 of 4
    route.last = HOST
    assert route.next(successor, True, successor.lost_majority()) is None


def test_a_takeover_with_too_few_or_forged_statements_names_its_author() -> None:
    t = _mid_hand()
    s = t.sessions
    author, other = s[1], s[2]
    own = author.sign_lost("lost it")
    stranger = seal_statement(other.identity, "lost", {
        "table": bytes(16), "host": other.host_key, "index": 0, "head": bytes(32),
        "why": "another table", "for": author.identity.public})
    for lost, why in [([own], "lost statements of 1 seats; a takeover needs 3"),
                      ([own, own, lost_to(other, author, "x")], "two lost statements of one seat"),
                      ([own, stranger, lost_to(s[3], author, "y")], "for this table"),
                      ([own, other.sign_lost("x"), s[3].sign_lost("y")],
                       "counts only for the successor it names")]:
        raw = _takeover(author, lost)
        assert why in (author.admissible(open_envelope(raw)) or ""), why
        viewer = _mid_hand()  # the same table, folded again: an honest peer's view
        peer = viewer.sessions[2]
        peer.on_log(raw, viewer.now)
        assert peer.ended.startswith(peer.who(1)) and why in peer.ended, peer.ended
        report = audit_bytes(_log_bytes(s[0]) + frame(raw))
        assert report.fault is not None and report.fault.seat == 1, report.fault


def test_intros_without_proof_are_no_witnesses_and_a_live_host_refuses_lost() -> None:
    """On the successor's real listener (loopback): intros of seated keys and lost frames
    without a proof change nothing; while it reaches the host it refuses every lost."""
    t = _mid_hand()
    s = t.sessions
    successor = s[1]

    async def scenario() -> list[str]:
        standby = Standby(successor)
        endpoint = await standby.open("127.0.0.1")
        port = int(endpoint.rpartition(":")[2])
        answers = []
        try:
            for peer in s[2:]:  # forged: the key is theirs, the connection is not
                answers.append(await _say(port, lambda c, p=peer: {
                    "control": "intro", "from": p.identity.public}))
                statement = peer.sign_lost("forged")
                answers.append(await _say(port, lambda c, p=peer, st=statement: {
                    "control": "lost", "from": p.identity.public, "proof": b"",
                    "statement": st}))
            successor.attachment.answered = True  # it reaches the host
            peer = s[2]
            answers.append(await _say(port, lambda c: {
                "control": "lost", "from": peer.identity.public, "statement":
                lost_to(peer, successor, "lost"), "proof": proof_of_key(peer.identity, c["nonce"],
                                                              c["from"], "lost")}))
            successor.attachment.answered = False  # now it has lost the host too
            successor.attachment.dropped = "the host sent nothing for 10 s"
            answers.append(await _say(port, lambda c: {
                "control": "lost", "from": peer.identity.public, "statement":
                lost_to(peer, successor, "lost"), "proof": proof_of_key(peer.identity, c["nonce"],
                                                              c["from"], "lost")}))
        finally:
            standby.close()
        return answers

    answers = asyncio.run(scenario())
    # an intro without a proof is refused, and no witness of anything
    assert "no proof of its key" in answers[0] and "no proof of its key" in answers[2]
    assert "could not prove it holds that key" in answers[1]
    assert "could not prove it holds that key" in answers[3]
    assert answers[4] == "the host still answers here"
    assert answers[5] == ""  # taken
    assert list(successor.attachment.lost) == [s[2].identity.public]
    assert not successor.lost_majority()  # one statement, and an intro is no witness


async def _say(port: int, make) -> str:  # type: ignore[no-untyped-def]
    """Connect, read the challenge, send ``make(challenge)``: the refusal's reason, or ""."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    decoder, frames = FrameDecoder(), []
    try:
        while not frames:
            frames = decoder.feed(await reader.read(65536))
        challenge = unpack(frames.pop(0))
        assert challenge["control"] == "challenge"
        writer.write(frame(pack(make(challenge))))
        data = await asyncio.wait_for(reader.read(65536), 3.0)
        answer = decoder.feed(data) if data else []
        return str(unpack(answer[0])["reason"]) if answer else ""
    finally:
        writer.close()


def test_a_host_that_a_majority_lost_stops_and_appends_nothing() -> None:
    t = _mid_hand()
    s = t.sessions
    host = s[0]
    for conn in (1, 2):
        t.sequencer.receive(conn, lost_frame(s[conn], s[conn].sign_lost("unserved")), t.now)
    assert not host.ended  # 2 of the 3 it needs
    length = len(host.log)
    t.sequencer.receive(3, lost_frame(s[3], s[3].sign_lost("unserved")), t.now)
    assert host.ended and host.attachment.network and "moved on" in host.ended
    for conn in (1, 2, 3):
        t.sequencer.disconnect(conn, t.now)
    t.advance(t.now + 120)
    assert len(host.log) == length  # no away, no timeout, no bye


def test_a_host_stalled_while_a_majority_left_appends_nothing_about_them() -> None:
    t = _mid_hand()
    host, length = t.sessions[0], len(t.sessions[0].log)
    later = t.now + 90  # kill -STOP: no tick for 90 s; meanwhile every joiner closed its link
    for conn in (1, 2, 3):
        t.sequencer.disconnect(conn, later)
    t.dead.update({1, 2, 3})
    t.now = later
    for step in range(1, 20):
        t.sequencer.tick(later + step * 0.5)
    assert host.ended and host.attachment.network, host.ended
    assert "moved to the next seat while this machine was stopped" in host.ended
    assert len(host.log) == length


def test_a_host_stalled_while_one_seat_left_keeps_it_away() -> None:
    t = _mid_hand()
    host = t.sessions[0]
    later = t.now + 90
    t.sequencer.disconnect(2, later)
    t.dead.add(2)
    t.sequencer.tick(later)
    assert "away" not in kinds(host)[-1:]  # held until the stall's news is in
    for step in range(1, 10):
        t.sequencer.tick(later + step * 0.5)
    assert not host.ended and 2 in host.away


def test_a_joiner_the_host_does_not_serve_signs_lost_instead_of_bye() -> None:
    t = _mid_hand()
    s = t.sessions
    joiner, client = s[2], t.clients[1]
    joiner.attachment.may_resume = True
    chain = joiner.chain
    assert chain is not None
    joiner.in_flight = seal(joiner.identity, joiner.table_id, joiner.hand,
                            chain.next_seq(joiner.identity.public), chain.head, "say",
                            {"text": "anyone?"})  # the host neither logs nor refuses it
    now = t.now
    for _ in range(100):
        now += 0.5
        client.last_seen = now
        client.tick(now)
    assert joiner.attachment.dropped and not joiner.ended
    assert "follows the table to the next seat" in joiner.attachment.dropped
    assert joiner.identity.public in joiner.attachment.lost
    frames = [unpack(f[4:]) for f in client.out if not isinstance(unpack(f[4:]), list)]
    assert any(f.get("control") == "lost" for f in frames)
    assert not any(isinstance(unpack(f[4:]), list) and open_envelope(f[4:]).kind == "bye"
                   for f in client.out)
    for chunk in client.out:  # it reached the old host: kept there
        t.sequencer.receive(2, chunk, t.now)
    assert joiner.identity.public in s[0].attachment.lost


def test_a_host_that_cannot_write_its_log_hands_over_and_the_game_finishes() -> None:
    t = _mid_hand()
    s = t.sessions
    t.sequencer.local_fault("the disk is full", t.now)
    while t.step():
        pass
    bye = open_envelope(s[0].log[-1])
    assert (bye.kind, bye.data["reason"]) == ("bye", HANDOVER)
    assert s[0].ended and all(not p.ended and p.handed_over >= 0 for p in s[1:])
    route = Route(HOST)
    route.last = HOST
    s[1].attachment.dropped = "the connection to the host closed"
    assert route.next(s[1], True, s[1].lost_majority()) is None  # at once: its own word
    new = NewHost(s, t.now)
    for peer in s[2:]:
        new.join(peer)
    new.run(s[1:])
    assert all(p.game_over and not p.ended for p in s[1:]), [p.ended for p in s[1:]]
    takeover = next(open_envelope(raw) for raw in new.host.log
                    if open_envelope(raw).kind == "takeover")
    assert takeover.data["lost"] == []
    report = audit_bytes(_log_bytes(new.host))
    assert report.ok, report.fault
    result = compare(["new.log", "old.log"], [list(new.host.log), list(s[0].log)],
                     [report, audit_bytes(_log_bytes(s[0]))])
    assert result.relation == "prefix" and "the old host's side" in result.text, result.text
    assert "on the host's own word" in result.text


def test_the_audit_says_which_side_a_log_was_on() -> None:
    t = _mid_hand()
    s = t.sessions
    old = list(s[0].log)
    new = NewHost(s, t.now)
    for peer in s[2:]:
        new.join(peer)
    new.run(s[1:])
    logs = [list(new.host.log), old]
    result = compare(["new.log", "old.log"], logs,
                     [audit_bytes(b"".join(frame(r) for r in log)) for log in logs])
    assert result.relation == "prefix" and result.ok, result.text
    assert "moved to p1" in result.text and "by a majority of the seats" in result.text
    assert "the old host's side, a prefix of the table that moved on, not a fork" in result.text
    report = audit_bytes(_log_bytes(new.host))
    assert report.ok and "the table moved by a majority" in report.hands[0].text
