"""What the table screen shows, as lines wrapped to a width: the table at the top, your hand and
what to do at the bottom. Pure functions of the session (and the clock's reading passed in)."""

from __future__ import annotations

import math

from ..engine.classic import ClassicDeal
from ..engine.game import Game
from ..engine.moves import IllegalMove, Play
from ..engine.qdan import QdanDeal
from ..session.peer import PeerSession
from . import render
from .hints import page_one_hint, playable_cards, what_to_do
from .render import Line
from .wrap import wrap

NBSP = "\u00a0"  # keeps one player's entry on one line


def table_area(s: PeerSession, width: int, owed_left: float | None = None) -> list[Line]:
    """The players (cards, scores, whose turn), the trick or top card, and Page One owed."""
    game = s.game
    if game is None:  # a watcher (no seat, ``me`` -1) sees the game as soon as it runs
        waiting = f"{len(s.keys)} of {s.seat_count} seated" if s.seat_count else "connecting"
        return wrap([[("class:title", s.table_name or "table"),
                      ("", f": {waiting}, waiting for players. Type help for commands.")]], width)
    deal = game.deal
    head: Line = [("class:title", f"hand {s.hand}"),
                  ("", f"  {game.settings.family}  stock {len(deal.stock)}")]
    if isinstance(deal, QdanDeal) and deal.pending:
        head.append(("class:hint", f"  draw {deal.pending} pending"))
    lines = wrap([head], width, indent="  ")
    entries: Line = []
    for seat in range(game.seats):
        entries += [("", "  ") if entries else ("", ""), *_player(s, game, seat)]
    lines += wrap([entries], width, indent="")
    if isinstance(deal, ClassicDeal):
        lines += wrap([render.trick_line(deal, s.names, True, s.me)], width, indent="  ")
    elif isinstance(deal, QdanDeal):
        lines += wrap([render.top_line(deal, True)], width, indent="  ")
    owed = _owed(s, owed_left)
    if owed:
        lines += wrap([owed], width, indent="  ")
    return lines


def _player(s: PeerSession, game: Game, seat: int) -> Line:
    deal = game.deal
    name = "you" if seat == s.me else s.names[seat] if seat < len(s.names) else "?"
    turn = deal.turn == seat and not deal.over
    if seat in game.left:
        state = "left"
    elif seat not in deal.players:
        state = "out"
    else:
        count = len(deal.hands[seat])
        state = f"{count}{NBSP}card{'s' if count != 1 else ''}"
    if isinstance(deal, QdanDeal) and seat in deal.players and deal.places[seat]:
        state = f"{render.ordinal(deal.places[seat])}{NBSP}place"
    score = f"{NBSP}{game.totals[seat]}{NBSP}pts" if game.settings.family == "classic" else ""
    owes = f"{NBSP}(owes{NBSP}Page{NBSP}One)" if deal.open_miss == seat else ""
    text = f"{name}{NBSP}{state}{score}{owes}"
    return [("class:turn", f">{text}")] if turn else [("", f" {text}")]


def _owed(s: PeerSession, left: float | None) -> Line:
    game = s.game
    if game is None or not game.settings.forget_penalty or game.deal.open_miss < 0:
        return []
    miss = game.deal.open_miss
    # rounded up: the last half second still reads "1 s", never "0 s" while catching is open
    clock = f" ({math.ceil(left)} s)" if left is not None and left > 0 else ""
    if miss == s.me:
        return [("class:owed", "you did not say Page One!"),
                ("", f" Type pageone now{clock}, before anyone catches you")]
    name = s.names[miss]
    if s.me < 0:  # a watcher catches nobody
        return [("class:owed", f"{name} did not say Page One!"), ("", clock)]
    return [("class:owed", f"{name} did not say Page One!"),
            ("", f" Type catch {name} now{clock}")]


def hand_area(s: PeerSession, width: int, held: list[str] | None = None) -> list[Line]:
    """Your cards (the ones you may play marked ``[like this]``) and what to do now."""
    game = s.game
    view = s.view()
    if game is None or view is None:
        return wrap([[("", "type say TEXT to chat, start (the host) to begin with the players "
                       "seated, quit to leave")]], width)
    family = game.settings.family
    lines: list[Line] = []
    if held:
        lines += wrap([[("class:held", "held until the catch window closes: "
                         + ", ".join(held))]], width)
    if not s.hand_known():
        return [*lines, *wrap([[("", "your cards are being dealt…")]], width)]
    try:
        cards = view.hand()
    except IllegalMove:
        return [*lines, [("", "your cards are being dealt…")]]
    playable: set[int] = set()
    mine = (game.chance is None and game.deal.turn == s.me and not s.game_over
            and not game.deal.over)
    if mine and not s.autoplay:
        legal = [m for m in view.legal_moves() if isinstance(m, Play)]
        playable = playable_cards(game.deal, legal)
        lines += wrap([[("class:turn", "YOUR TURN"), ("", "  "),
                        ("class:hint", what_to_do(s, playable, legal))]], width, indent="  ")
        calls = page_one_hint(legal, len(cards), family)
        if calls:
            lines += wrap([[("class:hint", calls)]], width, indent="  ")
    else:
        lines += wrap([[("", _waiting(s, game))]], width)
    count = f"you hold {len(cards)}:" if cards else "you hold no cards"
    lines += wrap([[("", count), ("", " "), *cards_line(cards, family, playable)]], width,
                  indent="")
    return lines


def _waiting(s: PeerSession, game: Game) -> str:
    deal = game.deal
    if s.game_over:
        return "the game is over"
    if s.autoplay:
        return "the CPU plays for you"
    if deal.over or game.chance is not None or deal.turn < 0:
        return "between moves: the cards are being dealt or opened"
    if s.me not in deal.players:
        return "you are out of this hand"
    return f"{s.names[deal.turn]} to play"


def cards_line(cards: list[int], family: str, playable: set[int]) -> Line:
    """The hand as card faces in suit/colour order: ``[9♠]`` may be played, `` 7♥ `` not."""
    line: Line = []
    for card_id in sorted(cards, key=lambda c: render.sort_key(c, family)):
        style, text = render.card(card_id, family, True)
        if line:
            line.append(("", " "))
        if card_id in playable:
            line += [("class:hint", "["), (f"{style} underline", text), ("class:hint", "]")]
        else:
            line.append((style, text))
    return line
