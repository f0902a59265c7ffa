"""A local game against CPU players, until tables on the LAN exist (issue 4)."""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable

from ..bots import Bot, make_bot
from ..engine.cards import names as card_names
from ..engine.game import Game
from ..engine.moves import IllegalMove, Move
from ..engine.settings import SettingError, Settings
from ..engine.view import SeatView
from ..sim.referee import resolve_chance
from .commands import HELP, CommandError, Info, parse_command
from .render import describe, hand_text, scores_text, table_text

BOT_NAMES = ("ann", "bob", "cy", "dee", "eve")


def run_local(args: argparse.Namespace, settings: Settings) -> int:
    players = args.bots + 1
    try:
        settings.check_players(players)
    except SettingError as error:
        print(f"pageone host: {error}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed) if args.seed is not None else random.Random()
    names = [args.name, *BOT_NAMES[: args.bots]]
    bots: list[Bot] = [make_bot(args.level) for _ in range(players)]
    me_bot = make_bot("normal")
    game = Game(settings, players, rng.randrange(players))
    views = [SeatView(game, s) for s in range(players)]
    ask = None if args.autoplay else _prompt_reader()
    seen = 0
    deal_id = id(game.deal)
    print(f"Page One ({settings.family}) — {', '.join(names)}. Type help for commands.")
    while not game.over:
        if id(game.deal) != deal_id:
            deal_id, seen = id(game.deal), 0
        if game.chance is not None:
            resolve_chance(game, rng)
            continue
        seen = _print_events(game, names, seen)
        move = _next_move(game, views, bots, rng, ask, names, me_bot)
        if move is None:
            print("bye: the local game is abandoned")
            return 0
        game.apply(move)
    _print_events(game, names, seen)
    print(scores_text(game, names))
    winners = ", ".join(names[s] for s in game.winners())
    print(f"game over: {winners} win{'s' if len(game.winners()) == 1 else ''}")
    return 0


def _print_events(game: Game, names: list[str], seen: int) -> int:
    events = game.deal.events
    for event in events[seen:]:
        print("  " + describe(event, names, game.settings.family))
    return len(events)


def _next_move(
    game: Game, views: list[SeatView], bots: list[Bot], rng: random.Random,
    ask: Callable[[str], str] | None, names: list[str], me_bot: Bot,
) -> Move | None:
    deal = game.deal
    for seat in deal.players:
        if seat not in (0, deal.turn) and deal.open_miss != -1:
            move = bots[seat].choose(views[seat], rng)
            if move is not None:
                return move
    if deal.turn != 0:
        move = bots[deal.turn].choose(views[deal.turn], rng)
        assert move is not None
        return move
    if ask is None:
        move = me_bot.choose(views[0], rng)
        assert move is not None
        return move
    return _human_move(game, views[0], ask, names)


def _human_move(
    game: Game, view: SeatView, ask: Callable[[str], str], names: list[str]
) -> Move | None:
    family = game.settings.family
    print(table_text(game, names, 0))
    print("your hand: " + hand_text(view.hand(), family))
    while True:
        try:
            text = ask("pageone> ")
        except (EOFError, KeyboardInterrupt):
            return None
        try:
            command = parse_command(text, view, names)
        except CommandError as error:
            print(f"  {error}")
            continue
        if isinstance(command, Info):
            if command.name == "quit":
                return None
            _show(command.name, game, view, names)
            continue
        try:
            game.deal.verify(command)
        except IllegalMove as error:
            print(f"  not allowed: {error}")
            continue
        return command


def _show(name: str, game: Game, view: SeatView, names: list[str]) -> None:
    family = game.settings.family
    if name == "hand":
        print("  " + hand_text(view.hand(), family))
        print("  (type: " + card_names(sorted(view.hand()), family) + ")")
    elif name == "table":
        print(table_text(game, names, 0))
    elif name == "scores":
        print("  " + scores_text(game, names))
    elif name == "auto":
        print("  auto-play is for network tables; use --autoplay here")
    else:
        print(HELP)


def _prompt_reader() -> Callable[[str], str]:
    if not sys.stdin.isatty():
        return input
    from prompt_toolkit import PromptSession

    session: PromptSession[str] = PromptSession()
    return session.prompt
