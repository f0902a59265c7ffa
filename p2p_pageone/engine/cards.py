"""Card encodings for both rule families.

Cards are small ints so that hands, decks and logs stay cheap and canonical.

Classic (seeds 000/001/003/004): ``suit * 13 + rank`` for the 52 suited cards, rank 0 being the
two and rank 12 the ace; jokers are 52 and 53.

Qdan (seed 002): ``colour * 26 + kind * 2 + copy`` for the 104 coloured cards (two copies of each),
kinds 0-8 being the numbers 1-9, then Draw 2, Draw 3, Reverse, Skip; the change-colour cards follow
from 104.
"""

from __future__ import annotations

from collections.abc import Sequence

SUITS = "shdc"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
SUIT_SYMBOLS = ("♠", "♥", "♦", "♣")
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "j", "q", "k", "a")
JOKER = 52
RANK_EIGHT = 6

COLOURS = "rygb"
COLOUR_NAMES = ("red", "yellow", "green", "blue")
KIND_DRAW2 = 9
KIND_DRAW3 = 10
KIND_REVERSE = 11
KIND_SKIP = 12
KIND_CHANGE = 13
KIND_NAMES = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "d2", "d3", "rev", "skip", "cc")
QDAN_COLOURED = 104


class CardError(ValueError):
    """A card name that does not name a card of this deck."""


# --- classic ---------------------------------------------------------------------------------


def is_joker(card: int) -> bool:
    return card >= JOKER


def suit_of(card: int) -> int:
    """Suit index; -1 for a joker."""
    return -1 if card >= JOKER else card // 13


def classic_points(card: int, joker_points: int) -> int:
    if card >= JOKER:
        return joker_points
    rank = card % 13
    if rank == 12:
        return 15
    if rank >= 9:
        return 10
    return rank + 2


def classic_name(card: int) -> str:
    if card >= JOKER:
        return "jk" if card == JOKER else "jk2"
    return RANK_NAMES[card % 13] + SUITS[card // 13]


def classic_label(card: int, symbols: bool = True) -> str:
    """Human label, e.g. ``10♥`` or ``Joker``."""
    if card >= JOKER:
        return "Joker"
    rank = RANK_NAMES[card % 13].upper()
    return rank + (SUIT_SYMBOLS[card // 13] if symbols else SUITS[card // 13])


def parse_classic(text: str) -> int:
    """``7h``, ``10s``, ``qd``, ``ac``, ``jk`` (``jk2`` for the second joker)."""
    name = text.strip().lower()
    if name in ("jk", "joker", "jo"):
        return JOKER
    if name == "jk2":
        return JOKER + 1
    if len(name) >= 2 and name[-1] in SUITS:
        rank = name[:-1]
        if rank == "t":
            rank = "10"
        if rank in RANK_NAMES:
            return SUITS.index(name[-1]) * 13 + RANK_NAMES.index(rank)
    raise CardError(
        f"'{text}' is not a card: write rank then suit, e.g. 7h, 10s, qd, ac (suits s h d c), "
        "or jk for the joker"
    )


# --- qdan --------------------------------------------------------------------------------------


def qdan_deck(change_colour: int) -> list[int]:
    return list(range(QDAN_COLOURED + change_colour))


def kind_of(card: int) -> int:
    return KIND_CHANGE if card >= QDAN_COLOURED else (card % 26) // 2


def colour_of(card: int) -> int:
    """Colour index; -1 for a change-colour card."""
    return -1 if card >= QDAN_COLOURED else card // 26


def is_number(card: int) -> bool:
    return card < QDAN_COLOURED and (card % 26) < 18


def qdan_name(card: int) -> str:
    kind = kind_of(card)
    if kind == KIND_CHANGE:
        return "cc"
    return KIND_NAMES[kind] + COLOURS[colour_of(card)]


def qdan_label(card: int) -> str:
    kind = kind_of(card)
    if kind == KIND_CHANGE:
        return "Change-colour"
    text = {KIND_DRAW2: "+2", KIND_DRAW3: "+3", KIND_REVERSE: "Rev", KIND_SKIP: "Skip"}.get(
        kind, str(kind + 1)
    )
    return f"{COLOUR_NAMES[colour_of(card)].capitalize()} {text}"


def parse_qdan(text: str) -> int:
    """``5r``, ``d2b``, ``d3g``, ``revy``, ``skipr``, ``cc``; returns the first copy's id."""
    name = text.strip().lower()
    if name in ("cc", "change"):
        return QDAN_COLOURED
    if len(name) >= 2 and name[-1] in COLOURS:
        kind = name[:-1]
        aliases = {"+2": "d2", "+3": "d3", "r": "rev", "s": "skip", "sk": "skip"}
        kind = aliases.get(kind, kind)
        if kind in KIND_NAMES[:KIND_CHANGE]:
            return COLOURS.index(name[-1]) * 26 + KIND_NAMES.index(kind) * 2
    raise CardError(
        f"'{text}' is not a card: write kind then colour, e.g. 5r, d2b, d3g, revy, skipr "
        "(colours r y g b), or cc for change-colour"
    )


def parse_colour(text: str) -> int:
    name = text.strip().lower()
    for index, colour in enumerate(COLOUR_NAMES):
        if name in (colour, colour[0]):
            return index
    raise CardError(f"'{text}' is not a colour: choose red, yellow, green or blue")


def same_face(a: int, b: int) -> bool:
    """True when two qdan cards are interchangeable copies."""
    if a >= QDAN_COLOURED or b >= QDAN_COLOURED:
        return a >= QDAN_COLOURED and b >= QDAN_COLOURED
    return a // 2 == b // 2


def names(cards: Sequence[int], family: str) -> str:
    name = classic_name if family == "classic" else qdan_name
    return " ".join(name(c) for c in cards)
