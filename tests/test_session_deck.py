"""The proven deck at a whole table in memory: a cheating peer's deck message is refused by the
sequencer before it enters the log, the cheater is named to every peer with the signed message as
evidence, and the hand is voided; a host that relays one anyway is caught by every peer."""

from __future__ import annotations

from collections.abc import Callable

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.crypto import group
from p2p_pageone.crypto.deck import Pass
from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.session.hand import HandDeck
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.wire.codec import frame

Forge = Callable[[HandDeck, str, Pass], Pass]


def cheat_on_pass(cheater: PeerSession, step: str, forge: Forge) -> None:
    """From its next hand on, ``cheater`` sends ``forge(deck, step, honest pass)`` instead of
    its honest ``step`` pass."""
    original = type(cheater.private.secrets).compute_pass if cheater.private.secrets else None
    assert original is not None and cheater.private.secrets is not None
    secrets = cheater.private.secrets

    def compute(deck: HandDeck) -> tuple[str, Pass] | None:
        result = original(secrets, deck)
        if result is None or result[0] != step:
            return result
        return step, forge(deck, step, result[1])

    secrets.compute_pass = compute  # type: ignore[method-assign]


def until_secrets(table: MemoryTable, seat: int) -> PeerSession:
    session = table.sessions[seat]
    while session.private.secrets is None:
        assert table.step()
    return session


def swap_two(deck: HandDeck, step: str, sent: Pass) -> Pass:
    """The peek: two positions' points exchanged after locking (or a shuffle output reordered
    after its proof was made)."""
    points = [sent.points[1], sent.points[0], *sent.points[2:]]
    return Pass(points, sent.commits, sent.proof)


def marker(deck: HandDeck, step: str, sent: Pass) -> Pass:
    """Track/stack: one output replaced by the sum of two others (a correlated marker)."""
    points = [group.decode(x) for x in sent.points]
    forged = group.encode(group.add([points[0], points[1]]))
    return Pass([forged, *sent.points[1:]], sent.commits, sent.proof)


def off_curve(deck: HandDeck, step: str, sent: Pass) -> Pass:
    x = 5
    while True:
        candidate = b"\x02" + x.to_bytes(32, "big")
        try:
            group.decode(candidate)
            x += 1
        except group.PointError:
            return Pass([candidate, *sent.points[1:]], sent.commits, sent.proof)


def expelled(table: MemoryTable, cheater: int) -> None:
    """Every honest peer named the cheater, voided the hand, and played on to the end."""
    table.run(limit=table.now + 900)
    for index, session in enumerate(table.sessions):
        if index == cheater:
            continue
        assert not session.ended, f"peer {index} ended: {session.ended}"
        assert session.game_over and cheater not in session.active
        kinds = [open_envelope(raw).kind for raw in session.log]
        assert "expel" in kinds
    host_events = " | ".join(e.text for e in table.sessions[0].take_events())
    assert f"p{cheater} (seat {cheater}) sent a" in host_events
    assert "every peer refuses" in host_events and "is void" in host_events


def test_peek_by_lock_position_swap_is_refused_before_the_log() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=41)
    cheat_on_pass(until_secrets(table, 2), "lock", swap_two)
    expelled(table, 2)
    log = [open_envelope(raw) for raw in table.sessions[0].log]
    locks = [e for e in log if e.kind == "lock" and e.sender == table.sessions[2].identity.public
             and e.hand == 1]
    assert not locks  # the bad pass never entered the log


def test_marker_in_a_shuffle_is_refused_and_the_cheater_expelled() -> None:
    table = MemoryTable(make_settings("qdan"), 3, seed=42)
    cheat_on_pass(until_secrets(table, 1), "shuffle", marker)
    expelled(table, 1)


def test_off_curve_point_names_its_author_not_the_next_shuffler() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=43)
    cheat_on_pass(until_secrets(table, 1), "shuffle", off_curve)
    expelled(table, 1)
    assert 2 in table.sessions[0].active  # seat 2, the next shuffler, is not blamed


def test_two_players_a_refused_pass_ends_the_table_naming_the_cheater() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 2, seed=44)
    cheat_on_pass(until_secrets(table, 1), "lock", swap_two)
    table.run(limit=table.now + 120)
    for session in table.sessions[:1]:
        assert "p1 (seat 1" in session.ended and "every peer refuses" in session.ended


def test_a_host_that_relays_a_bad_pass_anyway_is_caught_by_every_peer() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=45)
    host = table.sessions[0]
    cheat_on_pass(until_secrets(table, 2), "lock", swap_two)
    host.admissible = lambda env: None  # type: ignore[method-assign]  # relays everything
    table.run(limit=table.now + 120)
    for session in table.sessions[:2]:
        assert "p2 (seat 2" in session.ended and "lock pass is refused" in session.ended


def test_an_expel_whose_evidence_checks_out_names_the_host() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=46)
    host, victim = table.sessions[0], table.sessions[1]
    while not (host.crypto and host.crypto.rounds):  # the round is dealt
        assert table.step()
    honest = next(raw for raw in host.log if open_envelope(raw).kind == "shuffle"
                  and open_envelope(raw).sender == victim.identity.public)
    assert host.chain is not None
    raw = seal(host.identity, host.table_id, host.hand, host.chain.next_seq(host.identity.public),
               host.chain.head, "expel", {"seat": 1, "reason": "made up", "evidence": honest})
    table.sequencer._append(open_envelope(raw), table.now)
    table.run(limit=table.now + 60)
    for session in table.sessions[1:]:  # an old, logged message is no evidence either
        assert "p0 (seat 0" in session.ended and "refused deck message" in session.ended


def test_an_expel_whose_fresh_evidence_checks_out_names_the_host() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=47)
    host, victim = table.sessions[0], table.sessions[1]
    while not (host.crypto and host.crypto.pending_round and host.crypto.pass_turn()[1] == 1):
        assert table.step()
    crypto, chain, secrets = host.crypto, host.chain, victim.private.secrets
    assert chain is not None and secrets is not None
    step, honest = secrets.compute_pass(crypto) or ("", Pass([], [], b""))
    fresh = seal(victim.identity, victim.table_id, host.hand,
                 chain.next_seq(victim.identity.public), chain.head, step,
                 {"deck": crypto.pending_round, **honest.fields()})
    raw = seal(host.identity, host.table_id, host.hand, chain.next_seq(host.identity.public),
               chain.head, "expel", {"seat": 1, "reason": "made up", "evidence": fresh})
    table.sequencer._append(open_envelope(raw), table.now)
    table.run(limit=table.now + 60)
    for session in table.sessions[1:]:
        assert "p0 (seat 0" in session.ended and "checks out" in session.ended


def test_the_audit_of_the_log_voids_the_hand_and_names_the_expelled_cheater() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=41)
    cheat_on_pass(until_secrets(table, 2), "lock", swap_two)
    table.run(limit=900)
    audit = audit_bytes(b"".join(frame(raw) for raw in table.sessions[0].log))
    assert audit.fault is None and audit.finished
    first = audit.hands[0]
    assert first.status == "void" and "p2 (seat 2" in first.text
    assert "lock proof does not verify" in first.text
