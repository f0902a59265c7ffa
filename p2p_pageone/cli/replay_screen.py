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
from ..audit.replay import steps
from ..audit.report import hand_line
from ..engine.classic import ClassicDeal
from ..engine.deal import Deal
from ..engine.qdan import QdanDeal
from ..session.fold.records import HandRecord
from ..session.fold.table import TableState
from . import render, theme
from .render import Line
from .replay_view import _records, describe_line
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


def frames(audit: Audit, seat: int | None, open_hands: bool) -> tuple[list[Frame], list[Line]]:
    """The screens of every hand dealt, and the story: each hand's moves, then its line from the
    audit (a void hand, never dealt out, has only its line)."""
    state = audit.state
    assert state is not None
    names = state.names
    story: list[Line] = []
    out: list[Frame] = []
    records = _records(audit)
    for result in audit.hands:
        record = records.get(result.hand)
        if record is not None:
            story.append([("class:title", f"— hand {result.hand}: {names[record.dealer]} "
                           "deals —")])
            shown = record.players if open_hands else ((seat,) if seat is not None else ())
            out += _hand_frames(state, record, shown, story)
        story.append([("class:hint", "  " + hand_line(result, audit.fault))])
        if out:
            out[-1].told = len(story)
    return out, story


def _hand_frames(state: TableState, record: HandRecord, shown: tuple[int, ...],
                 story: list[Line]) -> list[Frame]:
    """One frame per move of a hand; the story gets the moves' lines as they come."""
    assert state.settings is not None
    names, family = state.names, state.settings.family
    out = []
    moves = len(record.moves)
    for index, step in enumerate(steps(state.settings, state.seat_count, record)):
        story += [[("", "  "), *describe_line(event, names, family)] for event in step.events]
        title: Line = [("class:title", f"hand {record.number}"),
                       ("", f"  {family}  move {index} of {moves}  "
                            f"stock {len(step.deal.stock)}")]
        table = [title, _players(step.deal, names), _on_table(step.deal, names)]
        hands = [[("", f"{names[p]}: "), *cards_line(
            [step.deal.known[s] for s in step.deal.hands[p]], family, set())]
            for p in shown if p in step.deal.players]
        out.append(Frame(record.number, table, hands or [[("", "public cards only (--seat N "
                                                                "or --open shows hands)")]],
                         len(story)))
    return out


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
        self.frames, self.at, self.typed = shown, start, ""
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
            *frame.hands, [("class:hint", KEYS + (f"   hand {self.typed}…" if self.typed
                                                   else ""))]]
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
        self.at = min(max(0, at), len(self.frames) - 1)

    def jump(self, hand: int) -> None:
        starts = [i for i, frame in enumerate(self.frames) if frame.hand == hand]
        if starts:
            self.go(starts[0])


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
