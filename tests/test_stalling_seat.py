"""Stalls around a witness round (protocol/SPEC.md §7, "Witnesses"): a seat that withholds the
step the table waits for cannot keep its seat by merely showing it is alive, and a host whose
claims keep falling is left by the joiners (a witness round is not progress)."""

from __future__ import annotations

import pytest

from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.engine import make_settings
from p2p_pageone.session import witnessing
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession
from tests.cheats import audit_of
from tests.test_host_cannot_frame import VICTIM, _mid_hand, _run_until, _swallow


def _table(seed: int) -> MemoryTable:
    return MemoryTable(make_settings("classic", {"deals": 2}), 4, seed=seed, direct=True)


def _withholds_keys(monkeypatch: pytest.MonkeyPatch, victim: PeerSession) -> None:
    """The victim's peer sends no ``keys`` anywhere, but its signs of life as ever."""
    take = victim.take_outgoing
    monkeypatch.setattr(victim, "take_outgoing", lambda: [
        raw for raw in take() if open_envelope(raw).kind != "keys"])
    tell_all = witnessing.tell_all
    monkeypatch.setattr(witnessing, "tell_all", lambda s, raw: None if s is victim
                        else tell_all(s, raw))
    monkeypatch.setattr(victim, "_send_direct", lambda raw, slots: None)


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
