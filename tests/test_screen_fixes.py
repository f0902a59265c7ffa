"""The newcomer's tmux trial of issue 20 (screen fixes): nothing printed under the table screen,
no NBSP underline, "you" everywhere for the player's own seat, playable marks from the engine's
legal moves, one form for draws, and the smaller wording fixes."""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import sys

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from p2p_pageone.cli import hints, render, table_cmds, tableview
from p2p_pageone.cli.commands import CommandError, help_text, parse_command
from p2p_pageone.cli.completion import HandCompleter
from p2p_pageone.cli.narrator import Narrator
from p2p_pageone.cli.render import plain
from p2p_pageone.cli.repl import _story_so_far
from p2p_pageone.cli.table_cmds import TakeoverAdvert
from p2p_pageone.cli.wrap import complain, wrap
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.engine import ClassicSettings, Draw, Game, IllegalMove, Play, QdanSettings
from p2p_pageone.engine.view import SeatView
from p2p_pageone.net.discovery import Advertiser, TableAdvert
from p2p_pageone.session.common import Event
from p2p_pageone.session.peer import PeerSession

from .helpers import cards_of, play, rig


def _session(name: str = "bob") -> PeerSession:
    return PeerSession(Identity(os.urandom(32)), name, os.urandom)


@pytest.mark.parametrize("works", [True, False])
def test_a_takeover_advert_is_told_through_the_terminal_never_printed(
        monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], works: bool) -> None:
    """A joiner that took the table over advertises it while its table screen is up: a print()
    there garbles the screen, so both the success and the failure go through ``say``."""
    async def start(self: Advertiser, fields: dict[str, object]) -> str:
        if not works:
            raise OSError("no interface to multicast on")
        return table_cmds.instance_name(str(fields["name"]), self.fingerprint)

    monkeypatch.setattr(Advertiser, "start", start)
    session = _session()
    told: list[str] = []
    args = argparse.Namespace(no_mdns=False, interface=None, name="bob")
    advert = TakeoverAdvert(args, session, session.identity, told.append)
    asyncio.run(advert.start(38681))
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")
    assert len(told) == 1
    assert ("advertised on the LAN" if works else "could not advertise") in told[0]
    assert (advert.advertiser is not None) == works


def test_the_players_own_seat_is_you_in_every_line() -> None:
    """Offline the player is "root" at seat 0: the trick, the totals, the places and the final
    standings all say "you", as the hand's header and the penalties do."""
    game = rig(ClassicSettings(), ["8d 9d 2s 3s", "5d 6c 4h 7h"])
    play(game, 0, "8d")
    names = ["root", "bob"]
    table = plain(render.table(game, names, 0, symbols=False))
    assert "trick: you 8d" in table and "root" not in table
    assert "trick: root 8d" in plain(render.table(game, names, 1, symbols=False))
    shown = render.seen_names(names, 0)
    assert render.scores_line(game, shown).endswith("you 0, bob 0")
    game.places.extend([2, 1])  # as at the game's end: bob first, root second
    assert [line.split()[:2] for line in render.standings(game, shown)] == [
        ["1st", "bob"], ["2nd", "you"]]
    narrator, printed = _narrator(game, names)
    narrator.show([Event("scores", "", {"hand": 1})])
    assert printed and all("root" not in line for line in printed), printed


def _narrator(game: Game, names: list[str]) -> tuple[Narrator, list[str]]:
    session = _session(names[0])
    session.names, session.me, session.game = names, 0, game
    printed: list[str] = []
    return Narrator(session, lambda lines: printed.extend(map(plain, lines)),
                    symbols=False), printed


def test_a_card_that_goes_only_in_a_group_is_not_marked_and_the_hint_says_how() -> None:
    """On a blue top, 9r and skipr can only follow 9b and skipb in a group: they are not
    marked playable (``play 9r`` is refused), and the hint gives the group as typed."""
    game = rig(QdanSettings(), ["5r 9r skipr 2y 9b skipb cc", "1g 2g 3g 4g 5g 6g 7g"],
               stock="1b")
    legal = [m for m in game.legal_moves(0) if isinstance(m, Play)]
    playable = hints.playable_cards(game.deal, legal)
    assert render.typed_names(sorted(playable), "qdan").split() == ["9b", "skipb", "cc"]
    view = SeatView(game, 0)
    with pytest.raises(IllegalMove):
        game.deal.verify(parse_command("play 9r", view, ["me", "bob"]))  # type: ignore[arg-type]
    note = hints.group_only(game.deal, legal, playable)
    assert "9r only with 9b: play 9b 9r" in note and "skipr only with skipb" in note
    game.apply(parse_command("play 9b 9r", view, ["me", "bob"]))  # type: ignore[arg-type]
    assert game.deal.known[game.deal.discard[-1]] == cards_of("qdan", "9r")[0]


def _drawing_game() -> tuple[Game, Narrator, list[str]]:
    """I am seat 1 and hold no diamond when seat 0 leads 8d; the stock's top card is 2d."""
    game = rig(ClassicSettings(), ["8d 9d 2s 3s", "5h 6c 4h 7h"], stock="2d")
    play(game, 0, "8d")
    session = _session("root")
    session.names, session.me, session.game = ["ann", "root"], 1, game
    printed: list[str] = []
    narrator = Narrator(session, lambda lines: printed.extend(map(plain, lines)), symbols=False)
    narrator.show([])  # my cards, as dealt
    printed.clear()
    return game, narrator, printed


def _engine_events(game: Game, since: int) -> list[Event]:
    return [Event("engine", "", {"event": e}) for e in game.deal.events[since:]]


def test_a_draw_of_mine_names_every_card_even_one_played_at_once() -> None:
    game, narrator, printed = _drawing_game()
    since = len(game.deal.events)
    game.apply(Draw(1))
    play(game, 1, "2d")  # as auto does: the drawn card played at once
    narrator.show(_engine_events(game, since))
    assert [line.strip() for line in printed][:2] == ["you draw 1 card: 2d", "you play 2d"]


def test_a_draw_of_mine_waits_for_its_card_to_open_and_is_told_once() -> None:
    game, narrator, printed = _drawing_game()
    since = len(game.deal.events)
    game.apply(Draw(1))
    drawn = game.deal.hands[1][-1]
    card, game.deal.known[drawn] = game.deal.known[drawn], -1  # its keys still to come
    narrator.show(_engine_events(game, since))
    narrator.idle()
    assert not any("draw" in line for line in printed), printed
    game.deal.known[drawn] = card
    narrator.show([])
    told = [line.strip() for line in printed if "draw" in line or "get" in line]
    assert told == ["you draw 1 card: 2d"], printed


def test_with_nothing_to_draw_the_hint_says_pass_and_pass_is_accepted() -> None:
    game, narrator, _ = _drawing_game()
    game.deal.stock.clear()  # nothing left to draw, and no trick to reshuffle
    session = narrator.session
    legal = [m for m in game.legal_moves(1) if isinstance(m, Play)]
    hint = hints.what_to_do(session, hints.playable_cards(game.deal, legal), legal)
    assert hint.startswith("no diamonds: pass (type pass") and "draw" not in hint.split(":")[1]
    move = parse_command("pass", SeatView(game, 1), ["ann", "root"])
    since = len(game.deal.events)
    game.apply(move)  # type: ignore[arg-type]
    assert ("passed", 1) in game.deal.events[since:]


def test_a_second_page_one_mark_is_refused_in_words() -> None:
    game = rig(QdanSettings(), ["4g 5y 6y 7y 8y 9y 1y", "1g 2g 3g 4y 5g 6g 7g"], stock="1g")
    with pytest.raises(CommandError) as refused:
        parse_command("play 4g ! !", SeatView(game, 0), ["me", "bob"])
    assert str(refused.value) == "say Page One once, after the cards: e.g. play 4g !"


def test_help_keeps_each_example_on_one_line_at_80_columns() -> None:
    lines = [plain(line) for line in wrap([[("", help_text())]], 80)]
    for example in ("play 7h", "play 5r 5b", "play cc red", "play qd !"):
        assert any(example in line.replace("\xa0", " ") for line in lines), (example, lines)


def test_the_catch_countdown_rounds_up() -> None:
    game, narrator, _ = _drawing_game()
    game.deal.open_miss = 0
    owed = plain(tableview._owed(narrator.session, 0.4))
    assert "Type catch ann now (1 s)" in owed


class _TerminalErr(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_errors_on_a_terminal_are_wrapped_at_its_width(monkeypatch: pytest.MonkeyPatch) -> None:
    err = _TerminalErr()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setenv("COLUMNS", "40")
    text = ("pageone join: found no table in 10 s; host one with pageone host, or use --connect "
            "HOST:PORT where multicast is blocked")
    complain(text)
    lines = err.getvalue().splitlines()
    assert len(lines) > 2 and all(len(line) <= 40 for line in lines), lines
    assert " ".join(line.strip() for line in lines) == text
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    complain(text)
    assert piped.getvalue() == text + "\n"  # not a terminal: one line, as written


def test_tab_offers_the_cards_that_may_be_played_first() -> None:
    game = rig(QdanSettings(), ["5r 9r skipr 2y 9b skipb cc", "1g 2g 3g 4g 5g 6g 7g"],
               stock="1b")
    session = _session("me")
    session.names, session.me, session.game = ["me", "bob"], 0, game
    completer = HandCompleter(session)
    offered = [c.text for c in completer.get_completions(Document("play "), CompleteEvent())]
    assert offered[:3] == ["9b", "skipb", "cc"], offered
    assert offered[3:5] == ["9r", "skipr"] and sorted(offered[5:]) == ["2y", "5r"], offered


def test_coming_back_a_void_hand_is_not_said_to_be_played() -> None:
    def hand(number: int) -> Event:
        return Event("hand", f"hand {number}", {"hand": number, "dealer": 0})

    void_first = _story_so_far([Event("table", "t"), hand(1), Event("takeover", "x"), hand(2)])
    assert void_first[1].text == ("hand 1 was void (ended early) before you came back (type "
                                  "scores for the totals)")
    mixed = _story_so_far([hand(1), Event("scores", "", {"hand": 1}), hand(2), hand(3),
                           Event("scores", "", {"hand": 3}), hand(4)])
    assert mixed[0].text.startswith("hands 1, 3 were played; hand 2 was void (ended early) "
                                    "before you came back")
    assert [e.kind for e in mixed] == ["story", "hand"]


def test_a_leaving_and_a_return_are_each_told_once() -> None:
    _, narrator, printed = _drawing_game()  # I am root at seat 1; ann at seat 0
    narrator.show([Event("lost", "ann disconnected"),
                   Event("left", "ann (seat 0) left (disconnected): hand 1 is void and the game "
                         "goes on without ann", {"seat": 0})])
    told = [line.strip() for line in printed if "ann" in line]
    assert told == [
        "ann (seat 0) left (disconnected): hand 1 is void and the game goes on without ann"]
    printed.clear()
    narrator.show([Event("returning", "back at the table as root (seat 1): the game goes on"),
                   Event("back", "root (seat 1) returned: the game goes on", {"seat": 1}),
                   Event("back", "ann (seat 0) returned: the game goes on", {"seat": 0})])
    told = [line.strip() for line in printed if "back" in line or "returned" in line]
    assert told == ["back at the table as root (seat 1): the game goes on",
                    "ann (seat 0) returned: the game goes on"], printed


def test_tables_all_keeps_its_columns_with_a_game_under_way(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    tables = [TableAdvert("alice's table", "classic", 2, 0, "ABCD" * 4, "1", "127.0.0.1", 7000,
                          "x", nick="alice", state="playing"),
              TableAdvert("bob's table", "qdan", 1, 3, "EFGH" * 4, "1", "127.0.0.1", 7001, "y",
                          nick="bob", state="lobby")]

    async def browse(seconds: float, interface: str | None) -> list[TableAdvert]:
        return tables

    monkeypatch.setattr(table_cmds, "browse", browse)
    args = argparse.Namespace(timeout=0.1, interface=None, all=True, json=False)
    assert asyncio.run(table_cmds._tables(args)) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert "playing (2 players)" in rows[0], rows
    for row in rows:  # every column starts where its heading does
        for heading, value in (("WATCH", "?"), ("ADDRESS", "127.0.0.1")):
            assert row.index(value, header.index("SEATS")) == header.index(heading), (header, row)


def test_the_coin_toss_names_the_player_you_when_it_makes_them_the_dealer() -> None:
    from p2p_pageone.cli.narrator import Narrator
    from p2p_pageone.engine import make_settings as settings_of
    from p2p_pageone.session.memory import MemoryTable as Table

    for seed in range(20):
        t = Table(settings_of("classic", {"deals": 1}), 3, seed=seed)
        me = t.sessions[1]
        said: list[str] = []
        narrator = Narrator(me, lambda lines, said=said: said.extend(
            "".join(text for _, text in line) for line in lines), symbols=False, prompts=False)
        for _ in range(500):
            if me.game is not None:
                break
            t.step()
            narrator.show(me.take_events())
        narrator.show(me.take_events())
        assert me.game is not None
        if me.game.deal.dealer == me.me:
            assert "  the coin toss makes you the first dealer" in said, said
            assert not any(f"makes {me.name} the" in line for line in said)
            return
    raise AssertionError("seat 1 never dealt first in 20 seeds")
