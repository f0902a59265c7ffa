"""Classic: what the public record suggests about the other players' hands.

Read from the seat's own view only (the deal's public events, the public deck positions of each
hand), never a hidden card. The guesses assume a player plays as ``normal`` does:

- a player who drew to follow, or passed for want of cards to draw, held none of the led suit;
- a player who led a card held no higher card of that suit (it leads its best suit's top card),
  or, leading the joker, nothing but jokers;
- a player who followed with a card that takes the trick held none of the led suit between the
  best card so far and it (it takes with the cheapest card that does); one who followed with a
  card that does not take it held none that would and none lower (it gives its lowest);
- a player who followed with a card while another player was down to two cards held no joker
  (it plays the joker then); one who played the joker on a suit led while nobody was low held
  none of that suit.

Each concerns the cards the player held at that moment: the slots it still holds whose positions
are below the deck positions opened by then (draws take positions in increasing order). A play
forced by a card just drawn says nothing. The result, slot by slot, is a mask of the cards the
slot is guessed not to be, for ``SeatView.determinize(forbidden=...)``: guesses, not proofs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine.cards import JOKER
from ..engine.settings import ClassicSettings
from ..engine.view import SeatView
from .normal import best_led_rank

JOKERS = (1 << JOKER) | (1 << (JOKER + 1))


def suit_mask(suit: int, ranks: range) -> int:
    return sum(1 << (suit * 13 + rank) for rank in ranks)


@dataclass
class _Trick:
    """The replay's state: the trick so far, hand counts, cards drawn, the last drawer."""

    counts: dict[int, int]
    cards: list[int] = field(default_factory=list)
    led: int = -1
    drawn: int = 0
    drew: int = -1  # the seat whose draw came last (its next play may be forced)
    guesses: list[tuple[int, int, int]] = field(default_factory=list)  # (seat, mask, drawn)

    def low_for(self, seat: int) -> bool:
        return min(n for s, n in self.counts.items() if s != seat) <= 2


def classic_guesses(view: SeatView) -> dict[int, int]:
    """Slot -> mask of cards that slot (another player's) is guessed not to be."""
    settings = view.settings
    assert isinstance(settings, ClassicSettings)
    state = _Trick({p: settings.hand_size for p in view.players()})
    for event in view.events():
        _replay(state, event, settings.reverse_lead, view.seat)
    opened = view.opened_slots()
    unlikely: dict[int, int] = {}
    for seat in view.players():
        if seat == view.seat:
            continue
        held = view.held_slots(seat)
        for who, mask, before in state.guesses:
            if who != seat:
                continue
            limit = opened - (state.drawn - before)
            for slot in held:
                if slot < limit:
                    unlikely[slot] = unlikely.get(slot, 0) | mask
    return unlikely


def _replay(state: _Trick, event: tuple[object, ...], low_first: bool, me: int) -> None:
    kind = event[0]
    if kind == "play":
        seat, cards = event[1], event[2]
        assert isinstance(seat, int) and isinstance(cards, tuple)
        card = cards[0]
        assert isinstance(card, int)
        if seat != me and state.drew != seat:
            mask = _play_mask(state, seat, card, low_first)
            if mask:
                state.guesses.append((seat, mask, state.drawn))
        state.counts[seat] -= 1
        state.cards.append(card)
        if state.led == -1 and card < JOKER:
            state.led = card // 13
        state.drew = -1
    elif kind == "trick":
        state.cards, state.led, state.drew = [], -1, -1
    elif kind == "draw":
        seat, count, why = event[1], event[2], event[3]
        assert isinstance(seat, int) and isinstance(count, int)
        if why == "follow" and state.led != -1 and seat != me:
            state.guesses.append((seat, suit_mask(state.led, range(13)), state.drawn))
        state.drawn += count
        state.counts[seat] += count
        state.drew = seat if why == "follow" else -1
    elif kind == "passed":
        seat = event[1]
        assert isinstance(seat, int)
        if state.led != -1 and seat != me:
            state.guesses.append((seat, suit_mask(state.led, range(13)), state.drawn))
        state.drew = -1


def _play_mask(state: _Trick, seat: int, card: int, low_first: bool) -> int:
    """What ``normal`` playing ``card`` now says its hand did not hold."""
    if not state.cards:  # a lead: the top card of its suit (the bottom one, reverse lead)
        if card >= JOKER:
            return (1 << JOKER) - 1  # it leads the joker only with nothing else
        suit, rank = card // 13, card % 13
        return suit_mask(suit, range(rank) if low_first else range(rank + 1, 13))
    low = state.low_for(seat)
    led = state.led
    if card >= JOKER:  # nothing of the led suit, unless it played the joker for a low player
        return 0 if low or led == -1 else suit_mask(led, range(13))
    mask = JOKERS if low else 0
    rank = card % 13
    best = best_led_rank(state.cards, led)
    if led == -1:  # a joker was led: its lowest card of any suit
        return mask | sum(suit_mask(s, range(rank)) for s in range(4))
    if rank > best:  # the cheapest card that takes the trick
        return mask | suit_mask(led, range(best + 1, rank))
    return mask | suit_mask(led, range(rank)) | suit_mask(led, range(best + 1, 13))
