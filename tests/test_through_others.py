"""The way back through the others (protocol/SPEC.md §7): a seat the host hangs up on and never
takes back, while the other seats still hear it, plays on through them; a claim that a seat kept
away is gone for good falls only to its ``back``; and a log sent again that repeats an entry is
no fault."""

from __future__ import annotations

from p2p_pageone.byzantine.adversary import Action
from p2p_pageone.byzantine.runner import run
from p2p_pageone.byzantine.scenario import make
from p2p_pageone.crypto.envelope import Envelope, open_envelope, seal
from p2p_pageone.crypto.statements import seal_statement
from p2p_pageone.engine import make_settings
from p2p_pageone.session import logsync
from p2p_pageone.session.fold import witness
from p2p_pageone.session.fold.duties import Duty
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.through_others import cut_off
from p2p_pageone.wire.codec import ProtocolError
from p2p_pageone.wire.kinds import EntryKind
from tests.test_claim_and_return import _run_until

VICTIM = 2


def _owes_nothing(table: MemoryTable) -> bool:
    host = table.sequencer.host
    game = host.game
    return (game is not None and game.chance is None and not host.game_over and not host.claims
            and host.hand_end is None and game.deal.moves >= 2
            and all(o.seat != VICTIM for o in host.owed())
            and not table.clients[VICTIM - 1].session.outbox.pipe)


def test_a_claim_that_a_seat_kept_away_is_gone_falls_to_its_back_alone() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 2}), 4, seed=21, direct=True)
    seq, host = table.sequencer, table.sequencer.host
    _run_until(table, lambda: _owes_nothing(table))
    host.notify(EntryKind.AWAY, {"seat": VICTIM, "why": "disconnected", "window": 60})
    host.flush(table.now)
    seq._pump(table.now)
    assert VICTIM in host.away
    seq._timeout(VICTIM, "its return within 60 s", table.now)
    claim = host.claims[0]
    assert host.chain is not None and claim.owed is Duty.RETURN
    victim = table.clients[VICTIM - 1].session.identity
    alive = seal_statement(victim, "alive", {"table": host.table_id, "index": len(host.log),
                                             "head": host.chain.head})
    assert not witness.disproof(host, claim, alive)  # it talks: that is no return
    back = seal(victim, host.table_id, host.hand, claim.seq_then, host.chain.head,
                EntryKind.BACK, {"endpoint": host.endpoints[victim.public]})
    assert witness.disproof(host, claim, back).startswith("signed back message")


def test_a_seat_the_host_hangs_up_on_and_never_takes_back_plays_on_through_the_others() -> None:
    # seed 8883: the host times p2 out, hangs up on it and reads nothing from it again; the
    # others serve p2 the log, its steps and its back go to the host through them, and it
    # plays the game out (it used to be removed: it could seal nothing without a connection)
    scenario = make(8883)
    plan = (Action("claim_hang_up", 0, 0, 2), Action("ignore", 4, 0, 2, value=3.0))
    result = run(scenario, plan)
    assert result.fired and result.verdicts == [], [v.text for v in result.verdicts]


def test_a_seat_cut_off_seals_its_back_for_the_others() -> None:
    table = MemoryTable(make_settings("qdan"), 4, seed=5, direct=True)
    host = table.sequencer.host
    _run_until(table, lambda: _owes_nothing(table))
    session = table.clients[VICTIM - 1].session
    session.attachment.may_resume = True
    session.lost_host("the connection to the host closed")
    assert cut_off(session)
    session.away[VICTIM] = 60  # as if the host's away were folded
    session.outbox.direct_out.clear()
    session.tick(table.now)
    sent = [(endpoint, _envelope(raw)) for endpoint, raw in session.outbox.direct_out]
    backs = [(endpoint, env) for endpoint, env in sent if env is not None]
    assert backs and all(env.kind == EntryKind.BACK for _, env in backs)
    assert len({endpoint for endpoint, _ in backs}) == 2  # to both other listening seats
    assert host.chain is not None and backs[0][1].seq == host.chain.next_seq(
        session.identity.public)


def _envelope(raw: bytes) -> Envelope | None:
    try:
        return open_envelope(raw)
    except ProtocolError:
        return None


def test_a_log_sent_again_that_repeats_an_entry_is_no_fault() -> None:
    table = MemoryTable(make_settings("qdan"), 3, seed=4, direct=True)
    _run_until(table, lambda: len(table.sequencer.host.log) > 20)
    session = table.clients[0].session
    session.attachment.known, session.attachment.checked = len(session.log), 5
    assert not logsync.from_host(session, 3, session.log[3], table.now)  # told twice
    assert session.attachment.checked == 5


def test_between_connections_pageone_join_goes_on_with_what_it_does_on_the_mesh() -> None:
    # a retry's pause or a successor's wait: no connection to the host, but the session's
    # signs of life, the log it serves and its steps through the others go on (every 0.5 s)
    import asyncio
    from types import SimpleNamespace

    from p2p_pageone.net import joiner

    class Session:
        def __init__(self) -> None:
            self.ticks: list[float] = []
            self.outbox = SimpleNamespace(direct_out=[])

        def tick(self, now: float) -> None:
            self.ticks.append(now)
            self.outbox.direct_out.append(("127.0.0.1:1", b"alive"))

        def take_events(self) -> list[object]:
            return []

    sent: list[tuple[str, bytes]] = []
    mesh = SimpleNamespace(send=lambda endpoint, raw: sent.append((endpoint, raw)))
    session = Session()
    asyncio.run(joiner._between_connections(session, 1.2, lambda s, e: None,  # type: ignore
                                            None, mesh))  # type: ignore[arg-type]
    assert len(session.ticks) >= 3 and len(sent) == len(session.ticks)
    assert session.outbox.direct_out == []
