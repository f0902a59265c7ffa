"""The rule corrections (C6 pass, Q6 several Skips, Q3 change-colour alone) at a network table:
every peer's engine, fed only by the signed log, follows them the same way."""

from __future__ import annotations

from p2p_pageone.crypto.envelope import seal
from p2p_pageone.engine import make_settings
from p2p_pageone.engine.cards import KIND_CHANGE, KIND_SKIP, kind_of
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.wire.codec import frame, unpack


def engine_events(session: PeerSession) -> list[tuple[object, ...]]:
    return [e.data["event"] for e in session.events if e.kind == "engine"]


def finished_with_one_log(table: MemoryTable) -> None:
    first = table.sessions[0]
    for session in table.sessions:
        assert session.game_over and not session.ended, session.ended
        assert session.log == first.log


def test_c6_a_player_with_nothing_to_draw_passes_and_the_deal_is_scored() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=2)
    table.run()
    finished_with_one_log(table)
    for session in table.sessions:
        assert ("passed" in {e[0] for e in engine_events(session)})
        assert session.game is not None and not session.game.results[-1].drawn
        assert any(session.game.results[-1].scores.values())


def test_q6_two_skips_between_two_players_give_the_turn_back() -> None:
    table = MemoryTable(make_settings("qdan"), 2, seed=1)
    table.run()
    finished_with_one_log(table)
    for session in table.sessions:
        plays = [e for e in engine_events(session) if e[0] == "play"]
        doubles = [i for i, e in enumerate(plays[:-1]) if len(e[2]) == 2  # type: ignore[arg-type]
                   and kind_of(e[2][0]) == KIND_SKIP]  # type: ignore[index]
        assert doubles
        assert all(plays[i + 1][1] == plays[i][1] for i in doubles)


def test_q3_change_colour_cards_played_together_are_refused_by_the_table() -> None:
    table = MemoryTable(make_settings("qdan"), 2, seed=37)  # seat 1 is dealt two of them
    player = table.sessions[1]
    player.autoplay = False
    while not (player.game and player.hand_known() and player.game.deal.turn == 1
               and player.game.chance is None and not player.in_flight):
        if not table.step():
            table.now += 0.5
            table.sequencer.tick(table.now)
    crypto, chain, secrets = player.crypto, player.chain, player.private.secrets
    assert crypto is not None and chain is not None and secrets is not None
    deal = player.game.deal
    slots = [s for s in deal.hands[1] if kind_of(deal.known[s]) == KIND_CHANGE][:2]
    assert len(slots) == 2  # its own cards: the deck check passes, the rules refuse the pair
    data = {"kind": "play", "positions": slots, "cards": [deal.known[s] for s in slots],
            "keys": [secrets.key_for(crypto, s) for s in slots], "call": False, "colour": 0,
            "target": -1}
    raw = seal(player.identity, player.table_id, player.hand,
               chain.next_seq(player.identity.public), chain.head, "move", data)
    logged = len(table.sequencer.log)
    table.sequencer.receive(1, frame(raw), table.now)
    replies = [unpack(f[4:]) for conn, f in table.sequencer.out if conn == 1]
    refusals = [r for r in replies if isinstance(r, dict) and r.get("control") == "refused"]
    assert refusals and "one at a time" in refusals[-1]["reason"]
    assert len(table.sequencer.log) == logged  # nothing of it reached the log
