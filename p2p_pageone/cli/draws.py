"""A draw of my own, told once in one form: ``you draw N cards: <every card drawn>``; and how
the table's end is told.

The cards open after the draw (the others' keys come later), and under ``auto`` one may be
played at once: the line waits until every card drawn is known, from the hand or the play.
"""

from __future__ import annotations

from collections.abc import Callable

from ..engine.game import DealResult
from ..session.peer import PeerSession
from . import render
from .render import Line


class OwnDraw:
    def __init__(self) -> None:
        self.count, self.reason, self.cards = 0, "", list[int]()

    @property
    def pending(self) -> bool:
        return self.count > 0

    @property
    def complete(self) -> bool:
        return len(self.cards) >= self.count

    def start(self, count: int, reason: str, cards: list[int]) -> None:
        self.count, self.reason, self.cards = count, reason, list(cards)

    def add(self, cards: list[int]) -> None:
        self.cards += cards[: self.count - len(self.cards)]

    def told(self, family: str, symbols: bool) -> Line:
        """The line, and the draw forgotten."""
        what = f"{self.count} card{'s' if self.count != 1 else ''}"
        line: Line = [("", f"  you draw {what}{self.reason}")]
        if self.cards:  # fewer when some left the hand before they could be seen (auto)
            among = ", among them " if len(self.cards) < self.count else ": "
            line += [("", among), *render.cards(self.cards, family, symbols)]
        self.count, self.reason, self.cards = 0, "", []
        return line


def ended_text(s: PeerSession, culprit: int) -> str:
    """The table's end as this player is told it ("": its own leaving, told by the command)."""
    if culprit == 0 and not s.is_host and " closed the table" in s.ended:
        why = s.ended.partition(" closed the table")[2]  # " (the reason)", if it gave one
        return "the host closed the table" + why
    if s.me < 0 and not s.is_host:
        return f"could not sit down: {s.ended.removeprefix('the host refused to seat us: ')}"
    if s.local_network and culprit < 0:  # we left, reaching nobody: the table may go on
        return s.ended
    if culprit != s.me or s.me < 0:
        return f"the table ended: {render.without_ruling_ids(s.ended)}"
    return ""


def result_text(result: DealResult, number: int, name: Callable[[int], str]) -> str:
    """A classic hand's end: who went out and the penalties (``name``: "you" for my seat)."""
    if result.drawn:
        return (f"  hand {number} is a drawn deal: the stock ran out and there were no tricks "
                "to reshuffle, so nobody scores it")
    out = [p for p, v in result.scores.items() if v == 0]
    who = ", ".join(name(p) for p in out) or "nobody"
    penalties = ", ".join(f"{name(p)} {v}" for p, v in
                          sorted(result.scores.items(), key=lambda kv: kv[1]))
    return f"  hand {number} over: {who} went out. Penalties: {penalties}"
