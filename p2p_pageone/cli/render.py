"""Cards, hands and the table as prompt-toolkit formatted text: lists of ``(style, text)``.

Colour is only ever a style on a fragment, never an escape code in the text, so the same lines
print as plain text when colour is off (``NO_COLOR``, or not a terminal). A card's letter is always
shown: colour only adds to it.
"""

from __future__ import annotations

import re

from ..engine.cards import (
    COLOUR_NAMES,
    KIND_CHANGE,
    classic_label,
    classic_name,
    colour_of,
    kind_of,
    qdan_name,
    suit_of,
)
from ..engine.classic import ClassicDeal
from ..engine.game import Game
from ..engine.qdan import QdanDeal
from ..engine.settings import ClassicSettings
from . import theme

Frag = tuple[str, str]
Line = list[Frag]

_COLOUR_STYLE = theme.CARD_COLOURS
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
SUIT_SYMBOLS = "♠♥♦♣"
_RULING = re.compile(r"\s*\((?:[QC]\d+(?:, )?)+\)")


def plain(line: Line) -> str:
    return "".join(text for _, text in line)


def without_ruling_ids(text: str) -> str:
    """Player messages never cite the rulings' ids (the engine's messages do, for developers)."""
    return _RULING.sub("", text)


def card(card_id: int, family: str, symbols: bool = True) -> Frag:
    """One card as the player types it (``qd``, ``10s``, ``jk``; ``5r``, ``d2b``, ``cc``); with
    ``symbols`` a classic card shows its suit symbol after the rank (``Q♦``)."""
    if family == "classic":
        text = classic_label(card_id, symbols=True) if symbols else classic_name(card_id)
        red = suit_of(card_id) in (1, 2)
        return (_COLOUR_STYLE["red" if red else "black"], text)
    colour = colour_of(card_id)
    return (_COLOUR_STYLE[COLOUR_NAMES[colour]] if colour >= 0 else "bold", qdan_name(card_id))


def cards(card_ids: list[int] | tuple[int, ...], family: str, symbols: bool = True) -> Line:
    line: Line = []
    for index, card_id in enumerate(card_ids):
        if index:
            line.append(("", " "))
        line.append(card(card_id, family, symbols))
    return line


def sort_key(card_id: int, family: str) -> tuple[int, int]:
    if family == "classic":
        suit = suit_of(card_id)
        return (suit if suit >= 0 else 9, card_id % 13 if card_id < 52 else 99)
    return (colour_of(card_id) if colour_of(card_id) >= 0 else 9, kind_of(card_id))


def hand(card_ids: list[int], family: str, playable: set[int] | None = None,
         symbols: bool = True) -> Line:
    """The hand in suit/colour order; cards in ``playable`` are marked ``[like this]``."""
    ordered = sorted(card_ids, key=lambda c: sort_key(c, family))
    if not ordered:
        return [("", "(no cards)")]
    line: Line = []
    for index, card_id in enumerate(ordered):
        if index:
            line.append(("", "  "))
        style, text = card(card_id, family, symbols)
        if playable is not None and card_id in playable:
            line += [(theme.PLAYABLE, "["), (f"{style} {theme.PLAYABLE}", text),
                     (theme.PLAYABLE, "]")]
        else:
            line.append((style, text))
    return line


def typed_names(card_ids: list[int], family: str) -> str:
    ordered = sorted(card_ids, key=lambda c: sort_key(c, family))
    return " ".join(classic_name(c) if family == "classic" else qdan_name(c) for c in ordered)


def table(game: Game, names: list[str], me: int, symbols: bool = True) -> Line:
    """Card counts, stock, and what is on the table (trick and suit to follow, or the top card)."""
    deal = game.deal
    counts = ", ".join(
        f"{'you' if p == me else names[p]}{'*' if p == deal.turn else ''} {len(deal.hands[p])}"
        for p in deal.players
    )
    line: Line = [("", f"  cards in hand: {counts}   stock: {len(deal.stock)}\n  ")]
    if isinstance(deal, ClassicDeal):
        line += trick_line(deal, names, symbols, me)
    elif isinstance(deal, QdanDeal):
        line += top_line(deal, symbols)
    return line


def trick_line(deal: ClassicDeal, names: list[str], symbols: bool = True,
               me: int = -1) -> Line:
    if not deal.trick:
        leader = "you lead" if deal.turn == me >= 0 else (
            f"{names[deal.turn]} leads" if deal.turn >= 0 else "-")
        return [("", f"trick: empty, {leader}")]
    line: Line = [("", "trick: ")]
    for index, (seat, _, card_id) in enumerate(deal.trick):
        who = "you" if seat == me else names[seat]
        line += [("", ("  " if index else "") + f"{who} "), card(card_id, "classic", symbols)]
    if deal.led_suit >= 0:
        line += [("", "   suit to follow: "), follow_suit(deal.led_suit, symbols)]
    else:
        line.append(("", "   a joker was led: any card sets the suit"))
    return line


def follow_suit(suit: int, symbols: bool = True) -> Frag:
    text = (SUIT_SYMBOLS[suit] + " " if symbols else "") + SUIT_NAMES[suit]
    return (_COLOUR_STYLE["red" if suit in (1, 2) else "black"], text)


def top_line(deal: QdanDeal, symbols: bool = True) -> Line:
    if not deal.discard or deal.known[deal.discard[-1]] < 0:
        return [("", "top: (not turned up yet)")]
    top = deal.known[deal.discard[-1]]
    line: Line = [("", "top: "), card(top, "qdan", symbols)]
    if kind_of(top) == KIND_CHANGE and deal.top_colour >= 0:
        colour = COLOUR_NAMES[deal.top_colour]
        line += [("", "  colour "), (_COLOUR_STYLE[colour], colour)]
    if deal.pending:
        line.append(("bold", f"   draw {deal.pending} pending"))
    line.append(("", f"   direction {'clockwise' if deal.direction > 0 else 'anticlockwise'}"))
    return line


def scores_line(game: Game, names: list[str]) -> str:
    if game.settings.family == "qdan":
        deal = game.deal
        places = {**game.awarded}
        if isinstance(deal, QdanDeal):
            places.update({s: deal.places[s] for s in deal.players if deal.places[s]})
        if not places:
            return "places: nobody has gone out yet"
        ordered = sorted(places.items(), key=lambda kv: kv[1])
        return "places: " + ", ".join(f"{_ordinal(p)} {names[s]}"
                                      f"{' (left)' if s in game.left else ''}" for s, p in ordered)
    settings = game.settings
    deals = settings.deals if isinstance(settings, ClassicSettings) and (
        settings.scoring == "deals") else 0
    done = f"after {len(game.results)} of {deals} deals" if deals else (
        f"after {len(game.results)} deals")
    seats = sorted(range(game.seats), key=lambda seat: (seat in game.left, game.totals[seat]))
    return f"totals {done} (lowest wins): " + ", ".join(
        f"{names[seat]} {game.totals[seat]}{' (left)' if seat in game.left else ''}"
        for seat in seats)


def standings(game: Game, names: list[str]) -> list[str]:
    """Final places, best first, ties sharing a place."""
    lines = []
    for seat in sorted(range(game.seats), key=lambda s: (game.places[s] or 99, s)):
        place = game.places[seat]
        extra = f"  {game.totals[seat]} points" if game.settings.family == "classic" else ""
        if seat in game.left:
            extra += "  (left the table)"
        lines.append(f"  {_ordinal(place) if place else '-':>4}  {names[seat]}{extra}")
    return lines


def seen_names(names: list[str], me: int) -> list[str]:
    """The names as this player reads them: "you" for its own seat (``me``; -1: nobody's)."""
    return ["you" if seat == me else name for seat, name in enumerate(names)]


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def ordinal(n: int) -> str:
    return _ordinal(n)


__all__ = ["COLOUR_NAMES", "Frag", "Line"]
