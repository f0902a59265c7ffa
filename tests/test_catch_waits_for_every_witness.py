"""A catch waits for every witness due (found by review, helper-34): a seat that another open
``timeout`` is about stood aside in a catch's round as in a timeout's, but the catch's judgment
still counted it. At five seats the host and one friend held an honest caller's late call, the
friend caught it, the host timed out one honest witness and swallowed its answer: the catch was
judged on the friend's empty word and the other honest witness's call, 1 of 3, and the honest
caller was caught though honest witnesses held its call."""

from __future__ import annotations

from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.engine.moves import Call, Catch
from tests.cheats import audit_of
from tests.test_catch_on_the_witnesses_word import deaf_to_calls, forgetful_table

HOST, CALLER, ASIDE, FRIEND, OTHER = 0, 1, 2, 3, 4


def test_a_witness_timed_out_in_a_catchs_round_still_counts() -> None:
    table = forgetful_table(5)
    sessions = table.sessions
    caller, seq = sessions[CALLER], table.sequencer
    submit, relayed = seq._submit, seq._relayed
    held: list[bytes] = []
    caught: list[int] = []  # the catch's place in the log

    def swallowed(raw: bytes) -> bool:
        env = open_envelope(raw)
        if not caught:  # the caller's late call, held
            return (env.sender == caller.identity.public and env.kind == "move"
                    and env.data["kind"] == "call")
        return (env.sender == sessions[ASIDE].identity.public and env.kind == "witness"
                and env.data["at"] == caught[0])  # the stood-aside witness's answer

    def holding(conn: int, link: object, raw: bytes, now: float) -> bool:
        if swallowed(raw):
            held.append(raw)
            return True
        done = submit(conn, link, raw, now)  # type: ignore[arg-type]
        if not caught and sessions[HOST].claims:  # the catch is in: time a witness out
            caught.append(sessions[HOST].claims[-1].position)
            seq._timeout(ASIDE, "its witness", now)
        return done

    seq._submit = holding  # type: ignore[method-assign,assignment]
    seq._relayed = lambda raw, now: False if swallowed(raw) else relayed(raw, now)  # type: ignore[method-assign]
    sessions[FRIEND].direct = deaf_to_calls(sessions[FRIEND].direct,  # type: ignore[method-assign]
                                             caller.identity.public)
    called: list[float] = []
    while table.now < 2500 and not table.finished() and not all(
            s.ended for s in sessions if s is not sessions[HOST]):
        if (not called and caller.game is not None and caller.game.deal.open_miss == CALLER
                and not caller.claims and not caller.in_flight):
            called.append(table.now)
            caller.request(Call(CALLER))
            table.clients[CALLER - 1].collect()
        if called and len(called) == 1 and table.now - called[0] >= 2.0:
            called.append(table.now)  # the friend catches
            sessions[FRIEND].request(Catch(FRIEND, CALLER))
            table.clients[FRIEND - 1].collect()
        if not table.step():
            table.advance(table.now + 0.1)
    assert caught and held, "no catch: pick another seed"
    for seat in (CALLER, ASIDE, OTHER):  # the honest seats
        session = sessions[seat]
        taken = dict(session.hand_moves) | {
            p: m for record in session.history
            for p, m in zip(record.positions, record.moves, strict=True)}
        assert not isinstance(taken.get(caught[0]), Catch), session.ended
        names = [session.names[s] for s in (CALLER, ASIDE, OTHER)]
        assert not any(session.ended.startswith(f"{name} (") for name in names), session.ended
        fault = audit_of(session).fault
        assert fault is None or fault.seat in (HOST, FRIEND), fault
