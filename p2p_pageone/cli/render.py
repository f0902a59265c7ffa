"""Text rendering of cards, hands and the table; honours NO_COLOR."""

from __future__ import annotations

import os
import sys

from ..engine.cards import (
    COLOUR_NAMES,
    KIND_NAMES,
    classic_label,
    colour_of,
    kind_of,
    qdan_label,
    suit_of,
)
from ..engine.classic import ClassicDeal
from ..engine.game import Game
from ..engine.qdan import QdanDeal

_ANSI = {"red": "31", "yellow": "33", "green": "32", "blue": "34", "black": "1"}


def use_colour() -> bool:
    return "NO_COLOR" not in os.environ and sys.stdout.isatty()


def paint(text: str, colour: str) -> str:
    if not use_colour() or colour not in _ANSI:
        return text
    return f"\x1b[{_ANSI[colour]}m{text}\x1b[0m"


def card_text(card: int, family: str) -> str:
    if family == "classic":
        label = classic_label(card, symbols=use_colour())
        return paint(label, "red" if suit_of(card) in (1, 2) else "black")
    colour = colour_of(card)
    return paint(qdan_label(card), COLOUR_NAMES[colour] if colour >= 0 else "")


def sort_key(card: int, family: str) -> tuple[int, int]:
    if family == "classic":
        return (suit_of(card) if suit_of(card) >= 0 else 9, card % 13 if card < 52 else 99)
    return (colour_of(card) if colour_of(card) >= 0 else 9, kind_of(card))


def hand_text(cards: list[int], family: str) -> str:
    ordered = sorted(cards, key=lambda c: sort_key(c, family))
    return "  ".join(card_text(c, family) for c in ordered) or "(empty)"


def table_text(game: Game, names: list[str], me: int) -> str:
    deal = game.deal
    family = game.settings.family
    counts = ", ".join(
        f"{names[p]}{'*' if p == deal.turn else ''} {len(deal.hands[p])}" for p in deal.players
    )
    lines = [f"cards in hand: {counts}   stock: {len(deal.stock)}"]
    if isinstance(deal, ClassicDeal):
        trick = "  ".join(f"{names[s]}: {card_text(c, family)}" for s, _, c in deal.trick)
        lines.append(f"trick: {trick or '(you lead)' if deal.turn == me else trick or '-'}")
    elif isinstance(deal, QdanDeal) and deal.top_group:
        top = deal.known[deal.discard[-1]]
        text = card_text(top, family)
        if kind_of(top) == len(KIND_NAMES) - 1:
            text += f" (colour {COLOUR_NAMES[deal.top_colour]})"
        if deal.pending:
            text += f"  — draw {deal.pending} pending"
        lines.append(f"top: {text}   direction: {'→' if deal.direction > 0 else '←'}")
    return "\n".join(lines)


def scores_text(game: Game, names: list[str]) -> str:
    if game.settings.family == "qdan":
        deal = game.deal
        if not isinstance(deal, QdanDeal):
            return ""
        places = [f"{names[s]}: {deal.places[s] or '-'}" for s in deal.players]
        return "places: " + ", ".join(places)
    return "totals: " + ", ".join(f"{names[s]} {game.totals[s]}" for s in range(game.seats))


def describe(event: tuple[object, ...], names: list[str], family: str) -> str:
    kind, *rest = event
    if kind == "reshuffle":
        return f"the discards are reshuffled into a new stock of {rest[0]}"
    if kind == "start":
        return f"start card: {card_text(int(str(rest[0])), family)}"
    who = names[int(str(rest[0]))]
    if kind == "play":
        cards = rest[1]
        assert isinstance(cards, tuple)
        text = f"{who} plays {' '.join(card_text(c, family) for c in cards)}"
        if len(rest) > 2 and isinstance(rest[2], int) and rest[2] >= 0:
            text += f" and chooses {COLOUR_NAMES[rest[2]]}"
        return text
    if kind == "draw":
        return f"{who} draws {rest[1]}" + (" (penalty)" if rest[2] == "penalty" else "")
    if kind == "trick":
        return f"{who} wins the trick"
    if kind == "call":
        return f"{who}: Page One!"
    if kind == "caught":
        return f"{who} catches {names[int(str(rest[1]))]}'s missed Page One call"
    if kind == "eliminated":
        return f"{who} holds too many cards and is out"
    if kind == "stopped":
        return f"{who} is stopped by the 8"
    if kind == "passed":
        return f"{who} cannot follow and passes: the stock is empty"
    if kind == "forgiven":
        return f"{who}: nothing left to draw, {rest[1]} penalty cards forgiven"
    return " ".join(str(x) for x in event)
