"""Stalls around a witness round (protocol/SPEC.md §7, "Witnesses"): a seat that withholds the
step the table waits for cannot keep its seat by showing it is alive, by handing the witnesses
another message, or by chatting; a witness that withholds its witness and chats is timed out;
and a host whose claims keep falling is left by the joiners (a witness round is not progress)."""

from __future__ import annotations

import pytest

from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.session import intents, witnessing
from p2p_pageone.session.fold.claims import Claim
from p2p_pageone.session.fold.duties import Duty
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession
from tests.cheats import audit_of
from tests.test_host_cannot_frame import VICTIM, _mid_hand, _run_until, _swallow

MOVE = Duty.MOVE.text


def _table(seed: int) -> MemoryTable:
    return MemoryTable(make_settings("classic", {"deals": 2}), 4, seed=seed, direct=True)


def _withholds_keys(monkeypatch: pytest.MonkeyPatch, victim: PeerSession) -> None:
    """The victim's peer never seals its ``keys`` (its signs of life go out as ever)."""
    hand_intent = intents._hand_intent

    def no_keys(s: PeerSession, now: float) -> tuple[str, dict[str, object]] | None:
        intent = hand_intent(s, now)
        return None if s is victim and intent is not None and intent[0] == "keys" else intent

    monkeypatch.setattr(intents, "_hand_intent", no_keys)


def test_a_seat_alive_on_the_mesh_that_withholds_its_keys_leaves_as_a_leaver(
        monkeypatch: pytest.MonkeyPatch) -> None:
    table = _table(seed=7)
    _run_until(table, lambda: _mid_hand(table))
    victim = table.clients[VICTIM - 1].session
    _withholds_keys(monkeypatch, victim)
    table.run(limit=table.now + 1800)
    others = [s for i, s in enumerate(table.sessions) if i != VICTIM]
    assert all(s.game_over and not s.ended for s in others), [s.ended for s in others]
    assert all(VICTIM not in s.active for s in others)
    assert not any(e.kind == "refuted" for s in others for e in s.take_events())
    assert "went silent while the table waited for its keys" in victim.ended, victim.ended
    for session in others:
        audit = audit_of(session)
        assert audit.ok and audit.fault is None, audit.fault


def test_a_host_whose_claims_keep_falling_is_left(monkeypatch: pytest.MonkeyPatch) -> None:
    # The host swallows the victim's keys and every copy the others hand it, and times the
    # victim out for them again and again: each claim falls (the witnesses hold those keys),
    # and neither the claims nor their witness entries count as the table moving on.
    table = _table(seed=8)
    _run_until(table, lambda: _mid_hand(table))
    _swallow(table, "keys")
    gave_up = [client.session for client in table.clients if client.session.seat_of(
        client.session.identity.public) != VICTIM]
    start = table.now
    while table.now < start + 300 and not all(_left_host(s) for s in gave_up):
        table.advance(table.now + 0.5)
    assert all(_left_host(s) for s in gave_up), [(s.ended, s.attachment.lost) for s in gave_up]
    refuted = [e for e in table.sessions[1].take_events() if e.kind == "refuted"]
    assert refuted, "no claim fell"
    assert table.now - start < 200


def _left_host(session: PeerSession) -> bool:
    """It signed that it lost the host, or left saying the host does not serve the table."""
    return (session.identity.public in session.attachment.lost
            or "not serving the table" in session.ended or "unresponsive" in session.ended)


def _finishes_without(table: MemoryTable, seat: int) -> None:
    """The game finishes without ``seat``, which left as a leaver; every other log audits OK."""
    others = [s for i, s in enumerate(table.sessions) if i != seat]
    assert all(s.game_over and not s.ended for s in others), [s.ended for s in others]
    assert all(seat not in s.active for s in others)
    assert not any(e.kind == "refuted" for s in others for e in s.take_events())
    for session in others:
        audit = audit_of(session)
        assert audit.ok and audit.fault is None, audit.fault


@pytest.mark.parametrize("kind", ["say", "move"])
def test_a_staller_that_hands_the_witnesses_another_message_still_leaves(
        monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    # When the host times it out, the staller sends the witnesses alone a chat, or a move the
    # host would refuse, at its next sequence number: that is not the step the table waits for.
    table = _table(seed=7)
    _run_until(table, lambda: _mid_hand(table))
    victim = table.clients[VICTIM - 1].session
    _withholds_keys(monkeypatch, victim)
    tell_all, claimed = witnessing.tell_all, witnessing.claimed
    sent: list[bytes] = []
    data = ({"text": "still here"} if kind == "say" else
            {"kind": "draw", "positions": [], "keys": [], "cards": [], "call": False,
             "colour": -1, "target": -1})

    def decoy(s: PeerSession, claim: Claim, now: float) -> None:
        claimed(s, claim, now)
        if s is victim and claim.seat == s.me and s.chain is not None:
            sent.append(seal(s.identity, s.table_id, s.hand, s.chain.next_seq(
                s.identity.public), s.chain.head, kind, data))
            tell_all(s, sent[-1])

    monkeypatch.setattr(witnessing, "claimed", decoy)
    table.run(limit=table.now + 1800)
    assert sent
    _finishes_without(table, VICTIM)


def test_a_staller_that_keeps_chatting_is_timed_out(monkeypatch: pytest.MonkeyPatch) -> None:
    table = _table(seed=7)
    _run_until(table, lambda: _mid_hand(table))
    victim = table.clients[VICTIM - 1].session
    _withholds_keys(monkeypatch, victim)
    start, said = table.now, table.now
    while not table.finished() and table.now < start + 1800:
        table.advance(table.now + 0.5)
        if table.now - said >= 20 and VICTIM in victim.active and not victim.ended:
            said = table.now
            victim.say("still thinking")
            victim.flush(table.now)
    said_in_log = [raw for raw in table.sessions[0].log if open_envelope(raw).kind == "say"]
    assert said_in_log
    _finishes_without(table, VICTIM)


def test_a_witness_that_withholds_its_witness_and_chats_is_timed_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The host's clock and the joiners' agree: neither counts a chat or a witness entry of an
    # open round, so the host times the silent witness out before any joiner gives up on it.
    silent = 3
    table = _table(seed=1)
    _run_until(table, lambda: _mid_hand(table))
    witness = table.clients[silent - 1].session
    intent = intents.witness_intent
    monkeypatch.setattr(intents, "witness_intent",
                        lambda s, now: None if s is witness else intent(s, now))
    table.sequencer._timeout(VICTIM, "sent nothing for 10 s", table.now)
    start, said = table.now, table.now
    while not table.finished() and table.now < start + 1800:
        table.advance(table.now + 0.5)
        if table.now - said >= 20 and not witness.ended:
            said = table.now
            witness.say("hmm")
            witness.flush(table.now)
    honest = [s for i, s in enumerate(table.sessions) if i != silent]
    assert all(s.game_over and not s.ended for s in honest), [s.ended for s in honest]
    assert not any(s.attachment.lost for s in honest)
    assert all(silent not in s.active and VICTIM in s.active for s in honest)


def test_a_seat_that_hands_the_others_a_move_the_host_refuses_gets_nobody_to_leave() -> None:
    # On its turn (a move has no time limit) the seat thinks, and sends the other listening
    # peers alone a signed move no peer would take: they hand it to the host, which drops it.
    # That is no censorship: nobody gives up on the host, and the table waits for the move.
    table = _table(seed=9)
    _run_until(table, lambda: _mid_hand(table))
    host = table.sequencer.host
    victim = table.clients[VICTIM - 1].session
    victim.autoplay = False
    _run_until(table, lambda: host.game is not None and host.game.deal.turn == VICTIM
               and host.waiting_for() == [(VICTIM, MOVE)] and not victim.outbox.pipe)
    start, sent = table.now, table.now - 10
    while table.now < start + 120:
        if table.now - sent >= 10 and victim.chain is not None:
            sent = table.now
            witnessing.tell_all(victim, seal(
                victim.identity, victim.table_id, victim.hand,
                victim.chain.next_seq(victim.identity.public), victim.chain.head, "move",
                {"kind": "catch", "positions": [], "keys": [], "cards": [], "call": False,
                 "colour": -1, "target": 1}))
        table.advance(table.now + 0.5)
    assert not any(s.ended or s.attachment.lost for s in table.sessions), [
        (s.ended, bool(s.attachment.lost)) for s in table.sessions]
    assert host.waiting_for() == [(VICTIM, MOVE)]


def test_a_staller_whose_step_no_log_could_take_leaves(monkeypatch: pytest.MonkeyPatch) -> None:
    # When the host times it out, the staller hands the witnesses its keys sealed against a head
    # that is not in the log: no host could log them, so they disprove nothing, and nobody
    # gives up on the host.
    table = _table(seed=7)
    _run_until(table, lambda: _mid_hand(table))
    victim = table.clients[VICTIM - 1].session
    hand_intent, owed = intents._hand_intent, []

    def keys_kept(s: PeerSession, now: float) -> tuple[str, dict[str, object]] | None:
        intent = hand_intent(s, now)
        if s is victim and intent is not None and intent[0] == "keys":
            owed.append(intent[1])
            return None
        return intent

    monkeypatch.setattr(intents, "_hand_intent", keys_kept)
    tell_all, claimed = witnessing.tell_all, witnessing.claimed

    def unloggable(s: PeerSession, claim: Claim, now: float) -> None:
        claimed(s, claim, now)
        if s is victim and claim.seat == s.me and owed and s.chain is not None:
            tell_all(s, seal(s.identity, s.table_id, s.hand, s.chain.next_seq(
                s.identity.public), b"\x01" * 32, "keys", owed[-1]))

    monkeypatch.setattr(witnessing, "claimed", unloggable)
    table.run(limit=table.now + 1800)
    assert owed
    _finishes_without(table, VICTIM)
