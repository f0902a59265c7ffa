"""Whole tables in memory: sequencer + peers with the real deck, to the end of the game."""

from __future__ import annotations

import random

import pytest

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.engine import Game, make_settings
from p2p_pageone.session.hand import HandDeck
from p2p_pageone.session.memory import MemoryTable, make_peer
from p2p_pageone.session.moves import move_from
from p2p_pageone.session.sequencer import Client
from p2p_pageone.sim.referee import conservation_errors
from p2p_pageone.wire.codec import frame, pack, unpack

# Every variant setting is exercised by at least one table here.
CASES = [
    ("classic", 2, {"deals": 2}),
    ("classic", 3, {"deals": 1, "stop_eight": True, "jokers": 2, "joker_points": 20}),
    ("classic", 4, {"deals": 1, "reverse_lead": True, "call_at": 1, "hand_size": 5}),
    ("classic", 5, {"scoring": "elimination", "forget_penalty": 0}),
    ("qdan", 2, {}),
    ("qdan", 3, {"colour_changes": 0, "forget_penalty": 2}),
    ("qdan", 4, {"announce": False, "start_cards": 5, "hand_limit": 12}),
    ("qdan", 6, {"colour_changes": 8, "turn_timer": 30, "hand_limit": 10}),
]


def replay(table: MemoryTable) -> Game:
    """The full-information referee replays the moves of the log after the reveal."""
    host = table.sessions[0]
    assert host.game is not None
    return host.game


@pytest.mark.parametrize(("family", "players", "options"), CASES)
def test_memory_table_plays_to_the_end_with_identical_logs(
    family: str, players: int, options: dict[str, object]
) -> None:
    table = MemoryTable(make_settings(family, options), players, seed=players,
                        levels=["normal", "random"])
    table.run()
    for session in table.sessions:
        assert session.game_over, session.ended
        assert not session.ended
        assert session.game is not None and sorted(session.game.places)
    first = table.sessions[0]
    assert all(s.log == first.log for s in table.sessions)
    places = {tuple(s.game.places) for s in table.sessions if s.game}
    assert len(places) == 1
    kinds = [open_envelope(raw).kind for raw in first.log]
    assert kinds[:2] == ["table", "seat"] and "seed_reveal" in kinds and "move" in kinds


def test_each_peer_sees_only_its_own_hand_during_play() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=11)
    host = table.sessions[0]
    while sum(open_envelope(raw).kind == "move" for raw in host.log) < 3:
        assert table.step()
    for session in table.sessions:
        game = session.game
        if game is None or game.deal.chance is not None:
            continue
        deal = game.deal
        for seat in deal.players:
            cards = [deal.known[s] for s in deal.hands[seat]]
            if seat == session.me:
                assert any(card != -1 for card in cards)  # a card just drawn may await keys
            else:
                assert set(cards) == {-1}


def test_final_state_satisfies_card_conservation_after_the_reveal() -> None:
    table = MemoryTable(make_settings("qdan"), 3, seed=5)
    table.run()
    game = table.sessions[1].game
    assert game is not None and game.over
    assert not conservation_errors(game.deal)


def test_a_killed_peer_is_named_and_the_others_play_on_without_it() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 3}), 4, seed=3, silent_after=5.0)
    while not any(s.game is not None and s.crypto and s.crypto.rounds for s in table.sessions):
        table.step()
    for _ in range(30):
        table.step()
    table.kill(2)
    table.run(limit=table.now + 600)
    for index, session in enumerate(table.sessions):
        if index == 2:
            continue
        assert session.game_over and not session.ended, f"peer {index}: {session.ended}"
        texts = [e.text for e in session.take_events()]
        assert any("p2 (seat 2) went silent" in t and "goes on without p2" in t for t in texts)
        assert session.game is not None and session.game.places[2] == 4
    logs = {tuple(s.log) for i, s in enumerate(table.sessions) if i != 2}
    assert len(logs) == 1


def test_down_to_one_player_the_table_ends_naming_the_leaver() -> None:
    table = MemoryTable(make_settings("qdan"), 2, seed=3, silent_after=5.0)
    while not any(s.game is not None and s.crypto and s.crypto.rounds for s in table.sessions):
        table.step()
    table.kill(1)
    table.run(limit=table.now + 120)
    host = table.sessions[0]
    assert host.ended and "p1 (seat 1" in host.ended and "went silent" in host.ended


def test_a_silent_host_is_named_by_the_joiners() -> None:
    table = MemoryTable(make_settings("qdan"), 3, seed=4, silent_after=5.0)
    for _ in range(40):
        table.step()
    table.dead.update({1, 2})  # cut every link: the joiners hear nothing more
    for _ in range(20):
        table.now += 1
        for client in table.clients:
            client.tick(table.now)
    for client in table.clients:
        assert "host sent nothing" in client.session.ended or client.session.game_over


def test_same_identity_cannot_sit_twice() -> None:
    settings = make_settings("qdan")
    table = MemoryTable(settings, 3, seed=6)
    twin = make_peer("6/1", "twin")  # the same seed: the same identity as p1
    table.clients.append(Client(twin, table.now))
    table.sequencer.connect(3, table.now)
    table.run(limit=20)
    refused = [s for s in (table.sessions[1], twin) if s.ended]
    assert len(refused) == 1
    assert "each user sits once" in refused[0].ended
    assert table.sessions[0].game_over and table.sessions[2].game_over


def test_forged_move_ends_the_table_naming_the_forger() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 2, seed=8)
    while not (table.sessions[1].game and table.sessions[1].hand_known()
               and table.sessions[1].game.chance is None):
        assert table.step() or table.now < 5
    victim = table.sessions[1]
    host = table.sessions[0]
    mallory = Identity(random.Random(1).randbytes(32))
    assert host.chain is not None
    raw = seal(mallory, host.table_id, host.hand, 0, host.chain.head, "say", {"text": "hi"})
    _, body, signature = unpack(raw)
    header = unpack(body)
    header["from"] = victim.identity.public
    forged = pack([victim.identity.public, pack(header), signature])
    table.sequencer.receive(1, frame(forged), table.now)
    refusals = [unpack(data[4:]) for conn, data in table.sequencer.out if conn == 1]
    assert any(isinstance(r, dict) and "signature" in r.get("reason", "") for r in refusals)


def test_garbage_frame_drops_the_connection_and_names_the_peer() -> None:
    table = MemoryTable(make_settings("qdan"), 3, seed=9)
    while table.sessions[0].game is None:
        assert table.step()
    table.sequencer.receive(2, b"\x00\x00\x00\x03\xc1\xc1\xc1", table.now)
    assert 2 in table.sequencer.to_close
    host = table.sessions[0]
    table.run(limit=table.now + 600)
    texts = [e.text for e in host.take_events()]
    assert any("p2 (seat 2)" in t and "malformed" in t for t in texts)
    assert host.game_over and table.sessions[1].game_over


def test_moves_in_the_log_replay_through_the_engine() -> None:
    table = MemoryTable(make_settings("qdan"), 2, seed=12)
    table.run()
    host = table.sessions[0]
    moves = [move_from(host.seat_of(e.sender), e.data)
             for e in map(open_envelope, host.log) if e.kind == "move"]
    assert moves and host.game is not None and host.game.over


def test_a_wrong_dealing_key_is_refused_and_its_sender_expelled() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=21)
    cheater = table.sessions[2]
    while cheater.private.secrets is None:
        assert table.step()
    secrets = cheater.private.secrets

    def wrong_keys(deck: HandDeck, slots: list[int]) -> tuple[str, list[int], list[bytes]]:
        label, chosen, keys = type(secrets).keys_for(secrets, deck, slots)
        return label, chosen, [bytes(31) + b"\x07", *keys[1:]]

    secrets.keys_for = wrong_keys  # type: ignore[method-assign]
    table.run(limit=600)
    for index, session in enumerate(table.sessions[:2]):  # the honest peers play on without it
        assert not session.ended and session.game_over, f"peer {index}: {session.ended}"
        assert session.active == [0, 1]
    texts = " | ".join(e.text for e in table.sessions[1].take_events())
    assert "p2 (seat 2) sent a keys message every peer refuses" in texts and "wrong key" in texts
    assert table.sessions[2].ended


def test_playing_a_card_not_dealt_is_refused_and_its_author_expelled() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=23)
    cheater = table.sessions[2]
    cheater.autoplay = False  # it will make its own (false) move
    while not (cheater.game and cheater.hand_known() and cheater.game.deal.turn == 2
               and cheater.game.chance is None and not cheater.in_flight):
        if not table.step():
            table.now += 0.5
            table.sequencer.tick(table.now)
    deal, crypto, chain = cheater.game.deal, cheater.crypto, cheater.chain
    assert crypto is not None and chain is not None and cheater.private.secrets is not None
    slot = deal.hands[2][0]
    real = deal.known[slot]
    fake = 52 if real != 52 else 51  # a joker may always be played: the rules cannot object
    key = cheater.private.secrets.key_for(crypto, slot)
    data = {"kind": "play", "positions": [slot], "cards": [fake], "keys": [key],
            "call": False, "colour": -1, "target": -1}
    raw = seal(cheater.identity, cheater.table_id, cheater.hand,
               chain.next_seq(cheater.identity.public), chain.head, "move", data)
    table.sequencer.receive(2, frame(raw), table.now)
    table.run(limit=table.now + 30)
    for session in table.sessions[:2]:  # refused at receipt: the cheater is expelled
        assert not session.ended and 2 not in session.active, session.ended
        expel = open_envelope(next(r for r in session.log if open_envelope(r).kind == "expel"))
        assert expel.data["seat"] == 2 and "not the card it was dealt" in expel.data["reason"]
        assert expel.data["evidence"] == raw
        audit = audit_bytes(b"".join(frame(raw) for raw in session.log))
        assert audit.fault is None or audit.fault.step == "end of log", audit.fault
        assert audit.hands[0].status == "void" and "p2 (seat 2" in audit.hands[0].text


def test_q13_turn_timer_lets_the_players_own_cpu_play() -> None:
    table = MemoryTable(make_settings("qdan", {"turn_timer": 30}), 2, seed=31)
    human = table.sessions[1]
    human.autoplay = False  # a person who never types
    table.run(limit=24 * 3600)
    assert human.game_over and not human.ended
    texts = [e.text for e in human.take_events()]
    assert any("the CPU plays this turn" in t and "Q13" not in t for t in texts)
    assert table.now > 30


def test_without_a_turn_timer_the_table_waits_for_the_player() -> None:
    table = MemoryTable(make_settings("qdan"), 2, seed=31)
    table.sessions[1].autoplay = False
    table.run(limit=300)
    assert not table.sessions[0].ended and not table.sessions[0].game_over
