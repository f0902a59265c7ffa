"""Issue 20's smaller problems, one test (or more) each: qdan groups and hints, rejoining, CPU
players who forget Page One, the narration's wording (command-line ones: test_polish_cli.py)."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import io
import random
from collections.abc import Callable

import pytest

from p2p_pageone.bots import NormalBot, make_bot
from p2p_pageone.cli import join_cmd
from p2p_pageone.cli.commands import parse_command
from p2p_pageone.cli.cpu import FORGET_DEFAULT
from p2p_pageone.cli.hints import refusal_text, what_to_do
from p2p_pageone.cli.main import build_parser
from p2p_pageone.cli.narrator import Narrator
from p2p_pageone.cli.render import Line, plain
from p2p_pageone.cli.table_cmds import advert_fields, cpu_session
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.engine import (
    Call,
    Catch,
    ClassicSettings,
    Draw,
    Game,
    IllegalMove,
    Play,
    QdanSettings,
    make_settings,
)
from p2p_pageone.engine.qdan import QdanDeal
from p2p_pageone.engine.view import SeatView
from p2p_pageone.net.discovery import Advertiser, TableAdvert, advert_from
from p2p_pageone.session.common import Event
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.session.sequencer import Client

from .helpers import cards_of, play, rig

NAMES = ["me", "bob"]


def _typed(game: Game, text: str) -> Play:
    move = parse_command(text, SeatView(game, 0), NAMES)
    assert isinstance(move, Play)
    return move


def test_a_qdan_group_is_accepted_in_either_order_as_typed() -> None:
    for typed in ("play 1r 1b", "play 1b 1r"):
        game = rig(QdanSettings(), ["1r 5y 1b 6g", "1g 2y 3y 4y"], stock="9b")
        game.apply(_typed(game, typed))
        deal = game.deal
        assert isinstance(deal, QdanDeal)
        assert deal.events[-1] == ("play", 0, tuple(cards_of("qdan", "1b 1r")), -1)
        assert deal.top_colour == 0  # 1b had to go first, so red 1 is on top


def test_a_group_with_no_matching_card_says_what_must_match_in_card_names() -> None:
    game = rig(QdanSettings(), ["1r 1y 5y 6g", "1g 2y 3y 4y"], stock="9b")
    with pytest.raises(IllegalMove) as refused:
        game.apply(_typed(game, "play 1r 1y"))
    text = str(refused.value)
    assert "none of 1r 1y matches the colour on top (blue) or the number (9)" in text
    assert "Red" not in text


def _hint(game: Game) -> str:
    session = PeerSession(Identity(bytes(32)), "me", random.Random(0).randbytes)
    session.names, session.me, session.game = NAMES, 0, game
    legal = [m for m in game.legal_moves(0) if isinstance(m, Play)]
    return what_to_do(session, {c for m in legal for c in m.cards}, legal)


@pytest.mark.parametrize("hand", ["cc 5y 6y 7y", "cc 5b 6y 7y", "5b 5b 6y 7y"])
def test_every_hint_example_is_a_command_the_game_accepts(hand: str) -> None:
    game = rig(QdanSettings(), [hand, "1g 2y 3y 4y"], stock="9b")
    hint = _hint(game)
    example = hint.split("play ", 1)[1].split(";")[0].split(")")[0]
    game.deal.verify(_typed(game, "play " + example))
    if hand.startswith("cc 5y"):  # only the cc can be played: its example names a colour
        assert hint.endswith("e.g. play cc red; or draw"), hint


# --- item 4: joining a game under way, and by the host's name ------------------------------------


def _table_after_a_quit() -> MemoryTable:
    """A real 3-seat table where seat 2 quit mid-game."""
    t = MemoryTable(make_settings("classic", {"deals": 2}), 3, seed=5)
    for _ in range(60):
        t.step()
    host, leaver = t.sessions[0], t.sessions[2]
    assert host.game is not None and 2 in host.active
    leaver.notify("bye", {"reason": "the player quit"})
    leaver.flush(t.now)
    for _ in range(30):
        t.step()
    assert 2 not in host.active
    return t


def _advert_after_a_quit() -> tuple[TableAdvert, str, str]:
    """The table of ``_table_after_a_quit`` as a joiner resolves its advert, and the
    fingerprints of the leaver and of a stayer."""
    t = _table_after_a_quit()
    host, leaver = t.sessions[0], t.sessions[2]
    fields = {**advert_fields(host, "alice"), "name": "alice's table"}
    info = Advertiser("127.0.0.1", 7000, host.identity.fingerprint)._service_info(fields)
    props = {k.decode(): (v or b"").decode() for k, v in info.properties.items()}
    advert = advert_from(props, "127.0.0.1", 7000, info.name)
    assert advert is not None
    return advert, leaver.identity.fingerprint, t.sessions[1].identity.fingerprint


def _find(monkeypatch: pytest.MonkeyPatch, tables: list[TableAdvert], wanted: str, me: str,
          wait: float = 10.0) -> tuple[TableAdvert | None, int]:
    rounds = []

    async def browse(seconds: float, interface: str | None) -> list[TableAdvert]:
        rounds.append(seconds)
        return tables

    monkeypatch.setattr(join_cmd, "browse", browse)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    args = argparse.Namespace(table=wanted, wait=wait, interface=None)
    return asyncio.run(join_cmd.find_table(args, me)), len(rounds)


def test_a_leaver_is_told_at_once_the_game_went_on_without_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    advert, leaver, stranger = _advert_after_a_quit()
    assert advert.state == "playing" and advert.free == 0
    for wanted in ("", "alice's table", "ALICE"):  # the host's name finds the table too
        found, rounds = _find(monkeypatch, [advert], wanted, leaver)
        assert found is None and rounds == 1  # one look, not the whole --wait
        err = capsys.readouterr().err
        assert "the game at \"alice's table\" is under way and you left it" in err, err
        assert "full" not in err
    _find(monkeypatch, [advert], "alice", "ZZZZ-" + stranger[5:])
    assert "under way (2 players): it takes no new players" in capsys.readouterr().err
    assert advert.seats_text() == "playing (2 players)"  # as pageone tables --all lists it


def test_a_leaver_connecting_straight_is_told_it_left() -> None:
    t = _table_after_a_quit()
    again = PeerSession(t.sessions[2].identity, "p2", random.Random(1).randbytes)
    t.clients.append(Client(again, t.now))
    t.sequencer.connect(len(t.clients), t.now)
    for _ in range(5):
        t.step()
    assert again.ended == ("the host refused to seat us: the game is under way and you left "
                           "it: your seat was given up")


def test_join_by_the_host_players_name_finds_the_open_table(
        monkeypatch: pytest.MonkeyPatch) -> None:
    table = TableAdvert("alice's table", "qdan", 1, 3, "AAAA-1111", "1", "127.0.0.1", 7001,
                        "alice-s table [AAAA]._pageone._tcp.local.", nick="alice",
                        state="lobby")
    other = dataclasses.replace(table, name="bob's table", nick="bob", service="b")
    assert _find(monkeypatch, [other, table], "Alice", "CCCC-3333") == (table, 1)


# --- item 8: a normal CPU player sometimes forgets Page One at tables with people ----------------


def _owes_a_call() -> Game:
    return rig(QdanSettings(), ["5r 5b 9g", "1g 2y 3y"], stock="3r")


def test_a_forgetful_normal_cpu_plays_without_its_call_and_does_not_call_late() -> None:
    game = _owes_a_call()
    bot = make_bot("normal", forget=1.0)
    move = bot.choose(SeatView(game, 0), random.Random(1))
    assert isinstance(move, Play) and not move.call
    game.apply(move)
    assert game.deal.open_miss == 0  # a call missed: someone can catch it
    assert bot.choose(SeatView(game, 0), random.Random(1)) is None  # no late call
    catcher = make_bot("normal", forget=1.0).choose(SeatView(game, 1), random.Random(1))
    assert catcher == Catch(1, 0)  # forgetting its own calls, it still catches


def test_cpu_players_forget_only_as_often_as_set_and_hard_never() -> None:
    def forgets(level: str, chance: float, seed: int) -> bool:
        move = make_bot(level, chance).choose(SeatView(_owes_a_call(), 0), random.Random(seed))
        return not isinstance(move, Call) and not (isinstance(move, Play) and move.call)

    assert not any(forgets("normal", 0.0, seed) for seed in range(50))
    assert not any(forgets("hard", 0.5, seed) for seed in range(50))
    assert 10 < sum(forgets("normal", 0.5, seed) for seed in range(50)) < 40


def test_the_forget_setting_reaches_cpu_players_only_at_tables_with_people() -> None:
    args = build_parser().parse_args(["host", "--bots", "2"])
    assert args.cpu_forgets == FORGET_DEFAULT > 0
    at_people = cpu_session(0, "normal", 0.0, 0.0, args.cpu_forgets / 100).bot
    alone = make_bot("normal")
    assert isinstance(at_people, NormalBot) and at_people.forget == FORGET_DEFAULT / 100
    assert isinstance(alone, NormalBot) and alone.forget == 0


# --- item 8: the narration's wording ------------------------------------------------------------


def _narrated(t: MemoryTable, seat: int, until: Callable[[], bool], limit: float) -> list[str]:
    """Pump ``t`` until ``until()``, narrating seat ``seat``'s events as they come."""
    printed: list[str] = []
    session = t.sessions[seat]

    def sink(lines: list[Line]) -> None:
        printed.extend(plain(line) for line in lines)

    narrator = Narrator(session, sink, symbols=False, prompts=False)
    while not until() and t.now < limit:
        if not t.step():
            t.advance(t.now + 0.5)
        narrator.show(session.take_events())
    return printed


def test_after_a_void_hand_the_next_is_numbered_as_the_table_does_and_leavers_are_marked() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=5)
    watcher, leaver = t.sessions[0], t.sessions[2]
    printed = _narrated(t, 0, lambda: watcher.game is not None and watcher.hand == 1
                        and bool(watcher.game.deal.trick), 300)
    leaver.notify("bye", {"reason": "the player quit"})
    leaver.flush(t.now)
    printed += _narrated(t, 0, lambda: watcher.game_over, t.now + 900)
    text = "\n".join(printed)
    assert "— hand 1: p1 deals —" in text and "— hand 2: you deal —" in text, text
    assert "hand 2 over:" in text and "hand 1 over" not in text, text  # hand 1 was void
    totals = next(line for line in printed if "totals after" in line)
    assert totals.rstrip().endswith("(left)") and "p2" not in totals.split(",")[0], totals


def _watch(game: Game, me: int, names: list[str]) -> tuple[Narrator, list[str]]:
    session = PeerSession(Identity(bytes(32)), names[me], random.Random(0).randbytes)
    session.names, session.me, session.game = names, me, game
    session.settings = game.settings
    printed: list[str] = []
    return Narrator(session, lambda lines: printed.extend(plain(x) for x in lines),
                    symbols=False, prompts=False), printed


def _tell(narrator: Narrator, game: Game, seen: int) -> int:
    events = game.deal.events
    narrator.show([Event("engine", "", {"event": e}) for e in events[seen:]])
    return len(events)


def test_an_eliminated_player_is_out_not_gone_out_like_a_winner() -> None:
    game = rig(QdanSettings(hand_limit=10), ["1r 2r 3r 4r 5r 6r 7r 8r 9r 1y",
                                             "1g 2g 3g 4g 5g 6g 7g 8g 9g 2y"], stock="3b 3y")
    narrator, printed = _watch(game, 1, ["ann", "me"])
    seen = _tell(narrator, game, 0)
    game.apply(Draw(0))  # an eleventh card: over the hand limit
    _tell(narrator, game, seen)
    assert "ann is out: 2nd place" in [line.strip() for line in printed], printed
    assert not any("goes out" in line for line in printed)


def test_a_skip_says_who_is_skipped() -> None:
    game = rig(QdanSettings(), ["skipr 5y 6y", "1g 2g 3g", "1b 2b 3b"], stock="3r")
    narrator, printed = _watch(game, 1, ["ann", "me", "cy"])
    seen = _tell(narrator, game, 0)
    play(game, 0, "skipr")
    _tell(narrator, game, seen)
    assert [line.strip() for line in printed[-2:]] == [
        "ann plays skipr  (2 cards left)", "you are skipped"]
    assert game.deal.turn == 2


def test_the_loser_of_a_catch_race_is_told_who_caught_first() -> None:
    game = rig(QdanSettings(), ["5r 5b 9g", "1g 2g 3g", "1b 2b 3b"], stock="3r")
    play(game, 0, "5r 5b")  # one card left, no call
    game.apply(Catch(1, 0))
    narrator, _ = _watch(game, 2, ["ann", "bob", "me"])
    with pytest.raises(IllegalMove) as refused:
        game.deal.verify(Catch(2, 0))
    assert refusal_text(narrator.session, "not allowed: " + str(refused.value)) == (
        "not allowed: too late: bob caught ann first")
    assert refusal_text(narrator.session, "not accepted: you cannot catch yourself") == (
        "not accepted: you cannot catch yourself")


def test_no_turn_prompt_after_the_host_closed_the_table() -> None:
    t = MemoryTable(make_settings("qdan", {}), 2, seed=3)
    joiner = t.sessions[1]
    joiner.autoplay = False  # a person: the table waits for its moves
    printed: list[str] = []
    narrator = Narrator(joiner, lambda lines: printed.extend(plain(x) for x in lines),
                        symbols=False)
    while not (joiner.game is not None and joiner.game.deal.turn == 1 and joiner.hand_known()):
        if not t.step():
            t.advance(t.now + 0.5)
        narrator.show(joiner.take_events())
        assert t.now < 300
    narrator.show(joiner.take_events())
    assert any("YOUR TURN" in line for line in printed)
    t.sessions[0].notify("bye", {"reason": "the host closed the table"})
    t.sessions[0].flush(t.now)
    while not joiner.ended and t.now < 400:
        if not t.step():
            t.advance(t.now + 0.5)
        narrator.show(joiner.take_events())
    closed = next(i for i, line in enumerate(printed) if "the host closed the table" in line)
    assert not any("YOUR TURN" in line for line in printed[closed:]), printed[closed:]


def test_counts_of_one_are_singular() -> None:
    game = rig(ClassicSettings(call_at=1), ["5h 10s 3c 4c", "kh 2d 3d 4d"])
    with pytest.raises(IllegalMove, match="leaves you 1 card "):
        game.deal.verify(Call(0))
    narrator, printed = _watch(game, 0, ["me", "bob"])
    narrator.show([Event("engine", "", {"event": ("forgiven", 1, 1)})])
    assert "  bob: nothing left to draw, 1 penalty card forgiven" in printed, printed
