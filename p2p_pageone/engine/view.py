"""What one seat may know: its own hand, public cards, counts, scores. Bots see only this."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

from .classic import ClassicDeal
from .deal import UNKNOWN, Deal
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

    def held_slots(self, seat: int) -> list[int]:
        """The deck positions in ``seat``'s hand (public; the cards there may not be)."""
        return list(self._game.deal.hands[seat])

    def counts(self) -> dict[int, int]:
        deal = self._game.deal
        return {p: len(deal.hands[p]) for p in deal.players}

    def players(self) -> tuple[int, ...]:
        return self._game.deal.players

    def legal_moves(self) -> list[Move]:
        return self._game.legal_moves(self.seat)

    def totals(self) -> list[int]:
        return list(self._game.totals)

    def deals_done(self) -> int:
        """How many deals of the game have been scored (public)."""
        return len(self._game.results)

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

    # --- search ---------------------------------------------------------------------------------

    def events(self) -> list[tuple[object, ...]]:
        """The public account of this deal so far (plays, draws with counts, tricks, passes)."""
        return list(self._game.deal.events)

    def stock_count(self) -> int:
        return len(self._game.deal.stock)

    def dealt_slots(self, seat: int) -> list[int]:
        """The deck positions ``seat`` was dealt (public; the cards there may not be)."""
        return self._game.deal.dealt_slots(seat)

    def shown_card(self, slot: int) -> int:
        """The card at a position every player has been shown (played, turned up, an eliminated
        hand): any position no longer in a hand or the stock. ``UNKNOWN`` otherwise."""
        deal = self._game.deal
        if not 0 <= slot < len(deal.known) or slot in deal.stock or any(
                slot in deal.hands[p] for p in deal.players):
            return UNKNOWN
        return deal.known[slot]

    def opened_slots(self) -> int:
        """Deck positions taken so far (dealt, turned up, drawn). Draws take positions in
        increasing order, across reshuffles too, so a held slot below the count at some moment
        was held then."""
        deal = self._game.deal
        return len(deal.known) - len(deal.stock)

    def determinize(
        self, rng: random.Random, allowed: Callable[[int, int], bool] | None = None,
        forbidden: Mapping[int, int] | None = None,
    ) -> Deal:
        """A full-information copy of the deal for search: this seat's hand and the face-up
        cards as they are, every other card dealt at random to the slots this seat cannot see
        (other hands, the stock). ``allowed(seat, card)`` may rule cards out of a seat's hand
        (what the public record proves it does not hold); ``forbidden[slot]``, a bit mask over
        cards, rules cards out of one held slot. Both are honoured where the cards allow.
        Hidden cards are never read, so the engine behind the view may know them or not."""
        deal = self._game.deal
        copy = deal.clone()
        known = deal.known
        own = set(deal.hands[self.seat])
        public = self.public_slots()
        hidden = [s for p in deal.players if p != self.seat for s in deal.hands[p]]
        hidden += deal.stock
        seen = {known[s] for s in own | public if known[s] != UNKNOWN}
        hidden += [s for s in own | public if known[s] == UNKNOWN]
        pool = [c for c in range(deal.settings.deck_size) if c not in seen]
        rng.shuffle(pool)
        if forbidden:
            hidden = deal_honouring(copy.known, hidden, pool, forbidden, rng)
        owner = {s: p for p in deal.players if p != self.seat for s in deal.hands[p]}
        if allowed is not None:  # constrained hands first, from the cards they may hold
            hidden.sort(key=lambda s: owner.get(s, -1) == -1)
            for slot in hidden:
                seat = owner.get(slot, -1)
                pick = len(pool) - 1
                if seat >= 0:
                    while pick >= 0 and not allowed(seat, pool[pick]):
                        pick -= 1
                    if pick < 0:
                        pick = len(pool) - 1
                pool[pick], pool[-1] = pool[-1], pool[pick]
                copy.known[slot] = pool.pop()
        else:
            for slot, card in zip(hidden, pool, strict=True):
                copy.known[slot] = card
        return copy

    def public_slots(self) -> set[int]:
        """Slots whose cards every player has seen: tricks, the discard pile."""
        deal = self._game.deal
        if isinstance(deal, ClassicDeal):
            return set(deal.collected) | {slot for _, slot, _ in deal.trick}
        if isinstance(deal, QdanDeal):
            return set(deal.discard)
        return set()


def deal_honouring(
    known: list[int], hidden: list[int], pool: list[int], forbidden: Mapping[int, int],
    rng: random.Random,
) -> list[int]:
    """Deal the constrained slots of ``hidden`` first (the most ruled out first), each a card
    drawn at random from ``pool`` among those its mask allows (any card when none is left);
    returns the slots still to deal, ``pool`` keeping the cards still to give."""
    marked = sorted((s for s in hidden if forbidden.get(s)),
                    key=lambda s: -forbidden[s].bit_count())
    for slot in marked:
        mask = forbidden[slot]
        pick = -1
        for _ in range(8):  # most masks rule out a minority of cards: a few tries suffice
            index = rng.randrange(len(pool))
            if not mask >> pool[index] & 1:
                pick = index
                break
        if pick < 0:
            free = [i for i, card in enumerate(pool) if not mask >> card & 1]
            pick = rng.choice(free) if free else rng.randrange(len(pool))
        pool[pick], pool[-1] = pool[-1], pool[pick]
        known[slot] = pool.pop()
    done = set(marked)
    return [s for s in hidden if s not in done]
