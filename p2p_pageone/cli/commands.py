"""Typed card commands → engine moves. Errors say what to type instead."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from ..engine.cards import (
    CardError,
    is_joker,
    parse_classic,
    parse_colour,
    parse_qdan,
    same_face,
)
from ..engine.moves import Call, Catch, Draw, IllegalMove, Move, Play
from ..engine.view import SeatView

COMMANDS: dict[str, tuple[str, str, str]] = {
    # name: (example, what it does in a few words, more)
    "play": ("play 7h | play 5r 5b | play cc red | play qd !", "play cards",
             "cards by name (classic 7h 10s qd ac jk; qdan 5r d2b d3g revy skipr cc). Several "
             "qdan cards of one rank go together, in any order: one that matches goes first, "
             "the last typed on top when it can; a colour after cc chooses it; a final ! says "
             "Page One with the play."),
    "draw": ("draw", "draw a card",
             "classic: when you cannot follow suit; qdan: draw one and end your turn."),
    "pass": ("pass", "qdan: draw; classic: stock empty",
             "qdan: draw one card and end your turn; classic: when you cannot follow and "
             "there is nothing left to draw."),
    "pageone": ("pageone", 'say "Page One!"',
                "before a play that needs it, or late if you forgot, before anyone catches "
                "you."),
    "catch": ("catch bob", "catch a missed Page One",
              "the player draws penalty cards; only while their window is open."),
    "hand": ("hand", "show your hand", "with the name to type for each card."),
    "table": ("table", "show the table", "the trick or top card, cards in hand, the stock."),
    "scores": ("scores", "show totals or places", "classic: penalty totals; qdan: places."),
    "say": ("say good luck", "chat", "everyone at the table sees it (it is in the log)."),
    "log": ("log", "where the log is", "and the command that checks it."),
    "auto": ("auto | auto off", "let the CPU play for you",
             "It plays your seat until you type auto off."),
    "start": ("start", "host: start with those seated",
              "the host may start before every seat is taken, with 2 players or more."),
    "help": ("help play", "this list, or help on one command", ""),
    "quit": ("quit", "leave the table",
             "asks first during a game; when the host quits, the table closes for everyone."),
}
VERBS = tuple(COMMANDS)


PLAY = {  # the play command's examples and card names in each family
    "classic": ("play 7h | play jk | play qd !",
                "cards by name (7h 10s qd ac, jk the joker); a final ! says Page One with the "
                "play."),
    "qdan": ("play 5r | play 5r 5b | play cc red | play 5r !",
             "cards by name (5r d2b d3g revy skipr cc). Several cards of one rank go together, "
             "in any order: one that matches goes first, the last typed on top when it can; a "
             "colour after cc chooses it; a final ! says Page One with the play."),
}


def _entry(name: str, family: str) -> tuple[str, str, str]:
    example, short, more = COMMANDS[name]
    if name == "play" and family in PLAY:
        example, more = PLAY[family]
    return example, short, more


def play_example(family: str) -> str:
    """One card as typed in ``family`` (the other family's names are not cards of it)."""
    return "play 5r" if family == "qdan" else "play 7h"


def help_text(topic: str = "", family: str = "") -> str:
    """The commands, or one; ``family``: the table's, so the examples are its cards."""
    topic = topic.strip().lower()
    if topic:
        if topic not in COMMANDS:
            return f"  no command {topic!r}: type help for the list"
        example, short, more = _entry(topic, family)
        more = more[:1].upper() + more[1:]  # a sentence of its own
        return f"  {topic}: {short}.{' ' + more if more else ''}\n  e.g. {example}"
    rows = [f"  {name:<8} {short:<36} e.g. {_unbroken(example)}"
            for name, (example, short, _) in ((n, _entry(n, family)) for n in COMMANDS)]
    return "commands (help COMMAND for more):\n" + "\n".join(rows)


def _unbroken(example: str) -> str:
    """Examples joined by " | ", each kept on one line (a wrap breaks only at a plain space)."""
    return " | ".join(part.replace(" ", "\u00a0") for part in example.split(" | "))


HELP = help_text()

INFO_COMMANDS = ("hand", "table", "scores", "help", "auto", "quit", "log", "say")


class CommandError(ValueError):
    """A command that could not be understood; the message says what to type."""


@dataclass(frozen=True)
class Info:
    """A command that shows something or changes the client, not the game."""

    name: str
    arg: str = ""


def parse_command(text: str, view: SeatView, names: list[str]) -> Move | Info:
    words = text.strip().split()
    if not words:
        raise CommandError("type a command, or help")
    verb, args = words[0].lower(), words[1:]
    seat = view.seat
    if verb in INFO_COMMANDS:
        return Info(verb, " ".join(args))
    if verb == "draw" or (verb == "pass" and (view.family == "qdan" or not view.stock_count())):
        return Draw(seat)
    if verb in ("pageone", "call", "page-one", "!"):
        return Call(seat)
    if verb == "catch":
        return Catch(seat, _seat_named(" ".join(args), names, seat))
    if verb in ("play", "p"):
        return _parse_play(args, view)
    raise CommandError(f"unknown command {verb!r}: type help for the list")


def _seat_named(name: str, names: list[str], me: int) -> int:
    if not name:
        raise CommandError("catch whom? e.g. catch bob")
    lowered = name.lower()
    if lowered.isdigit() and int(lowered) < len(names):
        return int(lowered)
    matches = [i for i, n in enumerate(names) if n.lower().startswith(lowered) and i != me]
    if len(matches) != 1:
        raise CommandError(f"no single player is called {name!r}: players are {', '.join(names)}")
    return matches[0]


def _parse_play(args: list[str], view: SeatView) -> Play:
    call = False
    colour = -1
    words = list(args)
    if words and words[-1] in ("!", "pageone"):
        call, words = True, words[:-1]
    if words and words[-1].endswith("!") and not call:
        call, words[-1] = True, words[-1][:-1]
    if any(word in ("!", "pageone", "") for word in words):
        named = " ".join(w for w in words if w not in ("!", "pageone", "")) or (
            play_example(view.family).split()[1])
        raise CommandError(f"say Page One once, after the cards: e.g. play {named} !")
    if view.family == "qdan" and len(words) >= 2:
        with contextlib.suppress(CardError):
            colour, words = parse_colour(words[-1]), words[:-1]
    if not words:
        raise CommandError(f"play which card? e.g. {play_example(view.family)} (type hand to "
                           "see yours)")
    parse = parse_classic if view.family == "classic" else parse_qdan
    slots = view.hand_slots()
    cards = view.hand()
    taken: list[int] = []
    for word in words:
        try:
            wanted = parse(_unsymbol(word))
        except CardError as error:
            raise CommandError(str(error)) from None
        index = _find(wanted, cards, slots, taken, view.family)
        if index < 0:
            raise CommandError(f"you do not hold {word}: type hand to see your cards")
        taken.append(index)
    return Play(
        view.seat, tuple(slots[i] for i in taken), tuple(cards[i] for i in taken), call, colour
    )


def _unsymbol(word: str) -> str:
    """``Q♦`` as shown on screen means ``qd``."""
    for symbol, letter in zip("♠♥♦♣", "shdc", strict=True):
        word = word.replace(symbol, letter)
    return word


def _find(wanted: int, cards: list[int], slots: list[int], taken: list[int], family: str) -> int:
    for index, card in enumerate(cards):
        if index in taken:
            continue
        if family == "classic":
            if card == wanted or (is_joker(card) and is_joker(wanted)):
                return index
        elif same_face(card, wanted):
            return index
    return -1


__all__ = ["COMMANDS", "HELP", "VERBS", "CommandError", "IllegalMove", "Info", "parse_command"]
