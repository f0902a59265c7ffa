"""The table's duties in one place (``session/fold/obligations.py``): what counts as progress on
every clock, and when the host may time nobody out (half the table silent at once)."""

from __future__ import annotations

from types import SimpleNamespace

from p2p_pageone.crypto.envelope import Envelope
from p2p_pageone.session.fold.claims import Claim
from p2p_pageone.session.fold.obligations import Duty, Owed, progressed, timeable
from p2p_pageone.wire.kinds import EntryKind


def _claim(position: int, seat: int, due: set[int]) -> Claim:
    env = Envelope(b"", b"", b"", 1, position, b"", EntryKind.TIMEOUT, {"seat": seat})
    return Claim(position, seat, env, due=set(due))


def _state(claims: list[Claim], refuted: list[int],
           kind: EntryKind = EntryKind.TIMEOUT) -> SimpleNamespace:
    return SimpleNamespace(claims=claims, refuted=refuted, folded_kind=kind, game=object())


def test_a_new_claim_moves_the_table_on_unless_its_seat_was_disproved_of() -> None:
    before = (10,)
    fresh = _state([_claim(10, 1, {2, 3}), _claim(12, 2, {1, 3})], [])
    assert progressed(fresh, before, 0)  # type: ignore[arg-type]
    again = _state([_claim(10, 1, {2, 3}), _claim(12, 2, {1, 3})], [2])
    assert not progressed(again, before, 1)  # type: ignore[arg-type]


def test_a_disproved_claim_is_no_progress_and_a_witness_in_an_open_round_neither() -> None:
    disproved = _state([], [1], EntryKind.WITNESS)
    assert not progressed(disproved, (10,), 0)  # type: ignore[arg-type]
    waiting = _state([_claim(10, 1, {2, 3})], [], EntryKind.WITNESS)
    assert not progressed(waiting, (10,), 0)  # type: ignore[arg-type]
    stood = _state([], [], EntryKind.WITNESS)  # the round closed with the claim standing
    assert progressed(stood, (10,), 0)  # type: ignore[arg-type]


def test_a_witness_an_open_timeout_claims_gone_is_not_timed_out_again() -> None:
    state = _state([_claim(10, 3, {1, 2}), _claim(11, 2, {1, 3})], [])
    waits = [Owed(2, Duty.WITNESS), Owed(3, Duty.WITNESS)]
    assert timeable(state, waits) == []  # type: ignore[arg-type]
    free = Owed(1, Duty.WITNESS)
    assert timeable(state, [free, *waits]) == [free]  # type: ignore[arg-type]
