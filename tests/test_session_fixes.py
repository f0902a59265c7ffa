"""Weak points of the session around the proven deck, each closed at the depth it belongs:
a one-card reshuffle, a stop of the hand with an early seed reveal, a bye instead of the reveal,
a false card claim in a play, and messages that must never reach the fold."""

from __future__ import annotations

from p2p_pageone.audit.check import Audit, audit_bytes
from p2p_pageone.crypto.deck import Pass
from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.session.deckcheck import check_reveal, round_cards
from p2p_pageone.session.hand import HandDeck, HandSecrets
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.wire.codec import frame

from .cheats import table_with


def test_a_one_card_reshuffle_is_a_deck_round_like_any_other() -> None:
    """qdan can recycle a single public card: every peer shuffles and locks it with proofs, the
    keys check out, and the reveal re-derives it (the audit's path) to the same card."""
    seats = [0, 2, 3]
    contexts = [b"table" + bytes([seat]) * 36 for seat in seats]
    deck = HandDeck(4, seats, contexts, 52)
    secrets = {seat: HandSecrets(deck, seat, bytes([seat + 1]) * 32) for seat in seats}
    for seat, own in secrets.items():
        deck.commit(seat, own.commitment)
    deck.start(deck.next_reshuffle_label(), [17])
    while not deck.round_done():
        step, seat = deck.pass_turn()
        made = secrets[seat].compute_pass(deck)
        assert made is not None and made[0] == step
        sent = Pass.from_fields(made[1].fields())
        assert deck.refusal(step, seat, {"deck": deck.pending_round, **sent.fields()}) is None
        deck.receive_pass(step, seat, sent)
    label = deck.pending_round
    deck.finish_round(40)
    for seat in seats:
        where, slots, keys = secrets[seat].keys_for(deck, [40])
        deck.receive_keys(where, seat, slots, keys)
    assert deck.open_public(40) == 17
    seeds = {seat: own.seed for seat, own in secrets.items()}
    for seat in seats:
        check_reveal(deck, seat, seeds[seat])
    assert round_cards(deck, label, seeds) == [17]


def audit_of(session: PeerSession) -> Audit:
    return audit_bytes(b"".join(frame(raw) for raw in session.log))


def dealt(table: MemoryTable) -> None:
    host = table.sessions[0]
    while not (host.crypto and host.crypto.rounds and host.hand_moves):
        assert table.step()


def test_an_early_seed_reveal_is_refused_and_no_honest_peer_reveals() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=70)
    dealt(table)
    cheater = table.sessions[2]
    assert cheater.private.secrets is not None
    cheater.notify("seed_reveal", {"seed": cheater.private.secrets.seed})
    table.run(limit=table.now + 900)
    assert all(s.game_over and not s.ended for s in table.sessions)
    host = table.sessions[0]
    hand_entries = [open_envelope(raw).kind for raw in host.log]
    first_reveal = hand_entries.index("seed_reveal")
    assert "move" not in hand_entries[first_reveal:]  # every reveal came after the play
    assert audit_of(host).ok


def test_a_host_that_relays_an_early_seed_reveal_is_named() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=71)
    dealt(table)
    host, cheater = table.sessions[0], table.sessions[2]
    assert cheater.private.secrets is not None
    host.admissible = lambda env: None  # type: ignore[method-assign]  # relays everything
    cheater.notify("seed_reveal", {"seed": cheater.private.secrets.seed})
    table.run(limit=table.now + 120)
    for session in table.sessions[1:]:
        assert session.ended.startswith("p0 (seat 0"), session.ended
        assert "before the hand was over" in session.ended
        assert "reveal" not in [e.kind for e in session.take_events()]
    audit = audit_of(table.sessions[1])
    assert audit.fault is not None and audit.fault.seat == 0
    assert audit.fault.step == "seed reveal", audit.fault
    assert open_envelope(table.sessions[1].log[audit.fault.entry]).kind == "seed_reveal"


class ByeAtReveal(PeerSession):
    """Plays the hand, then says bye instead of revealing its seed."""

    def flush(self, now: float) -> None:
        if (self.game is not None and self.crypto is not None and self.hand_over()
                and not self.in_flight and self.me not in self.seed_reveals):
            self.notify("bye", {"reason": "gone"})
        super().flush(now)


def test_a_bye_instead_of_the_seed_reveal_is_a_refusal_to_reveal() -> None:
    table = table_with(make_settings("classic", {"deals": 1}), 3, 72, {2: ByeAtReveal})
    table.run(limit=600)
    for session in table.sessions[:2]:
        assert session.ended.startswith("p2 (seat 2"), session.ended
        assert "refused to reveal its hand seed" in session.ended
    audit = audit_of(table.sessions[0])
    assert audit.fault is not None and audit.fault.seat == 2 and audit.fault.step == "seed reveal"
    assert "its moves at entries" in audit.fault.reason
    assert open_envelope(table.sessions[0].log[audit.fault.entry]).kind == "bye"


class FalseClaim(PeerSession):
    """Its first play claims another card than the one its position holds."""

    done = False

    def flush(self, now: float) -> None:
        before = self.in_flight
        super().flush(now)
        if self.done or not self.in_flight or self.in_flight == before:
            return
        env = open_envelope(self.in_flight)
        if env.kind != "move" or env.data["kind"] != "play":
            return
        self.done = True
        data = dict(env.data)
        data["cards"] = [(data["cards"][0] + 1) % 52, *data["cards"][1:]]
        forged = seal(self.identity, env.table, env.hand, env.seq, env.prev, "move", data)
        self.in_flight = forged
        self.outbox.outgoing[-1] = forged


def test_a_false_card_claim_is_refused_at_once_and_its_author_expelled() -> None:
    table = table_with(make_settings("classic", {"deals": 1}), 3, 73, {2: FalseClaim})
    table.run(limit=900)
    assert isinstance(table.sessions[2], FalseClaim) and table.sessions[2].done
    for session in table.sessions[:2]:
        assert not session.ended, session.ended
        assert session.game_over and 2 not in session.active
    host = table.sessions[0]
    plays = [e for e in map(open_envelope, host.log) if e.kind == "move" and e.hand == 1
             and e.sender == table.sessions[2].identity.public and e.data["kind"] == "play"]
    assert not plays  # the false claim never entered the log
    audit = audit_of(host)
    assert audit.fault is None and audit.finished
    assert audit.hands[0].status == "void" and "p2 (seat 2" in audit.hands[0].text
    assert "not the card it was dealt" in audit.hands[0].text


def test_a_host_that_relays_a_false_card_claim_anyway_is_caught_by_every_peer() -> None:
    table = table_with(make_settings("classic", {"deals": 1}), 3, 73, {2: FalseClaim})
    table.sessions[0].admissible = lambda env: None  # type: ignore[method-assign]
    table.run(limit=900)
    for session in table.sessions[:2]:
        assert session.ended.startswith("p2 (seat 2"), session.ended
        assert "not the card it was dealt" in session.ended
    audit = audit_of(table.sessions[1])
    assert audit.fault is not None and audit.fault.seat == 2 and audit.fault.step == "card shown"


def sealed_by(table: MemoryTable, seat: int, kind: str, data: dict[str, object]) -> bytes:
    session, host = table.sessions[seat], table.sessions[0]
    assert host.chain is not None
    return seal(session.identity, host.table_id, host.hand,
                host.chain.next_seq(session.identity.public), host.chain.head, kind, data)


def test_a_pass_while_no_round_is_shuffled_names_its_author_with_a_reason() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=74)
    dealt(table)
    host = table.sessions[0]
    assert host.crypto is not None and not host.crypto.pending_round
    data = {"deck": "", "points": [], "commits": [], "proof": b""}
    reason = host.crypto.refusal("shuffle", 2, data)
    assert reason and "no deck round is being shuffled" in reason
    host.admissible = lambda env: None  # type: ignore[method-assign]  # relays it anyway
    table.sequencer._append(open_envelope(sealed_by(table, 2, "shuffle", data)), table.now)
    table.run(limit=table.now + 60)
    for session in table.sessions[:2]:
        assert session.ended.startswith("p2 (seat 2"), session.ended
        assert "no deck round is being shuffled" in session.ended
    audit = audit_of(table.sessions[1])
    assert audit.fault is not None and audit.fault.seat == 2 and audit.fault.step == "message"


def test_open_and_heartbeat_envelopes_are_refused_and_the_table_goes_on() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=75)
    dealt(table)
    host = table.sessions[0]
    open_data = {"deck": "1/main", "position": 0, "key": b"\x01" * 32, "card": 0}
    for kind, data in (("heartbeat", {}), ("open", open_data)):
        env = open_envelope(sealed_by(table, 1, kind, data))
        assert host.admissible(env) == f"{kind} messages are not part of this protocol " \
                                       "version's log"
        table.sequencer.receive(1, frame(env.raw), table.now)
    table.run(limit=table.now + 900)
    assert all(s.game_over and not s.ended for s in table.sessions)
    assert not {"open", "heartbeat"} & {open_envelope(raw).kind for raw in host.log}
    assert audit_of(host).ok
