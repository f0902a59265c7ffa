"""Moves the player types, none of them lost: each is sent, held, or refused with its reason.

The sequencer holds every move that would close a Page One window until the window has run out
(protocol/SPEC.md §7.4), and a peer has one move of its own on its way at a time. So a move typed
in a window, or while one of ours is still out, waits here, shown as held, and goes (in the
order typed) when it may; a catch or a late call goes at once. A move that no longer fits when
its time comes is refused with the engine's reason, naming the command.
"""

from __future__ import annotations

from collections.abc import Callable

from ..engine.moves import Call, Catch, IllegalMove, Move
from ..session.peer import PeerSession
from . import render
from .commands import CommandError, Info, parse_command
from .hints import refusal_text

HELD = "held until the catch window closes"


class TypedMoves:
    def __init__(self, session: PeerSession, catch_window: float, say: Callable[[str], None],
                 clock: Callable[[], float]) -> None:
        self.session, self.catch_window, self.say, self.clock = session, catch_window, say, clock
        self.queue: list[str] = []
        self.window: tuple[tuple[int, int, int], float] | None = None  # (moment, seen at)

    def typed(self, text: str, move: Move) -> None:
        """A move the player typed (parsed against the hand as it is now)."""
        self._note_window()
        urgent = isinstance(move, Catch | Call)
        if urgent and self.session.outbox.requested is None:
            self._send(text, move)
            return
        waiting = bool(self.queue) or self.session.outbox.requested is not None
        if not waiting and self._held(move) and self._refused(text, move):
            return  # not allowed whatever the window does: said now
        if waiting or self._held(move):
            self.queue.append(text)
            why = HELD if self._held(move) else "held until your move before it is in"
            self.say(f"  {text.strip()}: {why}")
            return
        self._send(text, move)

    def tick(self) -> None:
        """Send what was held, in order, once it may go."""
        self._note_window()
        s = self.session
        # the next waits for the last to be in and its cards open (a drawn card decides
        # whether a draw typed after it is still allowed: checked then, with its reason)
        while self.queue and s.outbox.requested is None and s.hand_known():
            text = self.queue[0]
            view = s.view()
            if view is None or s.game is None or s.game_over or s.ended:
                self.queue.clear()
                return
            try:
                move = parse_command(text, view, s.names)
            except (CommandError, IllegalMove) as error:
                self.queue.pop(0)
                self.say(f"  {text.strip()}: "
                         f"{refusal_text(s, render.without_ruling_ids(str(error)))}")
                continue
            if isinstance(move, Info):
                self.queue.pop(0)
                continue
            if self._held(move):
                return
            self.queue.pop(0)
            self._send(text, move)

    def owed_left(self) -> float | None:
        """Seconds left in the Page One window as this terminal saw it open, if one is open."""
        self._note_window()
        if self.window is None:
            return None
        return self.catch_window - (self.clock() - self.window[1])

    def _note_window(self) -> None:
        game = self.session.game
        miss = game.deal.open_miss if game is not None else -1
        if game is None or miss < 0 or not game.settings.forget_penalty:
            self.window = None
            return
        moment = (self.session.hand, game.deal.moves, miss)
        if self.window is None or self.window[0] != moment:
            self.window = (moment, self.clock())

    def _held(self, move: Move) -> bool:
        """Would the sequencer hold this move now (a window open, and it would close it)?"""
        game = self.session.game
        if self.window is None or game is None or self.catch_window <= 0:
            return False
        miss = game.deal.open_miss
        if isinstance(move, Catch) or move.seat == miss:
            return False
        return self.clock() - self.window[1] < self.catch_window

    def _refused(self, text: str, move: Move) -> bool:
        game = self.session.game
        try:
            if game is not None:
                game.deal.verify(move)
        except IllegalMove as error:
            self._not_allowed(text, error)
            return True
        return False

    def _send(self, text: str, move: Move) -> None:
        try:
            self.session.request(move)
        except IllegalMove as error:
            self._not_allowed(text, error, move)

    def _not_allowed(self, text: str, error: IllegalMove, move: Move | None = None) -> None:
        target = move.target if isinstance(move, Catch) else -1
        said = refusal_text(self.session, render.without_ruling_ids(str(error)), target,
                            self.catch_window)
        self.say(f"  {text.strip()}: not allowed: {said}")
