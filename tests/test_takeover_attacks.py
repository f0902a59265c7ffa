"""Failover under attack and at awkward moments (protocol/SPEC.md §7, "Failover"), in memory:
the successor cannot take a live host's table; what a peer hands over to a new host is what a
sequencer would append, or nothing; a takeover between hands with a seat that cannot follow;
gathered joiners get in at once; a held move per connection at most."""

from __future__ import annotations

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.session import intents
from p2p_pageone.session.client import Client
from p2p_pageone.session.fold.queries import lacks_keys
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.session.sequencer import Sequencer
from p2p_pageone.wire.codec import MAX_FRAME, frame, pack

from .helpers import claim, lost_to


def kinds(session: PeerSession) -> list[str]:
    return [open_envelope(raw).kind for raw in session.log]


def run_until(t: MemoryTable, done, limit: float = 600) -> None:  # type: ignore[no-untyped-def]
    while not done() and t.now < limit:
        if not t.step():
            t.advance(t.now + 0.5)


class NewHost:
    """The host is gone: ``sessions[1]`` takes over and the others connect to it, each with
    its signed ``lost`` statement (a majority of the listening seats: SPEC §7, "Failover")."""

    def __init__(self, sessions: list[PeerSession], now: float) -> None:
        self.now, self.host = now, sessions[1]
        for peer in sessions[1:]:
            raw = lost_to(peer, self.host,
                          "the connection to the host closed; it refused a new one")
            if raw:
                assert self.host.take_lost(raw) is None
        self.host.take_over()
        self.seq = Sequencer(self.host, now)
        self.clients: dict[int, Client] = {}
        self.conns = 0

    def join(self, session: PeerSession) -> int:
        session.attachment.may_resume = True
        session.lost_host("the connection to the host closed")
        session.resume()
        self.conns += 1
        self.clients[self.conns] = Client(session, self.now)
        self.seq.connect(self.conns, self.now)
        return self.conns

    def step(self) -> bool:
        moved = False
        out, self.seq.out = self.seq.out, []
        for conn, data in out:
            if conn in self.clients and conn not in self.seq.to_close:
                self.clients[conn].receive(data, self.now)
                moved = True
        for conn, client in self.clients.items():
            chunks, client.out = client.out, []
            for chunk in chunks if conn in self.seq.links else []:
                self.seq.receive(conn, chunk, self.now)
                moved = True
        return moved

    def run(self, sessions: list[PeerSession], limit: float = 2000) -> None:
        while not all(s.game_over or s.ended for s in sessions) and self.now < limit:
            while self.step():
                pass
            self.now += 0.5
            self.seq.tick(self.now)
            for client in self.clients.values():
                client.tick(self.now)


def _host_withholds(t: MemoryTable, kind: str, until) -> None:  # type: ignore[no-untyped-def]
    """Play on while the host never says ``kind`` (it is about to die), until ``until()``."""
    host, plain = t.sessions[0], intents.next_intent

    def withheld(session: PeerSession, now: float):  # type: ignore[no-untyped-def]
        intent = plain(session, now)
        return None if session is host and intent and intent[0] == kind else intent

    intents.next_intent = withheld
    try:
        run_until(t, until, limit=300)
    finally:
        intents.next_intent = plain


def _mid_hand(seed: int = 3) -> MemoryTable:
    t = MemoryTable(make_settings("classic", {"deals": 2}), 4, seed=seed, direct=True)
    s = t.sessions
    run_until(t, lambda: s[1].game is not None and s[1].game.deal.moves >= 3)
    return t


def test_a_live_host_refuses_a_takeover_from_its_successor() -> None:
    t = _mid_hand()
    host, successor = t.sessions[0], t.sessions[1]
    assert host.chain is not None and host.successor() == 1
    raw = seal(successor.identity, host.table_id, host.hand,
               host.chain.next_seq(successor.identity.public), host.chain.head, "takeover",
               {"seat": 0, "window": 60, "lost": []})
    assert host.admissible(open_envelope(raw)) == ("only a new host appends takeover, as its "
                                                   "own first entry")
    t.sequencer.receive(1, frame(raw), t.now)
    t.run()
    assert "takeover" not in kinds(host) and all(s.game_over for s in t.sessions)


def test_an_entry_no_sequencer_would_append_is_refused_and_names_nobody() -> None:
    t = _mid_hand()
    s = t.sessions
    new = NewHost(s, t.now)
    liar = s[2]
    conn = new.join(liar)
    intro = claim(new.seq, conn, liar.identity)
    new.seq.out.clear()
    assert new.host.chain is not None
    early_reveal = seal(liar.identity, new.host.table_id, new.host.chain.hand,
                        new.host.chain.next_seq(liar.identity.public), new.host.chain.head,
                        "seed_reveal", {"seed": bytes(32)})
    new.seq.receive(conn, intro, new.now)
    assert new.seq.links[conn].keeps  # proven: it may hand over entries
    entry = {"control": "entry", "index": len(new.host.log), "raw": early_reveal}
    new.seq.receive(conn, frame(pack(entry)), new.now)
    assert conn not in new.seq.links  # dropped for what it sent
    assert not new.host.ended and "seed_reveal" not in kinds(new.host)[-3:]


def test_gathered_joiners_get_in_at_once_and_the_game_finishes() -> None:
    t = _mid_hand()
    s = t.sessions
    new = NewHost(s, t.now)
    for peer in s[2:]:
        new.join(peer)
    new.run(s[1:])
    assert all(p.game_over and not p.ended for p in s[1:]), [p.ended for p in s[1:]]
    log = kinds(new.host)
    assert log.count("back") == 2 and log.index("back") <= log.index("takeover") + 3
    assert len(new.clients) == 2  # no joiner had to connect again
    assert all(list(p.log) == list(new.host.log) for p in s[2:])
    assert audit_bytes(b"".join(frame(raw) for raw in new.host.log)).ok


def test_a_takeover_between_hands_with_a_seat_that_cannot_follow() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 3}), 4, seed=3, direct=True)
    # seat 3 ran in the host's process: it does not listen
    t.clients[2].session.attachment.endpoint = ""
    s = t.sessions
    host = s[0]  # it dies before it signs hand 1's head
    _host_withholds(t, "head", lambda: host.hand_end is not None and len(host.heads) == 3)
    new = NewHost(s, t.now)
    new.join(s[2])
    new.run(s[1:3])
    assert all(p.game_over and not p.ended for p in s[1:3]), [p.ended for p in s[1:3]]
    report = audit_bytes(b"".join(frame(raw) for raw in new.host.log))
    assert report.ok, report.fault
    assert report.hands[0].status == "ok"  # the hand played stands


def test_a_new_host_takes_a_handed_over_deck_pass() -> None:
    t = _mid_hand()
    new = NewHost(t.sessions, t.now)
    conn = new.join(t.sessions[2])
    new.step()
    assert new.seq.links[conn].decoder.max_frame == MAX_FRAME  # a pass is ~8 KB


def test_at_most_one_move_is_held_per_connection() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 2}), 4, seed=3, direct=True)
    host, peer = t.sessions[0], t.sessions[2]
    run_until(t, lambda: host.crypto is not None and host.game is not None
              and bool(host.crypto.rounds) and lacks_keys(host, 2))
    assert host.chain is not None
    draw = {"kind": "draw", "positions": [], "cards": [], "keys": [], "call": False,
            "colour": -1, "target": -1}
    seq = host.chain.next_seq(peer.identity.public)
    flood = b"".join(frame(seal(peer.identity, host.table_id, host.hand, seq + i,
                                host.chain.head, "move", draw)) for i in range(200))
    t.sequencer.receive(2, flood, t.now)
    assert len(t.sequencer.early) <= 1 and 2 not in t.sequencer.links  # dropped for flooding


def test_a_host_that_stops_when_its_reveal_is_due_is_recorded_so() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 3}), 4, seed=3, direct=True)
    s = t.sessions
    host = s[0]
    _host_withholds(t, "seed_reveal", lambda: host.hand_over() and len(host.seed_reveals) == 3)
    while t.step():
        pass
    new = NewHost(s, t.now)
    for peer in s[2:]:
        new.join(peer)
    new.run(s[1:])
    report = audit_bytes(b"".join(frame(raw) for raw in new.host.log))
    assert report.ok, report.fault
    assert report.hands[0].status == "void"
    assert "seed reveal was due: its moves of that hand cannot be checked" in report.hands[0].text
