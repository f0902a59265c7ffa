"""What one seat may know: its own hand, public cards, counts, scores. Bots see only this."""

from __future__ import annotations

from .classic import ClassicDeal
from .game import Game
from .moves import IllegalMove, Move
from .qdan import QdanDeal


class SeatView:
    """A read-only window on a game for one seat; hidden cards are never exposed.

    The engine behind it may be the full-information referee or the seat's own peer engine: the
    answers are the same, because each reads only the seat's own slots and public state.
    """

    __slots__ = ("_game", "seat")

    def __init__(self, game: Game, seat: int) -> None:
        self._game = game
        self.seat = seat

    @property
    def family(self) -> str:
        return self._game.settings.family

    @property
    def settings(self) -> object:
        return self._game.settings

    @property
    def turn(self) -> int:
        """The seat to move (-1 between deals)."""
        return self._game.deal.turn

    def verify(self, move: Move) -> None:
        """Raise ``IllegalMove`` unless this seat's ``move`` is legal now."""
        if move.seat != self.seat:
            raise IllegalMove("a view moves only its own seat")
        self._game.deal.verify(move)

    def hand(self) -> list[int]:
        return self._game.deal.hand_cards(self.seat)

    def hand_slots(self) -> list[int]:
        return list(self._game.deal.hands[self.seat])

    def counts(self) -> dict[int, int]:
        deal = self._game.deal
        return {p: len(deal.hands[p]) for p in deal.players}

    def players(self) -> tuple[int, ...]:
        return self._game.deal.players

    def legal_moves(self) -> list[Move]:
        return self._game.legal_moves(self.seat)

    def totals(self) -> list[int]:
        return list(self._game.totals)

    # --- classic --------------------------------------------------------------------------------

    def trick(self) -> list[tuple[int, int]]:
        """``(seat, card)`` played so far to the current trick."""
        deal = self._game.deal
        return [(s, c) for s, _, c in deal.trick] if isinstance(deal, ClassicDeal) else []

    def led_suit(self) -> int:
        deal = self._game.deal
        return deal.led_suit if isinstance(deal, ClassicDeal) and deal.trick else -1

    def played_cards(self) -> list[int]:
        """Cards that have been seen face up this deal (tricks, discards)."""
        deal = self._game.deal
        if isinstance(deal, ClassicDeal):
            return [deal.known[s] for s in deal.collected] + [c for _, _, c in deal.trick]
        if isinstance(deal, QdanDeal):
            return [deal.known[s] for s in deal.discard]
        return []

    # --- qdan -----------------------------------------------------------------------------------

    def top(self) -> tuple[int, int, int]:
        """``(colour, kind, pending draw)`` on top of the qdan pile."""
        deal = self._game.deal
        if isinstance(deal, QdanDeal):
            return deal.top_colour, deal.top_kind, deal.pending
        return -1, -1, 0

    def next_seat(self) -> int:
        deal = self._game.deal
        if isinstance(deal, QdanDeal):
            return deal._step(self.seat, 1) if not deal.over else -1
        return deal._after.get(self.seat, -1)
