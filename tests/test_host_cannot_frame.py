"""A host that cannot frame anyone (protocol/SPEC.md §7, "Witnesses"): the host's word about
another seat names nobody unless the other peers confirm it. Each test is one attack by a
sequencer changed to misbehave, on an in-memory table whose joiners listen (the mesh); in each,
no honest seat is named, live or by the audit of any peer's log."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from p2p_pageone.audit.check import Audit
from p2p_pageone.audit.compare import compare
from p2p_pageone.bots import NormalBot, make_bot
from p2p_pageone.crypto.envelope import Envelope, open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.engine.moves import Call, Catch, Move
from p2p_pageone.engine.view import SeatView
from p2p_pageone.session import witnessing
from p2p_pageone.session.fold.queries import hand_over
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.wire.kinds import EntryKind
from tests.cheats import audit_of, table_with

VICTIM = 2
CALLER = 2


def _table(seed: int, players: int = 4) -> MemoryTable:
    settings = make_settings("classic", {"deals": 2})
    return MemoryTable(settings, players, seed=seed, direct=True)


def _run_until(table: MemoryTable, done: object, limit: float = 3600.0) -> None:
    """Deliver one round of frames at a time (a CPU game moves within one ``advance``)."""
    while not done() and table.now < limit:  # type: ignore[operator]
        if not table.step():
            table.advance(table.now + 0.5)


def _mid_hand(table: MemoryTable) -> bool:
    host = table.sequencer.host
    game = host.game
    return (game is not None and host.crypto is not None and game.chance is None
            and not host.game_over and host.hand_end is None and game.deal is host.hand_deal
            and game.deal.moves >= 3 and not host.claims and not host.outbox.pipe)


def _named(audit: Audit) -> int:
    return -1 if audit.fault is None else audit.fault.seat


def _subsets_name_no_seat(table: MemoryTable, audits: list[Audit]) -> None:
    """``pageone audit`` over any two or more of the logs: a comparison names at most the host."""
    logs = [list(session.log) for session in table.sessions]
    for size in range(2, len(logs) + 1):
        for chosen in combinations(range(len(logs)), size):
            result = compare([f"p{i}" for i in chosen], [logs[i] for i in chosen],
                             [audits[i] for i in chosen])
            assert result.ok or result.host_seat in (-1, 0), (chosen, result.text)


def _nobody_honest_named(table: MemoryTable) -> list[Audit]:
    audits = [audit_of(session) for session in table.sessions]
    assert [_named(audit) for audit in audits] == [-1] * len(audits)
    _subsets_name_no_seat(table, audits)
    assert not any(session.ended.startswith(session.names[VICTIM])
                   for session in table.sessions if session.ended)
    return audits


def test_a_false_timeout_mid_hand_is_refuted_and_the_game_goes_on() -> None:
    table = _table(seed=1)
    _run_until(table, lambda: _mid_hand(table))
    seq = table.sequencer
    seq._timeout(VICTIM, "sent nothing for 10 s", table.now)  # the victim is right there
    table.run(limit=4 * 3600)
    for session in table.sessions:
        assert session.game_over and not session.ended, session.ended
        assert VICTIM in session.active
    refuted = [e for e in table.clients[0].session.take_events() if e.kind == "refuted"]
    assert refuted and "nobody is named" in refuted[0].text
    audits = _nobody_honest_named(table)
    assert all(audit.ok for audit in audits)
    assert all(any("the host timed p2 out" in line.text for line in audit.hands)
               for audit in audits)


def _swallow(table: MemoryTable, kind: str) -> list[Envelope]:
    """The sequencer neither logs nor refuses the victim's envelopes of ``kind``, nor the copies
    the other peers hand it."""
    seq, swallowed = table.sequencer, []
    victim = table.clients[VICTIM - 1].session.identity.public
    submit, relayed = seq._submit, seq._relayed
    seq._relayed = lambda raw, now: (  # type: ignore[method-assign]
        False if open_envelope(raw).kind == kind else relayed(raw, now))

    def dishonest(conn: int, link: object, raw: bytes, now: float) -> bool:
        env = open_envelope(raw)
        if env.sender == victim and env.kind == kind:
            swallowed.append(env)
            return True
        return submit(conn, link, raw, now)  # type: ignore[arg-type]

    seq._submit = dishonest  # type: ignore[method-assign,assignment]
    return swallowed


def test_a_relayed_seed_reveal_reaches_the_log() -> None:
    # The host's link from the victim drops its reveal (the host is honest): the others hold
    # it from the mesh and hand it to the host, and the game finishes.
    table = _table(seed=2)
    seq, victim = table.sequencer, table.clients[VICTIM - 1].session.identity.public
    submit = seq._submit
    seq._submit = lambda conn, link, raw, now: (  # type: ignore[method-assign,assignment]
        True if open_envelope(raw).sender == victim and open_envelope(raw).kind == "seed_reveal"
        else submit(conn, link, raw, now))
    table.run(limit=2 * 3600)
    assert all(s.game_over and not s.ended for s in table.sessions)
    assert all(audit.ok for audit in _nobody_honest_named(table))


def test_a_withheld_seed_reveal_and_a_timeout_name_nobody() -> None:
    # The host never logs the victim's seed reveal and times it out for "refusing" it. The
    # victim's reveal went to the other listening peers too: they disprove the claim, every
    # time the host makes it. The host gains a stalled table, which the others leave.
    table = _table(seed=2)
    swallowed = _swallow(table, "seed_reveal")
    table.run(limit=300)  # the claims fall every time; the joiners give up on that host
    assert swallowed
    events = [e for s in table.sessions for e in s.take_events()]
    refuted = [e.text for e in events if e.kind == "refuted"]
    assert refuted and all("seed reveal" in text for text in refuted)
    assert not [e for e in events if e.kind == "ended" and "refused to reveal" in e.text]
    for audit in _nobody_honest_named(table):
        assert audit.fault is None


class NeverCatches(NormalBot):
    """The host's own CPU player: it leaves catching to the joiners (their catches reach the
    sequencer as envelopes, which this test's dishonest sequencer holds)."""

    def choose(self, view: SeatView, rng: random.Random) -> Move | None:
        move = super().choose(view, rng)
        return None if isinstance(move, Catch) else move


def test_a_call_held_until_a_catch_costs_the_caller_nothing_and_names_nobody() -> None:
    # The caller forgot Page One. A joiner's catch comes in; the host sits on it (and on what
    # comes after) until the caller's late call is in, holds that call 1.5 s, then appends the
    # catch and refuses the call as stale. The call went to the other listening peers too: at
    # least half of the catch's witnesses held it first, so the call counts and not the catch,
    # in every fold and every audit. Nobody is named: the witnesses' word that they held a call
    # a second is no evidence against the host (a call can lose its race on a slow link).
    settings = make_settings("classic", {"deals": 3})
    table = table_with(settings, 4, seed=5, bots={0: NeverCatches(),
                                                  CALLER: make_bot("normal", 1.0)}, direct=True)
    caller = table.clients[CALLER - 1].session
    seq = table.sequencer
    submit = seq._submit
    stash: list[tuple[int, object, bytes]] = []
    call_at: list[float] = []

    def holding(conn: int, link: object, raw: bytes, now: float) -> bool:
        env = open_envelope(raw)
        if not stash and not (env.kind == "move" and env.data["kind"] == "catch"
                              and env.data["target"] == CALLER):
            return submit(conn, link, raw, now)  # type: ignore[arg-type]
        if env.sender == caller.identity.public and env.data.get("kind") == "call":
            call_at.append(now)
        stash.append((conn, link, raw))
        return True

    relayed = seq._relayed

    def not_relayed(raw: bytes, now: float) -> bool:  # the witnesses hand the call on at once
        return False if stash else relayed(raw, now)

    seq._submit = holding  # type: ignore[method-assign,assignment]
    seq._relayed = not_relayed  # type: ignore[method-assign]
    while not table.finished() and table.now < 3600:
        if call_at and table.now - call_at[0] >= 1.5 and seq._submit is holding:
            seq._submit, seq._relayed = submit, relayed  # type: ignore[method-assign]
            for conn, link, raw in stash:  # the catch first: the call is refused as stale
                submit(conn, link, raw, table.now)  # type: ignore[arg-type]
        game = caller.game
        if (stash and not call_at and not caller.in_flight and caller.outbox.requested is None
                and game is not None and game.deal.open_miss == CALLER):
            caller.request(Call(CALLER))  # the late call
            table.clients[CALLER - 1].collect()
        if not table.step():
            table.advance(table.now + 0.1)
    assert call_at, "nobody caught the caller: pick another seed"
    catch = next(raw for _, _, raw in stash if open_envelope(raw).data.get("kind") == "catch")
    for session in table.sessions:
        assert session.ended == "" and session.game_over, session.ended
        assert session.void_catches == [catch]
        at = list(session.log).index(catch)
        taken = {p: m for record in session.history
                 for p, m in zip(record.positions, record.moves, strict=True)}
        assert taken[at] == Call(CALLER)  # at the catch's place in the hand's moves
        audit = audit_of(session)
        assert _named(audit) == -1 and audit.ok, audit.fault
        assert any("the call counts, not the catch" in note
                   for line in audit.hands for note in line.returns)


def _never_named(table: MemoryTable, seat: int) -> None:
    """No peer ended naming ``seat``; no log's audit names it, or has it leave by a claim."""
    name = table.sessions[0].names[seat]
    for session in table.sessions:
        assert not session.ended.startswith(f"{name} (seat {seat}"), session.ended
        audit = audit_of(session)
        assert _named(audit) != seat
        assert audit.last_left[1] != seat or "went silent" not in audit.last_left[2]
    _subsets_name_no_seat(table, [audit_of(session) for session in table.sessions])


def test_a_swallowed_move_names_nobody() -> None:
    # The host neither logs nor refuses the victim's move, nor the copies the others hand it.
    # The victim's move went to the others after 5 s: when the host times the victim out they
    # hold its signed move, and the claim falls.
    table = _table(seed=3)
    _run_until(table, lambda: _mid_hand(table))
    swallowed = _swallow(table, "move")
    table.run(limit=table.now + 600)
    assert swallowed
    held = [w for w in (1, 3) if table.clients[w - 1].session.mesh.held.get(
        table.clients[VICTIM - 1].session.identity.public)]
    assert held == [1, 3]
    _never_named(table, VICTIM)


def test_a_false_away_names_nobody() -> None:
    # The host says the victim's connection dropped while it plays on, swallows its back, and
    # 30 s later times it out: the victim read all of it and is alive, and says so.
    table = _table(seed=4)
    _run_until(table, lambda: _mid_hand(table))
    _swallow(table, "back")
    seq = table.sequencer
    seq.host.notify("away", {"seat": VICTIM, "why": "disconnected", "window": 60})
    seq.host.flush(table.now)
    seq._pump(table.now)
    table.run(limit=table.now + 30)
    seq._timeout(VICTIM, "its return within 60 s", table.now)
    table.run(limit=table.now + 600)
    refuted = [e for s in table.sessions for e in s.take_events() if e.kind == "refuted"]
    assert refuted
    _never_named(table, VICTIM)


def test_the_victims_own_peer_never_accepts_a_reveal_claim_its_reveal_disproves(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The mesh fails the victim (its reveal reaches nobody but the host, which swallows it), so
    # the witnesses confirm the claim and the others name the victim: they have no evidence
    # otherwise. The victim's own peer sent its reveal and knows it: it names the host.
    table = _table(seed=2)
    victim = table.clients[VICTIM - 1].session
    tell_all = witnessing.tell_all
    monkeypatch.setattr(witnessing, "tell_all", lambda s, raw: None if s is victim
                        else tell_all(s, raw))
    monkeypatch.setattr(witnessing, "to_mesh", lambda s, raw, kind, data: None)
    _swallow(table, "seed_reveal")
    table.run(limit=2 * 3600)
    host_name = table.sessions[0].names[0]
    assert victim.ended.startswith(f"{host_name} (seat 0"), victim.ended
    assert "which we revealed" in victim.ended


def test_a_witness_that_drops_during_a_round_is_not_waited_for() -> None:
    # A witness's machine dies while the round waits for it: once the host keeps its seat away
    # it witnesses nothing, the round closes on the others' answers, and the game goes on.
    table = _table(seed=6)
    _run_until(table, lambda: _mid_hand(table))
    table.kill(3)
    table.sequencer._timeout(VICTIM, "sent nothing for 10 s", table.now)
    table.run(limit=table.now + 3600)
    live = [s for i, s in enumerate(table.sessions) if i != 3]
    assert all(s.game_over and not s.ended for s in live), [s.ended for s in live]
    assert all(VICTIM in s.active and 3 not in s.active for s in live)
    _never_named(table, VICTIM)


def test_a_seat_cut_off_as_its_hand_ends_is_not_named_for_its_reveal() -> None:
    # The host closes the victim's connection at the very entry that ends the hand (the victim
    # never reads it, so it cannot know its reveal is due), keeps it from coming back, and times
    # it out with its reveal due: nobody holds its word from after the hand's end, so it leaves
    # as a leaver; nobody is named.
    table = _table(seed=7)
    _run_until(table, lambda: _mid_hand(table))
    seq, host = table.sequencer, table.sequencer.host
    append, cut = seq._append, []

    def cut_at_the_end(env: Envelope, now: float) -> None:
        append(env, now)
        if not cut and hand_over(host) and host.hand == 1:
            cut.append(now)
            seq.out = [(conn, data) for conn, data in seq.out if conn != VICTIM]
            seq._drop(VICTIM, "disconnected", now, may_return=True)

    seq._append = cut_at_the_end  # type: ignore[method-assign]
    _run_until(table, lambda: bool(cut))
    table.kill(VICTIM)
    table.run(limit=table.now + 600)
    others = [s for i, s in enumerate(table.sessions) if i != VICTIM]
    assert all(VICTIM not in s.active and not s.ended.startswith("p2") for s in others)
    for session in others:
        audit = audit_of(session)
        assert audit.fault is None, audit.fault
        assert "confirm that it knew its reveal was due" in audit.last_left[VICTIM]


def test_a_message_the_host_holds_over_the_hands_end_keeps_its_seat_from_being_named() -> None:
    # The victim chats just before the hand ends; the host neither logs nor refuses the chat
    # (nor the copies the others hand it). A peer seals one message at a time, so the victim
    # cannot reveal; its sign of life from after the hand's end reaches the witnesses, but so
    # does the held chat, sealed before the hand ended: the claim falls, nobody is named.
    table = _table(seed=4)
    _run_until(table, lambda: _mid_hand(table))
    host = table.sequencer.host
    victim = table.clients[VICTIM - 1].session
    _swallow(table, "say")

    def near_end() -> bool:
        game = host.game
        if game is None or host.claims or host.hand != 1 or hand_over(host):
            return False
        deal = game.deal
        return (deal.turn not in (VICTIM, -1) and len(deal.hands[deal.turn]) == 1
                and not victim.outbox.pipe)

    _run_until(table, near_end, limit=table.now + 3000)
    assert near_end()
    victim.say("good game")
    victim.flush(table.now)
    _run_until(table, lambda: hand_over(host), limit=table.now + 120)
    assert hand_over(host) and [sent.kind for sent in victim.outbox.pipe] == ["say"]
    start = table.now
    _run_until(table, lambda: table.now > start + 1.5)
    table.sequencer._timeout(VICTIM, "its hand seed reveal", table.now)
    table.run(limit=table.now + 120)
    assert any(e.kind == "refuted" and "sealed before the hand ended" in e.text
               for e in table.sessions[1].take_events())
    _never_named(table, VICTIM)


def test_a_chat_the_host_holds_keeps_nobody_from_their_step() -> None:
    # The host holds the victim's chat line (a peer seals one message at a time) and times it
    # out for keys it could not seal behind it: the victim gives the line up after 5 s, takes
    # its step, and the witnesses hold that step: the claim falls.
    table = _table(seed=1)
    _run_until(table, lambda: _mid_hand(table))
    host = table.sequencer.host
    victim = table.clients[VICTIM - 1].session
    _swallow(table, "say")
    _run_until(table, lambda: not victim.outbox.pipe and host.game is not None
               and host.game.deal.turn != VICTIM and not host.claims)
    victim.say("brb")
    victim.flush(table.now)
    owed = (VICTIM, "its keys for dealt cards")
    _run_until(table, lambda: owed in host.waiting_for(), limit=table.now + 30)
    assert owed in host.waiting_for() and [sent.kind for sent in victim.outbox.pipe] == ["say"]
    table.sequencer._timeout(VICTIM, owed[1], table.now)
    table.run(limit=table.now + 3600)
    assert any(e.kind == "refuted" for e in table.sessions[1].take_events())
    _never_named(table, VICTIM)
    assert all(s.game_over and VICTIM in s.active for s in table.sessions)


def test_a_timeout_after_the_game_is_over_names_the_host() -> None:
    # it would void the last hand after the standings were final
    table = _table(seed=1)
    _run_until(table, lambda: table.sequencer.host.game_over)
    seq, host = table.sequencer, table.sequencer.host
    length = len(seq.log)
    seq._timeout(VICTIM, "sent nothing for 10 s", table.now)
    assert len(seq.log) == length  # an honest sequencer times nobody out after the game
    assert host.chain is not None
    raw = seal(host.identity, host.table_id, host.hand, host.chain.next_seq(host.identity.public),
               host.chain.head, EntryKind.TIMEOUT,
               {"seat": VICTIM, "waited_for": "sent nothing for 10 s"})
    seq._append(open_envelope(raw), table.now)  # a dishonest host appends it anyway
    table.run(limit=table.now + 600)
    for client in table.clients:
        session = client.session
        assert session.ended.startswith(session.names[0]), session.ended
        assert "the game is over" in session.ended
