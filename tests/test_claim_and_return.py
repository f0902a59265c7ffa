"""A claim and a return in one witness round (protocol/SPEC.md §7, "Witnesses"): what the
witnesses hold of the claimed seat is weighed at the head it was sealed against, so a host that
drops the seat as it claims it, and logs the seat's ``back`` before the witnesses' entries,
voids nothing; and a seat whose step the host refuses while the round is open sends it again
once the log moves, not in a loop the host would drop as a flood."""

from __future__ import annotations

import pytest

from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.session import intents
from p2p_pageone.session.fold import witness
from p2p_pageone.session.fold.duties import Duty
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.session.witnessing import witness_intent
from p2p_pageone.wire.codec import frame
from p2p_pageone.wire.kinds import EntryKind
from tests.cheats import audit_of

VICTIM = 2


def _mid_hand(host: PeerSession) -> bool:
    game = host.game
    return (game is not None and game.chance is None and not host.game_over
            and host.hand_end is None and game.deal.moves >= 3 and not host.claims)


def _run_until(table: MemoryTable, done: object, limit: float = 3600.0) -> None:
    while not done() and table.now < limit:  # type: ignore[operator]
        if not table.step():
            table.advance(table.now + 0.5)


def test_a_step_sealed_after_the_claim_counts_though_the_seats_back_took_its_number() -> None:
    # The host times the victim out for its signed log head and says it is away; the victim,
    # reading the claim, seals its head against the log after the claim and hands it to the
    # witnesses; then its connection drops, and the host logs its back (at that same sequence
    # number) before any witness entry. The head the witnesses hold still disproves the claim:
    # it was the victim's next envelope at the head it was sealed against.
    table = MemoryTable(make_settings("classic", {"deals": 2}), 4, seed=11, direct=True)
    seq, host = table.sequencer, table.sequencer.host
    _run_until(table, lambda: any(o.seat == VICTIM and o.duty is Duty.HEAD for o in host.owed()))
    seq._timeout(VICTIM, "its signed log head", table.now)
    claim = host.claims[0]
    assert host.chain is not None and claim.owed is Duty.HEAD
    victim = table.clients[VICTIM - 1].session.identity
    assert host.hand_end is not None  # the head every seat signs: where the hand ended
    head = seal(victim, host.table_id, host.hand, claim.seq_then, host.chain.head, EntryKind.HEAD,
                {"index": host.hand_end[0], "head": host.hand_end[1]})
    assert witness.disproof(host, claim, head)
    host.notify(EntryKind.AWAY, {"seat": VICTIM, "why": "disconnected", "window": 60})
    host.flush(table.now)
    seq._pump(table.now)
    back = seal(victim, host.table_id, host.hand, claim.seq_then, host.chain.head, EntryKind.BACK,
                {"endpoint": host.endpoints[victim.public]})
    seq.receive(VICTIM, frame(back), table.now)
    assert host.log[-1] == back
    assert witness.disproof(host, claim, head).startswith("signed head message")
    assert claim.later
    assert not witness.disproof(host, claim, back)  # in the log: it shows nothing the log does not


def test_a_step_refused_during_a_round_is_sent_again_once_the_log_moves() -> None:
    # The host holds the witnesses' entries for 20 s: the victim's head, refused meanwhile, goes
    # to the host again only when the log moves, not in a loop the host would drop as a flood.
    table = MemoryTable(make_settings("classic", {"deals": 2}), 4, seed=12, direct=True)
    seq, refused, held = table.sequencer, [], []
    submit = seq._submit
    victim = table.clients[VICTIM - 1].session.identity.public
    released = float("inf")

    def slow_host(conn: int, link: object, raw: bytes, now: float) -> bool:
        env = open_envelope(raw)
        if env.kind == EntryKind.WITNESS and now < released:
            held.append((conn, link, raw))
            return True
        appended = submit(conn, link, raw, now)  # type: ignore[arg-type]
        if env.sender == victim and seq.host.claims and not appended:
            refused.append(len(seq.host.log))
        return appended

    seq._submit = slow_host  # type: ignore[method-assign]
    _run_until(table, lambda: any(o.seat == VICTIM and o.duty is Duty.HEAD
                                  for o in seq.host.owed()))
    released = table.now + 20
    seq._timeout(VICTIM, "its signed log head", table.now)
    _run_until(table, lambda: False, limit=released)
    for conn, link, raw in held:
        submit(conn, link, raw, table.now)  # type: ignore[arg-type]
    table.run(limit=table.now + 3600)
    assert held and refused and len(refused) == len(set(refused))  # once per log length
    for session in table.sessions:
        assert session.game_over and not session.ended, session.ended
        assert VICTIM in session.active


SLOW = 3


def test_a_witness_whose_round_closed_without_it_is_not_removed_for_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Six seats. The host times out the victim, then at once the witness p3 for its witness of
    # that claim: p3 stands aside (three other witnesses answer), and the first round closes
    # without it. The table waits for no witness of p3's any more: p3, slow to answer but there
    # (its sign of life after the claim), stays; nobody is named.
    table = MemoryTable(make_settings("classic", {"deals": 2}), 6, seed=13, direct=True)
    seq, host = table.sequencer, table.sequencer.host
    slow = table.clients[SLOW - 1].session
    monkeypatch.setattr(intents, "witness_intent", lambda s, now: (
        None if s is slow else witness_intent(s, now)))
    _run_until(table, lambda: _mid_hand(host))
    seq._timeout(VICTIM, "sent nothing for 10 s", table.now)
    seq._timeout(SLOW, "its witness", table.now)
    about_slow = next(c for c in host.claims if c.seat == SLOW)
    assert about_slow.owed is Duty.WITNESS
    table.run(limit=table.now + 3600)
    for session in table.sessions:
        assert session.game_over and not session.ended, session.ended
        assert {VICTIM, SLOW} <= set(session.active)
        audit = audit_of(session)
        assert audit.ok and audit.fault is None, audit.fault


def test_a_step_the_log_would_refuse_disproves_no_claim() -> None:
    # A claim about a seat's move falls to any envelope of that seat's the host never logged,
    # but only to one the log would take there: a second `back` from a seat that is back, or a
    # move the rules refuse, signed afresh after each claim, would keep every claim from
    # standing while the seat never moves (the simulator's seed 7846)
    table = MemoryTable(make_settings("classic", {"deals": 2}), 4, seed=11, direct=True)
    seq, host = table.sequencer, table.sequencer.host

    def victims_turn() -> bool:
        return (_mid_hand(host) and host.game is not None
                and host.game.deal.turn == VICTIM)

    _run_until(table, victims_turn)
    seq._timeout(VICTIM, "its move", table.now)
    claim = host.claims[0]
    assert host.chain is not None and claim.owed is None and VICTIM not in host.away
    victim = table.clients[VICTIM - 1].session.identity

    def step(kind: EntryKind, data: dict[str, object]) -> bytes:
        assert host.chain is not None
        return seal(victim, host.table_id, host.hand, claim.seq_then, host.chain.head, kind, data)

    back = step(EntryKind.BACK, {"endpoint": host.endpoints[victim.public]})
    assert host.step_refusal(open_envelope(back)) is not None
    assert not witness.disproof(host, claim, back)
    chat = step(EntryKind.SAY, {"text": "still here"})  # the seat is there: the claim falls
    assert witness.disproof(host, claim, chat).startswith("signed say message")
