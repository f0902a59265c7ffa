"""What both rule families share within one deal: slots, knowledge, draws and the Page One call.

Every card is a *slot*: a position in the dealt deck (or in a reshuffled stock). ``known[slot]`` is
the card there, or ``UNKNOWN`` when this viewer has not been shown it. The full-information referee
knows every slot; a live peer knows its own hand and the public cards. Checks that need a hidden
card pass when the card is unknown: the owner's engine makes them live, the referee afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .moves import (
    Call,
    Catch,
    Chance,
    ChanceError,
    DealRequest,
    Draw,
    IllegalMove,
    Move,
    Play,
    ReshuffleRequest,
    UnknownCard,
)

if TYPE_CHECKING:
    from .settings import Settings

UNKNOWN = -1
NOBODY = -1

# A single card cannot be shuffled (everyone knows it) and the deck protocol shuffles two or more:
# fewer recyclable cards count as nothing to reshuffle.
MIN_RESHUFFLE = 2

# Why a seat is drawing; decides what happens when the draw is done or cannot be finished.
FOLLOW, PASS, PENDING, PENALTY = "follow", "pass", "pending", "penalty"


class Deal:
    """One deal of Page One. Subclasses add the family's turn structure."""

    family = ""

    def __init__(self, settings: Settings, players: Sequence[int], dealer: int, seats: int) -> None:
        settings.check_players(len(players))
        if dealer not in players:
            raise ValueError(f"dealer {dealer} is not among the players {list(players)}")
        self.settings = settings
        self.players = tuple(players)
        self.seats = seats
        self.dealer = dealer
        self.known: list[int] = []
        self.hands: list[list[int]] = [[] for _ in range(seats)]
        self.stock: list[int] = []  # next draw is stock[-1]
        self.chance: Chance | None = DealRequest(settings.deck_size)
        self.over = False
        self.turn = NOBODY
        self.called = [False] * seats
        self.open_miss = NOBODY  # seat whose missed call can be caught right now
        self.moves = 0
        self.version = 0  # bumped by every change of state
        self._listed: list[Move] = []
        self._listed_version = -1
        self.events: list[tuple[object, ...]] = []
        self._owed_seat = NOBODY
        self._owed_count = 0
        self._owed_why = ""
        self._after = {p: self.players[(i + 1) % len(players)] for i, p in enumerate(players)}

    def clone(self) -> Deal:
        """An independent copy for search (a bot's determinized rollouts); events not copied."""
        raise NotImplementedError

    def _copy_into(self, other: Deal) -> None:
        other.known = list(self.known)
        other.hands = [list(hand) for hand in self.hands]
        other.stock = list(self.stock)
        other.chance = self.chance
        other.over, other.turn, other.open_miss = self.over, self.turn, self.open_miss
        other.called = list(self.called)
        other.moves, other.version = self.moves, self.version + 1
        other._owed_seat, other._owed_count = self._owed_seat, self._owed_count
        other._owed_why = self._owed_why

    # --- chance steps: outcomes come from outside (the mental-poker deck, or a seeded shuffle) --

    def deal(self, cards: Sequence[int]) -> None:
        """Lay out the shuffled deck: ``cards[i]`` is position ``i``, ``UNKNOWN`` if unseen."""
        if not isinstance(self.chance, DealRequest):
            raise ChanceError("the cards are already dealt")
        if len(cards) != self.chance.size:
            raise ChanceError(f"a deal needs {self.chance.size} positions, got {len(cards)}")
        self._check_cards(cards, range(self.settings.deck_size))
        self.known = list(cards)
        for seat in self.players:
            self.hands[seat] = self.dealt_slots(seat)
        count = self._hand_size() * len(self.players)
        self.stock = list(range(len(cards) - 1, count - 1, -1))
        self.chance = None
        self.version += 1
        self._start()

    def dealt_slots(self, seat: int) -> list[int]:
        """The deck positions dealt to ``seat``: one at a time round the table, starting after
        the dealer (public: every peer lays out the deal the same way)."""
        order = self.players[self.players.index(self.dealer) + 1 :] + self.players[
            : self.players.index(self.dealer) + 1
        ]
        first = order.index(seat)
        return list(range(first, self._hand_size() * len(order), len(order)))

    def reveal(self, slot: int, card: int) -> None:
        """This viewer is shown ``card`` at ``slot`` (its own draw, or a public open)."""
        if not 0 <= slot < len(self.known):
            raise ChanceError(f"there is no deck position {slot}")
        held = self.known[slot]
        if held != UNKNOWN and held != card:
            raise ChanceError(f"position {slot} was shown as {held}, now as {card}")
        self.known[slot] = card
        self.version += 1

    def reshuffle(self, cards: Sequence[int]) -> None:
        """New stock for a pending reshuffle: ``cards[i]`` is new position ``i`` or ``UNKNOWN``."""
        request = self.chance
        if not isinstance(request, ReshuffleRequest):
            raise ChanceError("no reshuffle is pending")
        if len(cards) != len(request.cards):
            raise ChanceError(f"the reshuffle needs {len(request.cards)} positions")
        self._check_cards(cards, request.cards)
        if UNKNOWN not in cards and sorted(cards) != sorted(request.cards):
            raise ChanceError("the reshuffled stock is not the recycled cards")
        first = len(self.known)
        self.known.extend(cards)
        self._take_recyclable()
        self.stock = list(range(first + len(cards) - 1, first - 1, -1))
        self.chance = None
        self.version += 1
        self.events.append(("reshuffle", len(cards)))
        self._continue_draw()

    @staticmethod
    def _check_cards(cards: Sequence[int], allowed: Iterable[int]) -> None:
        seen = [c for c in cards if c != UNKNOWN]
        if len(set(seen)) != len(seen):
            raise ChanceError("a card appears twice")
        if not set(seen) <= set(allowed):
            raise ChanceError("a card is not in this deck")

    # --- moves: verify_x raises IllegalMove with the reason, can_x answers, apply does it -----

    def verify(self, move: Move) -> None:
        """Raise ``IllegalMove`` with a player-facing reason unless ``move`` is legal now."""
        if self.over:
            raise IllegalMove("the deal is over")
        if self.chance is not None:
            raise IllegalMove("wait: the cards are being shuffled or dealt")
        if not 0 <= move.seat < self.seats or move.seat not in self.players:
            raise IllegalMove(f"seat {move.seat} is not playing this deal")
        if isinstance(move, Play):
            self.verify_play(move)
        elif isinstance(move, Draw):
            self.verify_draw(move)
        elif isinstance(move, Call):
            self.verify_call(move)
        else:
            self.verify_catch(move)

    def can(self, move: Move) -> bool:
        try:
            self.verify(move)
        except IllegalMove:
            return False
        return True

    def apply(self, move: Move) -> None:
        """Verify ``move`` with what this viewer knows, then play it.

        A move object taken from ``legal_moves`` for this very state is already known legal.
        """
        if self._listed_version != self.version or not any(m is move for m in self._listed):
            self.verify(move)
        self._apply_checked(move)

    def _apply_checked(self, move: Move) -> None:
        self.moves += 1
        self.version += 1
        if self.open_miss not in (NOBODY, move.seat):
            if isinstance(move, Catch):
                self._apply_catch(move)
                return
            self.open_miss = NOBODY  # another player's action closes the window (C2, Q9)
        if isinstance(move, Play):
            for slot, card in zip(move.slots, move.cards, strict=True):
                self.known[slot] = card
            self._apply_play(move)
        elif isinstance(move, Draw):
            self._apply_draw(move)
        elif isinstance(move, Call):
            self._apply_call(move)

    def verify_play(self, move: Play) -> None:
        raise NotImplementedError

    def verify_draw(self, move: Draw) -> None:
        raise NotImplementedError

    def verify_call(self, move: Call) -> None:
        raise NotImplementedError

    def verify_catch(self, move: Catch) -> None:
        if self.settings.forget_penalty == 0:
            raise IllegalMove("this table plays without the forget penalty: nothing to catch")
        if move.target == move.seat:
            raise IllegalMove("you cannot catch yourself")
        if move.target != self.open_miss:
            raise IllegalMove("too late or too early: that player owes no Page One call right now")

    def _apply_play(self, move: Play) -> None:
        raise NotImplementedError

    def _apply_draw(self, move: Draw) -> None:
        raise NotImplementedError

    def _apply_call(self, move: Call) -> None:
        raise NotImplementedError

    def _apply_catch(self, move: Catch) -> None:
        self.open_miss = NOBODY
        self.events.append(("caught", move.seat, move.target))
        self._owe(move.target, self.settings.forget_penalty, PENALTY)

    def legal_moves(self, seat: int) -> list[Move]:
        """Every legal move for ``seat``; needs that seat's hand to be known to this viewer."""
        moves = self._list_moves(seat)
        self._listed, self._listed_version = moves, self.version
        return moves

    def _list_moves(self, seat: int) -> list[Move]:
        raise NotImplementedError

    # --- shared helpers -----------------------------------------------------------------------

    def _hand_size(self) -> int:
        raise NotImplementedError

    def _start(self) -> None:
        raise NotImplementedError

    def hand_cards(self, seat: int) -> list[int]:
        """The cards in ``seat``'s hand; raises ``UnknownCard`` if this viewer cannot see them."""
        known = self.known
        cards = [known[s] for s in self.hands[seat]]
        if UNKNOWN in cards:
            raise UnknownCard(f"seat {seat}'s hand is hidden from this viewer")
        return cards

    def _check_holding(self, move: Play) -> None:
        hand = self.hands[move.seat]
        if not move.slots or len(move.slots) != len(move.cards):
            raise IllegalMove("name the cards to play")
        if len(set(move.slots)) != len(move.slots):
            raise IllegalMove("the same card is named twice")
        known = self.known
        for slot, card in zip(move.slots, move.cards, strict=True):
            if slot not in hand:
                raise IllegalMove("you do not hold that card")
            held = known[slot]
            if held != UNKNOWN and held != card:
                raise IllegalMove("that is not the card you were dealt at that position")

    def _note_call_state(self, seat: int, called_now: bool, leaves: int, due_at: int) -> None:
        """After a play leaving ``leaves`` cards: record the call, or open the catch window."""
        if leaves == due_at:
            if called_now:
                self.called[seat] = True
                self.events.append(("call", seat))
            elif not self.called[seat] and self.settings.forget_penalty > 0:
                self.open_miss = seat

    # --- drawing, with reshuffles as chance steps ------------------------------------------------

    def _owe(self, seat: int, count: int, why: str) -> None:
        self._owed_seat, self._owed_count, self._owed_why = seat, count, why
        self._continue_draw()

    def _continue_draw(self) -> None:
        seat, hand, stock = self._owed_seat, self.hands[self._owed_seat], self.stock
        drawn = 0
        while self._owed_count > 0:
            if not stock:
                recyclable = self._recyclable()
                if len(recyclable) >= MIN_RESHUFFLE:
                    self.chance = ReshuffleRequest(
                        tuple(self.known[s] for s in recyclable), tuple(recyclable)
                    )
                    if drawn:
                        self.events.append(("draw", seat, drawn, self._owed_why))
                    return
                break
            hand.append(stock.pop())
            self._owed_count -= 1
            drawn += 1
        short = self._owed_count
        self._owed_count = 0
        if drawn:
            self.events.append(("draw", seat, drawn, self._owed_why))
        if len(hand) > self._call_due_at():
            self.called[seat] = False  # drawing back above the count clears a made call (C1)
        self._draws_done(seat, self._owed_why, short)

    def _call_due_at(self) -> int:
        raise NotImplementedError

    def _recyclable(self) -> list[int]:
        raise NotImplementedError

    def _take_recyclable(self) -> None:
        raise NotImplementedError

    def _draws_done(self, seat: int, why: str, short: int) -> None:
        """A draw finished; ``short`` cards could not be drawn at all."""
        raise NotImplementedError

    # --- views --------------------------------------------------------------------------------

    def scores(self) -> dict[int, int]:
        """Per-seat result of a finished deal (classic penalties; qdan places)."""
        raise NotImplementedError
