"""Classic: whether a dealt hand would have made the choices a player made, by ``normal``'s rules.

``infer_classic.py`` reads single events into slot-by-slot masks; some of what a play says is
about the hand as a whole (a lead names the suit ``normal`` rates best: its count times three
plus the cards of it seen), which no mask can hold. ``read_choices`` replays the public record of
the deal from one seat's view and keeps, for every other player, each of its plays and draws to
follow with what it knew then; ``ClassicChoices.fits`` says whether a full deal of the hidden
cards (a determinized copy) makes every one of them ``normal``'s choice. Each player's hand at a
moment: the positions it had taken by then (dealt, or drawn: draws take positions in increasing
order) less those it had played, whose cards are public. Cards are unique in classic, so a
played card names its position. Read from the view only; guesses, not proofs (the player may
not be ``normal``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ..engine.cards import JOKER
from ..engine.deal import Deal
from ..engine.settings import ClassicSettings
from ..engine.view import SeatView, deal_honouring
from .normal import best_led_rank


@dataclass
class Moment:
    """One choice to replay: a play (``card`` >= 0) or a draw to follow (``card`` = -1)."""

    seat: int
    at: int  # event index
    trick: tuple[int, ...]  # cards played to the trick before it
    led: int  # suit to follow (-1: none yet)
    low: bool  # another player was down to two cards
    seen: tuple[int, int, int, int]  # face-up cards per suit (collected since a reshuffle, trick)
    card: int


@dataclass
class ClassicChoices:
    moments: dict[int, list[Moment]]  # seat -> its choices this deal
    got: dict[int, int]  # slot -> event index it was taken at (-1: dealt)
    owned: dict[int, list[int]]  # seat -> every slot it took this deal
    low_first: bool
    shown: dict[int, tuple[int, int]] = field(default_factory=dict)  # slot played -> card, when

    def fits(self, seat: int, known: list[int]) -> bool:
        """Whether every recorded choice of ``seat`` is ``normal``'s, its hidden cards as in
        ``known``."""
        slots = self.owned.get(seat, [])
        for moment in self.moments.get(seat, ()):
            hand = []
            for slot in slots:
                if self.got[slot] >= moment.at:
                    continue
                card, when = self.shown.get(slot, (-1, -1))
                if card < 0:
                    hand.append(known[slot])
                elif when >= moment.at:
                    hand.append(card)
            if not normal_allows(moment, hand, self.low_first):
                return False
        return True


def normal_allows(moment: Moment, hand: list[int], low_first: bool) -> bool:
    """Whether ``normal`` holding ``hand`` could make ``moment``'s choice (ties allowed)."""
    led = moment.led
    suited = [c for c in hand if c < JOKER and (led == -1 or c // 13 == led)]
    joker = any(c >= JOKER for c in hand)
    if moment.card < 0:  # drew to follow: no card of the suit; a joker only if it could wait
        return not suited and (not joker or (not moment.low and len(hand) > 2))
    card = moment.card
    if moment.card not in hand:
        return False
    if not moment.trick:  # a lead: the joker only with nothing else; else the best suit's top
        if not suited:
            return card >= JOKER
        if card >= JOKER:
            return False
        counts = [0, 0, 0, 0]
        for c in suited:
            counts[c // 13] += 1

        def value(c: int) -> tuple[int, int]:
            return counts[c // 13] * 3 + moment.seen[c // 13], c % 13

        if value(card)[0] != max(value(c)[0] for c in suited):
            return False
        mine = [c % 13 for c in suited if c // 13 == card // 13]
        return card % 13 == (min(mine) if low_first else max(mine))
    if not suited:
        return card >= JOKER and (moment.low or len(hand) <= 2)
    if card >= JOKER:
        return moment.low
    if moment.low and joker:
        return False
    best = best_led_rank(moment.trick, led)
    ranks = [c % 13 for c in suited]
    winners = [r for r in ranks if r > best]
    return card % 13 == (min(winners) if winners else min(ranks))


def read_choices(view: SeatView) -> ClassicChoices:
    settings = view.settings
    assert isinstance(settings, ClassicSettings)
    counts = {p: settings.hand_size for p in view.players()}
    moments: dict[int, list[Moment]] = {p: [] for p in view.players() if p != view.seat}
    draws: list[tuple[int, int, int, int]] = []  # seat, event index, count, drawn before
    gone: list[tuple[int, int, int]] = []  # (seat, event index, card) of every play
    trick: list[int] = []
    seen = [0, 0, 0, 0]
    collected = [0, 0, 0, 0]
    led, drew, drawn = -1, -1, 0
    for index, event in enumerate(view.events()):
        kind = event[0]
        low = False
        if kind in ("play", "draw"):
            seat = event[1]
            assert isinstance(seat, int)
            low = min(n for s, n in counts.items() if s != seat) <= 2
        if kind == "play":
            cards = event[2]
            assert isinstance(seat, int) and isinstance(cards, tuple)
            card = cards[0]
            assert isinstance(card, int)
            if seat in moments and drew != seat:
                moments[seat].append(Moment(seat, index, tuple(trick), led, low,
                                            (seen[0], seen[1], seen[2], seen[3]), card))
            gone.append((seat, index, card))
            counts[seat] -= 1
            trick.append(card)
            if card < JOKER:
                seen[card // 13] += 1
                if led == -1:
                    led = card // 13
            drew = -1
        elif kind == "trick":
            for card in trick:
                if card < JOKER:
                    collected[card // 13] += 1
            trick, led, drew = [], -1, -1
        elif kind == "reshuffle":
            collected = [0, 0, 0, 0]
            seen = [sum(1 for c in trick if c < JOKER and c // 13 == s) for s in range(4)]
        elif kind == "draw":
            count, why = event[2], event[3]
            assert isinstance(seat, int) and isinstance(count, int)
            if why == "follow" and seat in moments and drew != seat:
                moments[seat].append(Moment(seat, index, tuple(trick), led, low,
                                            (seen[0], seen[1], seen[2], seen[3]), -1))
            draws.append((seat, index, count, drawn))
            drawn += count
            counts[seat] += count
            drew = seat if why == "follow" else -1
        elif kind == "passed":
            drew = -1
    return _choices(view, moments, draws, drawn, gone, settings.reverse_lead)


def _choices(view: SeatView, moments: dict[int, list[Moment]],
             draws: list[tuple[int, int, int, int]], drawn: int,
             gone: list[tuple[int, int, int]],
             low_first: bool) -> ClassicChoices:
    """Who took which position when, and the cards of the positions played, and when (a card
    may come round again after a reshuffle, at a new position)."""
    opened = view.opened_slots()
    got: dict[int, int] = {}
    owned: dict[int, list[int]] = {p: [] for p in moments}
    for seat in moments:
        for slot in view.dealt_slots(seat):
            got[slot] = -1
            owned[seat].append(slot)
    for seat, index, count, before in draws:
        first = opened - (drawn - before)
        for slot in range(first, first + count):
            got[slot] = index
            if seat in owned:
                owned[seat].append(slot)
    shown: dict[int, tuple[int, int]] = {}
    for seat, slots in owned.items():
        held = set(view.held_slots(seat))
        left = {slot: view.shown_card(slot) for slot in slots if slot not in held}
        for who, index, card in gone:
            if who != seat:
                continue
            slot = next((s for s, c in left.items() if c == card and got[s] < index), -1)
            if slot >= 0:
                shown[slot] = (card, index)
                del left[slot]
    return ClassicChoices(moments, got, owned, low_first, shown)


def fitting_world(view: SeatView, guesses: dict[int, int], choices: ClassicChoices,
                  rng: random.Random, tries: int) -> Deal:
    """A deal of the hidden cards honouring the slot guesses where the cards allow, then, for
    each player whose choices do not fit its dealt hand, up to ``tries`` fresh hands from its
    cards and the stock's (the first deal kept when none fits)."""
    world = view.determinize(rng, forbidden=guesses)
    known = world.known
    for seat, moments in choices.moments.items():
        if not moments or choices.fits(seat, known):
            continue
        slots = list(world.hands[seat])
        pool_slots = slots + world.stock
        first = [known[s] for s in pool_slots]
        for _ in range(tries):
            cards = list(first)
            rng.shuffle(cards)
            rest = deal_honouring(known, slots, cards, guesses, rng) + world.stock
            for slot, card in zip(rest, cards, strict=True):
                known[slot] = card
            if choices.fits(seat, known):
                break
        else:
            for slot, card in zip(pool_slots, first, strict=True):
                known[slot] = card
    return world
