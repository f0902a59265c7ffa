"""Cheating peers, each deviating at one step in an in-memory table: the honest peers end the
table naming the cheater, and ``pageone audit`` of an honest peer's log names the same seat at
the step and the entry that prove it. No honest seat is ever named."""

from __future__ import annotations

import pytest

from p2p_pageone.audit.check import Audit
from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.engine import make_settings
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession

from .cheats import (
    DrawAndPassBot,
    DrawPastBot,
    DuplicatingShuffler,
    FalseCallBot,
    Lenient,
    MovingLocker,
    OffSeedShuffler,
    RenegeBot,
    SilentAtReveal,
    SubstitutingShuffler,
    WrongKey,
    audit_of,
    classic_table_where_cheat_struck,
    table_with,
)


def honest(table: MemoryTable, cheater: int) -> list[PeerSession]:
    return [s for i, s in enumerate(table.sessions) if i != cheater]


def assert_named(table: MemoryTable, cheater: int, step: str, words: str) -> Audit:
    """Every honest peer ended naming the cheater; the audit of each honest log agrees."""
    tag = f"p{cheater} (seat {cheater}"
    audit = None
    for session in honest(table, cheater):
        assert session.ended.startswith(tag), session.ended
        audit = audit_of(session)
        assert not audit.ok and audit.fault is not None
        assert audit.fault.seat == cheater, audit.fault
        assert audit.fault.step == step, audit.fault
        assert words in audit.fault.reason, audit.fault.reason
        assert audit.fault.fingerprint == session.who(cheater).split(", ")[1].rstrip(")")
    assert audit is not None and audit.fault is not None
    return audit


def entry_kind(session: PeerSession, position: int) -> tuple[str, int]:
    env = open_envelope(session.log[position])
    return env.kind, session.seat_of(env.sender)


def assert_expelled(table: MemoryTable, cheater: int, words: str) -> None:
    """The proven deck refuses the value at once: every honest peer voids the hand without the
    cheater and plays on, and the audit of each honest log reports the hand void, naming it."""
    for session in honest(table, cheater):
        assert not session.ended, session.ended
        assert session.game_over and cheater not in session.active
        audit = audit_of(session)
        assert audit.ok and audit.finished, audit.fault
        assert audit.hands[0].status == "void", audit.hands[0]
        assert f"p{cheater} (seat {cheater}" in audit.hands[0].text
        assert words in audit.hands[0].text, audit.hands[0].text


@pytest.mark.parametrize("double, seat, words", [
    (SubstitutingShuffler, 1, "shuffle pass is refused"),
    (SubstitutingShuffler, 2, "shuffle pass is refused"),
    (DuplicatingShuffler, 2, "repeats a point"),
    (MovingLocker, 1, "lock pass is refused"),
    (WrongKey, 1, "wrong key for position"),
])
def test_a_deck_cheat_is_refused_at_once_and_the_cheater_expelled(double: type, seat: int,
                                                                  words: str) -> None:
    table = table_with(make_settings("classic", {"deals": 1}), 3, seed=40 + seat,
                       doubles={seat: double})
    table.run(limit=900)
    assert table.sessions[seat].hand > 0
    assert_expelled(table, seat, words)


def test_a_proven_shuffle_its_seed_does_not_give_is_left_to_the_audit() -> None:
    """Live peers open the cards with the seeds' keys, so they finish the hand with the right
    cards (the passes were proven); re-deriving every pass is the audit's, which names the seat
    whose revealed seed does not give its shuffle."""
    table = table_with(make_settings("classic", {"deals": 1}), 3, seed=44,
                       doubles={1: OffSeedShuffler})
    table.run(limit=900)
    for session in table.sessions:
        assert session.game_over and not session.ended, session.ended
        assert session.history[0].cards == table.sessions[0].history[0].cards
    audit = audit_of(table.sessions[0])
    assert not audit.ok and audit.fault is not None and audit.fault.seat == 1, audit.fault
    assert "does not match its seed" in audit.fault.reason, audit.fault.reason


@pytest.mark.parametrize("bot, words", [(RenegeBot, "follow suit instead of drawing"),
                                        (DrawPastBot, "follow suit instead of drawing")])
def test_a_hidden_illegal_draw_in_classic_is_named_at_its_entry(bot: type, words: str) -> None:
    table = classic_table_where_cheat_struck(bot)
    audit = assert_named(table, 2, "move, with every card known", words)
    assert entry_kind(table.sessions[0], audit.fault.entry) == ("move", 2)
    assert f"entry {audit.fault.entry}" in table.sessions[0].ended


def test_a_false_page_one_call_in_qdan_is_named_and_a_draw_and_pass_is_not() -> None:
    cheat = FalseCallBot()
    table = table_with(make_settings("qdan"), 3, seed=61, doubles={1: Lenient}, bots={1: cheat})
    table.run(limit=900)
    assert cheat.done
    audit = assert_named(table, 1, "move, with every card known", "Page One is said just before")
    assert entry_kind(table.sessions[0], audit.fault.entry) == ("move", 1)

    passer = DrawAndPassBot()  # drawing with a playable card is allowed in qdan (Q7)
    table = table_with(make_settings("qdan"), 3, seed=61, bots={1: passer})
    table.run(limit=900)
    assert passer.done
    assert all(s.game_over and not s.ended for s in table.sessions)
    assert audit_of(table.sessions[0]).ok


def test_a_peer_silent_instead_of_revealing_its_seed_is_named_as_refusing() -> None:
    # The host's timeout is a claim: the other listening peer (seat 1) confirms it, holding no
    # reveal of seat 2's, and only then is seat 2 named (at that witness's entry).
    table = table_with(make_settings("classic", {"deals": 1}), 3, seed=62,
                       doubles={2: SilentAtReveal}, direct=True)
    table.run(limit=600)
    audit = assert_named(table, 2, "seed reveal", "refused to reveal its hand seed")
    assert "cannot be checked" in audit.fault.reason
    assert entry_kind(table.sessions[0], audit.fault.entry) == ("witness", 1)
    timeout = audit.fault.entry - 1
    assert entry_kind(table.sessions[0], timeout) == ("timeout", 0)
    assert audit.hands[0].status == "fault"


def test_a_refused_reveal_nobody_can_witness_is_a_leave_not_a_cheat() -> None:
    # No other seat listens: the host's word alone names nobody; the seat leaves, the hand is
    # void, and with one player left the table ends early, nobody at fault.
    table = table_with(make_settings("classic", {"deals": 1}), 3, seed=62,
                       doubles={2: SilentAtReveal})
    table.run(limit=600)
    for session in honest(table, 2):
        assert not session.ended or not session.ended.startswith("p2 (seat 2"), session.ended
        audit = audit_of(session)
        assert audit.fault is None
        assert "no other peer could confirm" in audit.last_left[2]


def test_a_hand_voided_by_a_silent_peer_is_reported_as_void_and_the_log_passes() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 2}), 4, seed=3, silent_after=5.0)
    while not any(s.game is not None and s.crypto and s.crypto.rounds for s in table.sessions):
        table.step()
    for _ in range(30):
        table.step()
    table.kill(2)
    table.run(limit=table.now + 600)
    audit = audit_of(table.sessions[0])
    assert audit.ok and audit.finished, audit.fault
    void = [line for line in audit.hands if line.status == "void"]
    assert len(void) == 1 and void[0].hand == 1
    assert "p2 (seat 2" in void[0].text and "went silent" in void[0].text
    assert [line.status for line in audit.hands[1:]] == ["ok", "ok"]
    assert audit.places[2] == 4
