"""A leave that voids the hand while a claim waits for its witnesses (found by review): the
step the claim says a seat owed was the void hand's, so what is left to judge is whether the
seat is there. A host and one friend used to remove a seat whose keys a witness held, the
friend's ``bye`` logged right behind the claim: no envelope of the old hand counted any more."""

from __future__ import annotations

from typing import Any

from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.session.fold.duties import Duty
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.wire.kinds import EntryKind

VICTIM, WITNESS, FRIEND = 2, 1, 3


def _run_until(table: MemoryTable, done: Any, limit: float = 3600.0) -> None:
    while not done() and table.now < limit:
        if not table.step():
            table.advance(table.now + 0.5)


def test_a_bye_behind_a_claim_about_keys_removes_nobody() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 3}), 4, seed=21, direct=True)
    seq, host = table.sequencer, table.sequencer.host
    victim, friend = table.clients[VICTIM - 1].session, table.clients[FRIEND - 1].session
    witness = table.clients[WITNESS - 1].session
    armed: list[bool] = []
    submit, relayed, timeout = seq._submit, seq._relayed, seq._timeout

    def victims_keys(raw: bytes) -> bool:
        env = open_envelope(raw)
        return env.sender == victim.identity.public and env.kind == EntryKind.KEYS

    def swallowing(conn: int, link: Any, raw: bytes, now: float) -> bool:
        return True if armed and victims_keys(raw) else submit(conn, link, raw, now)

    def not_relayed(raw: bytes, now: float) -> bool:
        return False if armed and victims_keys(raw) else relayed(raw, now)

    fired: list[int] = []

    def timeout_then_bye(seat: int, what: str, now: float) -> None:
        timeout(seat, what, now)
        if seat != VICTIM or fired:
            return
        assert host.chain is not None and host.claims[0].owed is Duty.KEYS
        bye = seal(friend.identity, host.table_id, host.hand,
                   host.chain.next_seq(friend.identity.public), host.chain.head, EntryKind.BYE,
                   {"reason": "had to go"})
        table.kill(FRIEND)
        fired.append(host.hand)
        submit(FRIEND, seq.links[FRIEND], bye, now)
        assert host.hand == fired[0] + 1 and host.claims  # the hand void, the claim waiting

    seq._submit, seq._relayed = swallowing, not_relayed  # type: ignore[method-assign]
    seq._timeout = timeout_then_bye  # type: ignore[method-assign]
    _run_until(table, lambda: (host.game is not None and host.game.deal.moves >= 2
                               and host.hand_end is None and not host.claims))
    armed.append(True)
    _run_until(table, lambda: bool(fired))
    _run_until(table, lambda: False, limit=table.now + 60)
    assert VICTIM in witness.active and VICTIM in host.active and not victim.ended
    assert any(event.kind == "refuted" for event in witness.events)


def test_a_claim_about_a_seat_that_left_waits_for_no_witness() -> None:
    # (review) the friend goes silent on its turn and is timed out (claim A); the host swallows
    # the victim's witness of A, times the victim out for it (claim B) and logs the friend's bye
    # behind that: the hand is void. Claim A, about a seat gone, kept waiting for the victim's
    # witness, which the victim had sealed in the old hand, so the host timed it out for that
    # witness again in the new hand and it was removed, nobody named
    table = MemoryTable(make_settings("classic", {"deals": 3}), 4, seed=21, direct=True)
    seq, host = table.sequencer, table.sequencer.host
    victim, friend = table.sessions[VICTIM], table.sessions[FRIEND]
    armed: list[bool] = []
    submit, relayed, timeout = seq._submit, seq._relayed, seq._timeout

    def victims_witness(raw: bytes) -> bool:
        env = open_envelope(raw)
        return env.sender == victim.identity.public and env.kind == EntryKind.WITNESS

    def swallowing(conn: int, link: Any, raw: bytes, now: float) -> bool:
        return True if armed and victims_witness(raw) else submit(conn, link, raw, now)

    def not_relayed(raw: bytes, now: float) -> bool:
        return False if armed and victims_witness(raw) else relayed(raw, now)

    fired: list[int] = []

    def timeout_then_bye(seat: int, what: str, now: float) -> None:
        timeout(seat, what, now)
        if seat != VICTIM or fired or not armed:
            return
        assert host.chain is not None
        bye = seal(friend.identity, host.table_id, host.hand,
                   host.chain.next_seq(friend.identity.public), host.chain.head, EntryKind.BYE,
                   {"reason": "had to go"})
        fired.append(host.hand)
        assert relayed(bye, now)  # handed on by the friend's friend, say

    seq._submit, seq._relayed = swallowing, not_relayed  # type: ignore[method-assign]
    seq._timeout = timeout_then_bye  # type: ignore[method-assign]
    _run_until(table, lambda: (host.game is not None and host.game.deal.moves >= 2
                               and host.hand_end is None and not host.claims
                               and host.game.deal.turn == FRIEND))
    armed.append(True)
    table.kill(FRIEND)  # silent on its turn: the host's own clock times it out
    _run_until(table, lambda: bool(fired), limit=table.now + 200)
    assert fired
    _run_until(table, lambda: False, limit=table.now + 120)
    assert VICTIM in table.sessions[WITNESS].active and not victim.ended, victim.ended
