"""A seat's witness that another witness holds, shown to disprove a claim about that seat, is
its answer to the claim it was for, logged or not (found by review, helper-35). One dishonest
seat of five, the host honest, showed the others its witness of a catch each time the host
timed it out for it, and handed the host a chat line at the same number: every timeout fell on
the witness the others held, the log could never take that witness, and the catch's round
(which waits for every due witness) stayed open until the honest seats left their host."""

from __future__ import annotations

from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.engine.moves import Catch
from p2p_pageone.session.fold.claims import Claim
from p2p_pageone.wire.codec import FrameDecoder, ProtocolError, frame
from tests.test_catch_on_the_witnesses_word import forgetful_table

HOST, CALLER, CATCHER, SEATS = 0, 1, 2, 5
SHIFTY = SEATS - 1


def _envelope(payload: bytes) -> bool:
    try:
        open_envelope(payload)
    except ProtocolError:
        return False
    return True


def test_a_witness_shown_but_never_logged_answers_the_catch() -> None:
    table = forgetful_table(SEATS)
    sessions = table.sessions
    shifty, host, seq = sessions[SHIFTY], sessions[HOST], table.sequencer
    receive, direct = seq.receive, table._direct
    allowed: set[bytes] = set()
    to_host: list[bytes] = []

    def receiving(conn: int, chunk: bytes, now: float) -> None:
        if conn == SHIFTY and host.claims and any(  # its own envelopes never reach the host
                _envelope(p) and p not in allowed for p in FrameDecoder().feed(chunk)):
            return
        receive(conn, chunk, now)

    def directing() -> bool:
        if host.claims:
            shifty.outbox.direct_out = [(e, r) for e, r in shifty.outbox.direct_out
                                        if not _envelope(r)]
        if to_host:
            table.clients[SHIFTY - 1].out += [frame(raw) for raw in to_host]
            allowed.update(to_host)
            to_host.clear()
        return direct()

    seq.receive = receiving  # type: ignore[method-assign,assignment]
    table._direct = directing  # type: ignore[method-assign]
    catch: list[Claim] = []
    handled: set[int] = set()
    missed: list[float] = []
    while table.now < 400 and not table.finished():
        game = sessions[CALLER].game
        if not missed and game is not None and game.deal.open_miss == CALLER:
            missed.append(table.now)
        if len(missed) == 1 and table.now - missed[0] >= 2.0:
            missed.append(table.now)
            sessions[CATCHER].request(Catch(CATCHER, CALLER))
            table.clients[CATCHER - 1].collect()
        catch += [c for c in host.claims if c.kind == "catch" and not catch]
        for claim in host.claims:
            if catch and claim.kind == "timeout" and claim.seat == SHIFTY and (
                    claim.position not in handled):
                handled.add(claim.position)
                chain = host.chain
                assert chain is not None
                number = chain.next_seq(shifty.identity.public)
                shown = seal(shifty.identity, host.table_id, host.hand, number, chain.head,
                             "witness", {"seat": CALLER, "at": catch[0].position, "heard": b""})
                for seat in (1, 2, 3):
                    sessions[seat].direct(shown, table.now)
                    table.clients[seat - 1].collect()
                to_host.append(seal(shifty.identity, host.table_id, host.hand, number,
                                    chain.head, "say", {"text": "still here"}))
        if not table.step():
            table.advance(table.now + 0.1)
        if catch and handled and not host.claims and table.now > max(missed) + 120:
            break
    assert catch and handled, "no catch, or no timeout of the shifty seat: pick another seed"
    for seat in range(SHIFTY):  # the honest seats: the round closed, and they play on
        session = sessions[seat]
        assert session.ended == "", session.ended
        assert not any(c.position == catch[0].position for c in session.claims)
        assert len(session.log) > catch[0].position + 40
