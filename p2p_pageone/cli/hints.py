"""What to type now: the hint under YOUR TURN. Every example is a command the game accepts."""

from __future__ import annotations

from ..engine.cards import COLOUR_NAMES, JOKER, QDAN_COLOURED, same_face
from ..engine.classic import ClassicDeal
from ..engine.deal import Deal
from ..engine.moves import Draw, IllegalMove, Play
from ..engine.qdan import QdanDeal
from ..session.peer import PeerSession
from . import render


def typed_move(move: Play, family: str) -> str:
    """The cards of ``move`` as typed after ``play``, with the colour a cc needs."""
    text = render.typed_names(list(move.cards), family)
    return f"{text} {COLOUR_NAMES[move.colour]}" if move.colour >= 0 else text


def as_played(deal: Deal, move: Play) -> Play:
    """``move`` in the order the engine plays it: a qdan group's matching card first."""
    return deal.arranged(move) if isinstance(deal, QdanDeal) else move


def playable_cards(deal: Deal, legal: list[Play]) -> set[int]:
    """Cards that may be played now: alone, or as the card that starts a legal group (a card
    that can only follow another in a group is not marked; ``group_only`` says how). A qdan
    card that is a copy of one of those may be played as well: typed, they are one card."""
    firsts = {as_played(deal, move).cards[0] for move in legal}
    if not isinstance(deal, QdanDeal):
        return firsts
    return firsts | {card for move in legal for card in move.cards
                     if any(same_face(card, first) for first in firsts)}


def group_only(deal: Deal, legal: list[Play], playable: set[int]) -> str:
    """E.g. "9r only with 9b: play 9b 9r", for each card that goes only in a group."""
    notes: dict[int, str] = {}
    for move in sorted(legal, key=lambda m: len(m.cards)):
        played = as_played(deal, move)
        for card in played.cards[1:]:
            if card not in playable and card not in notes:
                alone = render.typed_names([card], deal.family)
                others = render.typed_names([c for c in played.cards if c != card], deal.family)
                typed = " ".join(render.typed_names([c], deal.family) for c in played.cards)
                notes[card] = f"{alone} only with {others}: play {typed}"
    return "; ".join(notes.values())


def draw_passes(deal: Deal, seat: int) -> bool:
    """Whether drawing now passes instead (nothing to draw or reshuffle): the engine's answer,
    from a draw tried on a copy of the deal."""
    if deal.stock:
        return False
    trial = deal.clone()
    before = len(trial.events)
    try:
        trial.apply(Draw(seat))
    except IllegalMove:
        return False
    return any(event[0] == "passed" for event in trial.events[before:])


def what_to_do(s: PeerSession, playable: set[int], legal: list[Play]) -> str:
    game = s.game
    assert game is not None
    deal = game.deal
    plain = [m for m in legal if not m.call] or legal
    single = [m for m in plain if len(m.cards) == 1] or plain
    single.sort(key=lambda m: m.colour >= 0)  # an example without a colour is simpler
    example = typed_move(single[0], deal.family) if single else ""
    if isinstance(deal, ClassicDeal):
        if deal.drawn_slot >= 0 and playable:
            return f"play the card you drew: play {example}"
        if not deal.trick:
            return f"lead any card, e.g. play {example}"
        if deal.led_suit < 0:
            return f"a joker was led: play any card, e.g. play {example}"
        suit = render.SUIT_NAMES[deal.led_suit]
        if any(c < JOKER for c in playable):
            return f"follow {suit} or play the joker: play {example}" if any(
                c >= JOKER for c in playable) else f"follow {suit}: play {example}"
        passes = draw_passes(deal, s.me)
        draw = "pass (type pass: there is nothing to draw)" if passes else "draw"
        if playable:
            return f"no {suit}: play the joker (play jk) or {draw}"
        return f"no {suit}: {draw}" + ("" if passes else " (type draw)")
    if isinstance(deal, QdanDeal):
        if deal.pending:
            if playable:
                return f"stack it (play {example}) or draw {deal.pending} (type draw)"
            return f"you must draw {deal.pending}: type draw"
        if playable:
            cc = " (or a cc, naming a colour)" if any(c >= QDAN_COLOURED for c in playable) else ""
            grouped = group_only(deal, legal, playable)
            return (f"{_match(deal)}{cc}: e.g. play {example}; or draw"
                    + (f" ({grouped})" if grouped else ""))
        return "nothing matches: type draw"
    return "type help"


def page_one_hint(legal: list[Play], held: int, family: str) -> str:
    """Under YOUR TURN when a play needs Page One: an example the game takes as typed (a cc
    with its colour), the simplest of them ("": no play needs it)."""
    calls = sorted((m for m in legal if m.call), key=lambda m: (len(m.cards), m.colour >= 0))
    if not calls:
        return ""
    left = held - len(calls[0].cards)
    return (f"a play that leaves you {left} card{'s' if left != 1 else ''} needs Page One: "
            f"add !, e.g. play {typed_move(calls[0], family)} !")


def _match(deal: QdanDeal) -> str:
    """What a card must match: the top card, or the colour a cc on top chose."""
    top = deal.known[deal.discard[-1]]
    if top >= QDAN_COLOURED:
        colour = COLOUR_NAMES[deal.top_colour]
        return f"play a {colour} card, the colour the cc on top chose"
    return f"match {render.plain([render.card(top, 'qdan')])} by colour or number"


def refusal_text(s: PeerSession, text: str, target: int = -1, window: float = 0.0) -> str:
    """A refusal in the player's words: a catch that lost its race says who caught first (or
    that the call was made, or the window had closed, and how long a person may rely on)."""
    game = s.game
    late = "too late or too early"
    if late not in text or game is None:
        return text
    head = text.partition(late)[0]
    for event in reversed(game.deal.events):
        if event[0] == "play" and (target < 0 or int(str(event[1])) == target):
            break
        if event[0] == "caught" and target in (-1, int(str(event[2]))):
            catcher, caught = (int(str(seat)) for seat in event[1:3])
            return f"{head}too late: {_who(s, catcher)} caught {_who(s, caught)} first"
        if event[0] == "call" and target >= 0 and int(str(event[1])) == target:
            return f"{head}too late: {_who(s, target)} said Page One before your catch"
    if target < 0:
        return text
    rely = f" (you may rely on {window:g} s after the play)" if window > 0 else ""
    played = any(e[0] == "play" and int(str(e[1])) == target for e in game.deal.events)
    return (f"{head}too late: {_who(s, target)}'s window to be caught had closed{rely}"
            if played and game.deal.open_miss != target else
            f"{head}{_who(s, target)} owes no Page One call right now")


def _who(s: PeerSession, seat: int) -> str:
    return "you" if seat == s.me else s.names[seat] if 0 <= seat < len(s.names) else "?"
