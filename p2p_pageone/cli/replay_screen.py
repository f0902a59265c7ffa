"""`pageone replay` on a terminal: the game's table screen over an audited log, one move at a
time. Right, Space or Enter: the next move; Left or Backspace: the one before; PageDown and
PageUp: the next or previous hand; a hand's number then Enter: that hand; q: quit."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FormattedTextControl, HSplit, Layout, Window
from prompt_toolkit.layout.dimension import Dimension

from ..audit.check import Audit
from ..engine.classic import ClassicDeal
from ..engine.deal import UNKNOWN, Deal
from ..engine.qdan import QdanDeal
from . import render, theme
from .render import Line
from .replay_story import Told, hidden
from .replay_story import story as tell
from .tablescreen import Story, joined, rule
from .tableview import NBSP, cards_line
from .wrap import wrap

KEYS = "→/space next  ← back  PgDn/PgUp next/previous hand  N Enter: hand N  q quit"


@dataclass
class Frame:
    """What the screen shows after one move: the table, the hands shown, the story so far."""

    hand: int
    table: list[Line]
    hands: list[Line]
    told: int  # lines of the story told by now
    stock: str = ""


def frames(audit: Audit, seat: int | None, open_hands: bool) -> tuple[list[Frame], list[Line]]:
    """The screens of every hand, one per move, and the story: what the game told of each
    entry (``replay_story``), a void hand's moves too, then each hand's line from the audit. A
    hand with no move (void while it was dealt) gets one screen, at its line."""
    state = audit.state
    assert state is not None and state.settings is not None
    names, family = state.names, state.settings.family
    shown = None if open_hands else ((seat,) if seat is not None else ())
    story: list[Line] = []
    out: list[Frame] = []
    moves: dict[int, int] = {}
    for told in tell(audit, shown, symbols=True):
        if told.hand < 1:
            continue
        story += [[(style or ("class:title" if text.startswith("— hand") else ""), text)
                   for style, text in line] for line in told.lines]
        has_frame = bool(out) and out[-1].hand == told.hand
        if told.deal is not None and (told.moved or (told.closes and not has_frame)):
            moves[told.hand] = moves.get(told.hand, -1) + 1
            out.append(_frame(told, names, family, moves[told.hand], len(story)))
        elif has_frame:
            out[-1].told = len(story)
    for frame in out:  # "move 3 of 40": the count of the hand's moves, known only now
        frame.table[0].append(("", f" of {moves[frame.hand]}  {frame.stock}"))
    return out, story


def _frame(told: Told, names: list[str], family: str, move: int, story_lines: int) -> Frame:
    deal = told.deal
    assert deal is not None
    title: Line = [("class:title", f"hand {told.hand}"), ("", f"  {family}  move {move}")]
    table = [title, _players(deal, names), _on_table(deal, names)]
    cards = told.dealt or told.hands
    hands = [[("", f"{names[p]}: "), *_cards(held, family)] for p, held in cards.items()]
    return Frame(told.hand, table, hands or [[("", "public cards only (--seat N or --open "
                                                   "shows hands)")]], story_lines,
                 f"stock {len(deal.stock)}")


def _cards(cards: list[int], family: str) -> Line:
    shown = [card for card in cards if card != UNKNOWN]
    line = cards_line(shown, family, set()) if shown else []
    count = hidden(cards)
    if count:
        line.append(("class:hint", f"{'  ' if shown else ''}{count} hidden"))
    return line


def _players(deal: Deal, names: list[str]) -> Line:
    line: Line = []
    for seat in deal.players:
        count = len(deal.hands[seat])
        text = f"{names[seat]}{NBSP}{count}{NBSP}card{'s' if count != 1 else ''}"
        if line:
            line.append(("", "  "))
        line.append(("class:turn", f">{text}") if seat == deal.turn and not deal.over
                    else ("", f" {text}"))
    return line


def _on_table(deal: Deal, names: list[str]) -> Line:
    if isinstance(deal, ClassicDeal):
        return render.trick_line(deal, names, True)
    if isinstance(deal, QdanDeal):
        return render.top_line(deal, True)
    return []


class ReplayScreen:
    def __init__(self, shown: list[Frame], story: list[Line], start: int = 0) -> None:
        self.frames, self.at, self.typed, self.note = shown, start, "", ""
        self.story = Story(kept=None)  # frames count the story's lines from its start
        self.story.add(story)
        keys = _keys(self)
        self.app: Application[None] = Application(
            layout=Layout(self._root()), key_bindings=keys, full_screen=True,
            style=theme.SCREEN, output=theme.terminal_output(), mouse_support=False)

    def width(self) -> int:
        return max(20, self.app.output.get_size().columns)

    def _area(self, part: str) -> list[Line]:
        frame = self.frames[self.at]
        lines = frame.table if part == "table" else [
            *frame.hands, *([[("class:hint", self.note)]] if self.note else []),
            [("class:hint", KEYS + (f"   hand {self.typed}…" if self.typed else ""))]]
        return wrap(lines, self.width(), indent="  ")

    def _root(self) -> HSplit:
        def area(part: str) -> Window:
            return Window(FormattedTextControl(lambda: joined(self._area(part))),
                          height=lambda: Dimension.exact(len(self._area(part))))

        story = Window(FormattedTextControl(self._story, show_cursor=False), wrap_lines=False,
                       height=Dimension(weight=1))
        return HSplit([area("table"), rule(), story, rule(), area("hands")])

    def _story(self) -> StyleAndTextTuples:
        told = self.story.wrapped_upto(self.frames[self.at].told, self.width())
        rows = self.app.output.get_size().rows
        room = rows - len(self._area("table")) - len(self._area("hands")) - 2
        return joined(told[-max(1, room):])

    def go(self, at: int) -> None:
        self.at, self.note = min(max(0, at), len(self.frames) - 1), ""

    def jump(self, hand: int) -> None:
        """To ``hand``'s first move; a note says why not if the log has no such hand."""
        starts = [i for i, frame in enumerate(self.frames) if frame.hand == hand]
        if starts:
            self.go(starts[0])
            return
        hands = sorted({frame.hand for frame in self.frames})
        self.note = (f"no hand {hand} in this log (it has hand"
                     + (f"s {hands[0]}-{hands[-1]})" if len(hands) > 1 else f" {hands[0]})"))


def _keys(screen: ReplayScreen) -> KeyBindings:
    keys = KeyBindings()
    for key in ("right", "space", "n"):
        keys.add(key)(lambda event: screen.go(screen.at + 1))
    for key in ("left", "backspace", "p", "b"):
        keys.add(key)(lambda event: screen.go(screen.at - 1))
    keys.add("home")(lambda event: screen.go(0))
    keys.add("end")(lambda event: screen.go(len(screen.frames) - 1))

    def other_hand(step: int) -> None:
        hand = screen.frames[screen.at].hand + step
        screen.jump(hand)

    keys.add("pagedown")(lambda event: other_hand(1))
    keys.add("pageup")(lambda event: other_hand(-1))

    @keys.add("<any>")
    def _digit(event: KeyPressEvent) -> None:
        if event.data.isdigit():
            screen.typed = (screen.typed + event.data)[-4:]

    @keys.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        if screen.typed:
            screen.jump(int(screen.typed))
            screen.typed = ""
        else:
            screen.go(screen.at + 1)

    for key in ("q", "escape", "c-c", "c-d"):
        keys.add(key)(lambda event: event.app.exit())
    return keys


def replay_command(audit: Audit, args: argparse.Namespace) -> bool:
    """Run the replay screen if input and output are a terminal (not ``--plain``): True if it
    ran; False for the line-by-line replay (piped, ``--plain``)."""
    if getattr(args, "plain", False) or not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    replay_screen(audit, args)
    return True


def replay_screen(audit: Audit, args: argparse.Namespace) -> None:
    shown, story = frames(audit, args.seat, args.open)
    if not shown:
        print("nothing to replay: the log holds no hand that was dealt")
        return
    start = next((i for i, f in enumerate(shown) if f.hand == args.hand), 0)
    ReplayScreen(shown, story, start).app.run()
