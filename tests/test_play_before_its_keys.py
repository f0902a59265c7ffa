"""A play of a card whose keys are not all in the log yet is refused by every way into the log
(found by review): a seat that handed the host such a play of its own in a ``relay`` frame, or
twice, skipped the hold only the seat's own first submission met, the host logged it, and every
peer named the honest host for logging what it must refuse."""

from __future__ import annotations

from p2p_pageone.crypto.envelope import seal
from p2p_pageone.engine import make_settings
from p2p_pageone.engine.moves import Play
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.moves import move_data
from p2p_pageone.wire.codec import frame, pack
from p2p_pageone.wire.kinds import EntryKind
from tests.cheats import audit_of

CHEAT = 1


def test_a_play_relayed_before_its_keys_names_nobody() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 3}), 4, seed=1, direct=True)
    client = table.clients[CHEAT - 1]
    cheat, receive, done = client.session, client.receive, []

    def cheating(data: bytes, now: float) -> None:
        receive(data, now)
        game, deck = cheat.game, cheat.crypto
        if (done or game is None or deck is None or cheat.claims or cheat.chain is None
                or cheat.private.secrets is None):
            return
        deal = game.deal
        if deal.over or game.chance is not None or deal.turn != CHEAT:
            return
        lacking = [slot for slot in deal.hands[CHEAT] if not deck.keys_complete(slot, but=CHEAT)]
        if not lacking:
            return
        led = deal.led_suit if deal.trick else -1
        card = (led if led >= 0 else 0) * 13 + 5  # whatever passes the public check
        key = cheat.private.secrets.key_for(deck, lacking[0])
        data_ = move_data(Play(CHEAT, (lacking[0],), (card,),
                               len(deal.hands[CHEAT]) - 1 == deal.rules.call_at), [key])
        raw = seal(cheat.identity, cheat.table_id, cheat.hand,
                   cheat.chain.next_seq(cheat.identity.public), cheat.chain.head,
                   EntryKind.MOVE, data_)
        client.out.append(frame(pack({"control": "relay", "raw": raw})))
        done.append(raw)

    client.receive = cheating  # type: ignore[method-assign]
    while not done and table.now < 900:
        if not table.step():
            table.advance(table.now + 0.5)
    assert done, "the cheat found a turn with a card whose keys were not all logged"
    start = table.now
    while table.now < start + 30:
        if not table.step():
            table.advance(table.now + 0.5)
    for session in table.sessions:
        assert not session.ended.startswith("p0"), session.ended
    fault = audit_of(table.sessions[2]).fault
    assert fault is None or fault.seat != 0, fault
