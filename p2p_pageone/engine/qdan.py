"""Qdan Page One (seed 002): match colour or rank, play same ranks together, draw cards, places."""

from __future__ import annotations

from itertools import combinations

from .cards import (
    COLOUR_NAMES,
    KIND_CHANGE,
    KIND_DRAW2,
    KIND_DRAW3,
    KIND_NAMES,
    KIND_REVERSE,
    KIND_SKIP,
    QDAN_COLOURED,
    is_number,
    qdan_name,
)
from .deal import NOBODY, PASS, PENALTY, PENDING, UNKNOWN, Deal
from .moves import Call, Catch, ChanceError, Draw, IllegalMove, Move, Play, TurnUpRequest
from .settings import QdanSettings


def _kind(card: int) -> int:
    return KIND_CHANGE if card >= QDAN_COLOURED else (card % 26) >> 1


def _colour(card: int) -> int:
    return -1 if card >= QDAN_COLOURED else card // 26


def _face(card: int) -> int:
    """Identical copies share a face."""
    return 52 if card >= QDAN_COLOURED else card >> 1


def leads_on(card: int, top_colour: int, top_kind: int) -> bool:
    """True when ``card`` may start a play on that top with no draw pending (Q3): a
    change-colour card, the same number or action, or the same colour."""
    kind = _kind(card)
    return kind in (KIND_CHANGE, top_kind) or card // 26 == top_colour


_MAX_CARDS = QDAN_COLOURED + 8
KIND = tuple(_kind(c) for c in range(_MAX_CARDS))
FACE = tuple(_face(c) for c in range(_MAX_CARDS))
_ALL_COLOURS = (0, 1, 2, 3)
_NO_COLOUR = (-1,)


class QdanDeal(Deal):
    """A whole Qdan game (one deal). ``places[seat]`` is 1 for first, 0 while still playing."""

    family = "qdan"

    def __init__(
        self, settings: QdanSettings, players: tuple[int, ...] | list[int], dealer: int,
        seats: int, best_free: int = 1,
    ) -> None:
        super().__init__(settings, players, dealer, seats)
        self.rules = settings
        self.discard: list[int] = []
        self.top_group = 0  # the last move's cards: the top of the discard pile
        self.top_colour = -1
        self.top_kind = -1
        self.direction = 1
        self.pending = 0  # cards the player to move must draw unless they stack (Q4)
        self.pending_kind = -1
        self.announced = NOBODY  # the player to move said Page One before playing (Q9)
        self.places = [0] * seats
        self.active = list(self.players)
        self.first_place = best_free  # places before it went in an earlier, voided deal
        self._best_free = best_free
        self._worst_free = best_free + len(self.players) - 1

    def clone(self) -> QdanDeal:
        other = QdanDeal(self.rules, self.players, self.dealer, self.seats, self.first_place)
        self._copy_into(other)
        other.discard = list(self.discard)
        other.top_group, other.top_colour, other.top_kind = (
            self.top_group, self.top_colour, self.top_kind)
        other.direction, other.pending, other.pending_kind = (
            self.direction, self.pending, self.pending_kind)
        other.announced = self.announced
        other.places, other.active = list(self.places), list(self.active)
        other._best_free, other._worst_free = self._best_free, self._worst_free
        return other

    def _hand_size(self) -> int:
        return self.rules.start_cards

    def _call_due_at(self) -> int:
        return 1

    def _start(self) -> None:
        self.chance = TurnUpRequest(self.stock[-1])

    def turn_up(self, card: int) -> None:
        """Open the stock's top card for the start pile (Q2); repeat until a number card."""
        request = self.chance
        if not isinstance(request, TurnUpRequest):
            raise ChanceError("no card is being turned up")
        self.reveal(request.slot, card)
        self.version += 1
        self.discard.append(self.stock.pop())
        if not is_number(card):
            self.chance = TurnUpRequest(self.stock[-1])
            return
        self.chance = None
        self.version += 1
        self.top_group = 1
        self.top_colour, self.top_kind = _colour(card), _kind(card)
        self.turn = self._after[self.dealer]
        self.events.append(("start", card))

    # --- verify ---------------------------------------------------------------------------------

    def verify_play(self, move: Play) -> None:
        if move.seat != self.turn:
            raise IllegalMove("it is not your turn")
        self._check_holding(move)
        cards = move.cards
        kind = _kind(cards[0])
        for card in cards[1:]:
            if _kind(card) != kind:
                raise IllegalMove("cards played together must share a number or an action (Q3)")
        if kind == KIND_CHANGE and len(cards) > 1:
            raise IllegalMove("play change-colour cards one at a time (Q3)")
        if self.pending:
            if kind != self.pending_kind:
                need = KIND_NAMES[self.pending_kind]
                raise IllegalMove(
                    f"draw {self.pending} or stack another {need}: nothing else answers it (Q4)"
                )
        elif self._lead_index(cards) < 0:
            raise IllegalMove(self._no_match(cards))
        if _kind(cards[-1]) == KIND_CHANGE:
            if not 0 <= move.colour < 4:
                raise IllegalMove("choose the next colour: red, yellow, green or blue")
        elif move.colour != -1:
            raise IllegalMove("only a change-colour card chooses a colour")
        if move.call:
            self._verify_call_allowed()
            if len(self.hands[move.seat]) - len(cards) != 1:
                raise IllegalMove("call Page One with a play that leaves you one card (Q9)")

    def arranged(self, move: Play) -> Play:
        """``move`` as it is played: a group may be typed in any order (Q3). When its first card
        does not match the top, the first typed card that does goes first and the rest keep their
        order, so the card typed last stays on top unless it is the only one that matches."""
        index = 0 if self.pending else self._lead_index(move.cards)
        if index <= 0:
            return move
        order = [index, *(i for i in range(len(move.cards)) if i != index)]
        return Play(move.seat, tuple(move.slots[i] for i in order),
                    tuple(move.cards[i] for i in order), move.call, move.colour)

    def _lead_index(self, cards: tuple[int, ...]) -> int:
        """The card of ``cards`` that starts the group: -1 when none matches the top."""
        top_colour, top_kind = self.top_colour, self.top_kind
        if leads_on(cards[0], top_colour, top_kind):
            return 0
        return next((i for i, c in enumerate(cards) if leads_on(c, top_colour, top_kind)), -1)

    def _no_match(self, cards: tuple[int, ...]) -> str:
        colour = COLOUR_NAMES[self.top_colour]
        rank = KIND_NAMES[self.top_kind]
        what = "number" if self.top_kind < KIND_DRAW2 else "card"
        named = " ".join(qdan_name(c) for c in cards)
        if len(cards) == 1:
            return (f"{named} matches neither the colour on top ({colour}) nor the {what} "
                    f"({rank})")
        return (f"none of {named} matches the colour on top ({colour}) or the {what} ({rank}): "
                "one card of a group must")

    def verify_draw(self, move: Draw) -> None:
        if move.seat != self.turn:
            raise IllegalMove("it is not your turn")

    def verify_call(self, move: Call) -> None:
        self._verify_call_allowed()
        if move.seat != self.turn:
            raise IllegalMove("say Page One on your own turn, before the play (Q9)")
        if self.announced == move.seat:
            raise IllegalMove("you have already said Page One")
        hand = self.hands[move.seat]
        if len(hand) < 2 or (
            UNKNOWN not in (self.known[s] for s in hand)
            and not any(len(hand) - len(p.slots) == 1 for p in self._legal_plays(move.seat))
        ):
            raise IllegalMove("Page One is said just before a play that leaves you one card")

    def _verify_call_allowed(self) -> None:
        if not self.rules.announce:
            raise IllegalMove("this table plays without the announce rule")

    # --- apply ----------------------------------------------------------------------------------

    def _apply_play(self, move: Play) -> None:
        move = self.arranged(move)
        seat, cards = move.seat, move.cards
        hand = self.hands[seat]
        for slot in move.slots:
            hand.remove(slot)
        self.discard.extend(move.slots)
        self.top_group = len(cards)
        kind = _kind(cards[-1])
        self.top_kind = kind
        self.top_colour = move.colour if kind == KIND_CHANGE else cards[-1] // 26
        self.events.append(("play", seat, cards, move.colour))
        if self.rules.announce:
            self._note_call_state(seat, move.call or self.announced == seat, len(hand), 1)
        self.announced = NOBODY
        steps = 1
        if kind in (KIND_DRAW2, KIND_DRAW3):
            self.pending += (2 if kind == KIND_DRAW2 else 3) * len(cards)
            self.pending_kind = kind
        elif kind == KIND_REVERSE and len(cards) % 2:
            self.direction = -self.direction
        elif kind == KIND_SKIP:  # never round to the player who played them (Q6)
            steps += min(len(cards), len(self.active) - 1)
        if not hand:
            self._place(seat, best=True)
        if not self.over:
            self.turn = self._step(seat, steps)
            if kind == KIND_SKIP:
                self.events.extend(("skipped", self._step(seat, i)) for i in range(1, steps))

    def _step(self, seat: int, steps: int) -> int:
        """The seat ``steps`` active players on from ``seat`` in the current direction."""
        order = self.players
        index = order.index(seat)
        count = len(order)
        places = self.places
        while steps:
            index = (index + self.direction) % count
            if not places[order[index]]:
                steps -= 1
        return order[index]

    def _apply_draw(self, move: Draw) -> None:
        self.announced = NOBODY
        if self.pending:
            total = self.pending
            self.pending, self.pending_kind = 0, -1
            self._owe(move.seat, total, PENDING)
        else:
            self._owe(move.seat, 1, PASS)

    def _apply_call(self, move: Call) -> None:
        self.announced = move.seat
        self.events.append(("call", move.seat))

    def _recyclable(self) -> list[int]:
        return self.discard[: len(self.discard) - self.top_group]

    def _take_recyclable(self) -> None:
        self.discard = self.discard[len(self.discard) - self.top_group :]

    def _draws_done(self, seat: int, why: str, short: int) -> None:
        hand = self.hands[seat]
        if len(hand) > self.rules.hand_limit:  # (Q8)
            cut = len(self.discard) - self.top_group
            self.discard[cut:cut] = hand
            self.hands[seat] = []
            self.events.append(("eliminated", seat))
            self._place(seat, best=False)
            if seat == self.turn and not self.over:
                self.turn = self._step(seat, 1)
            return
        if why != PENALTY and not self.over:
            self.turn = self._step(seat, 1)

    def lowest_free_place(self) -> int:
        return self._worst_free

    def _place(self, seat: int, best: bool) -> None:
        if best:
            self.places[seat] = self._best_free
            self._best_free += 1
        else:
            self.places[seat] = self._worst_free
            self._worst_free -= 1
        self.active.remove(seat)
        if self.open_miss == seat:
            self.open_miss = NOBODY
        if len(self.active) == 1:  # the last player takes the last free place (Q10)
            self.places[self.active.pop()] = self._best_free
            self.over = True
            self.turn = NOBODY
            self.open_miss = NOBODY

    # --- listing and scoring ------------------------------------------------------------------

    def _list_moves(self, seat: int) -> list[Move]:
        moves: list[Move] = []
        if self.over or self.chance is not None:
            return moves
        if self.open_miss != NOBODY and self.open_miss != seat and self.rules.forget_penalty:
            moves.append(Catch(seat, self.open_miss))
        if seat != self.turn:
            return moves
        plays = self._legal_plays(seat)
        moves.extend(plays)
        moves.append(Draw(seat))
        leave_one = len(self.hands[seat]) - 1
        if self.rules.announce and self.announced != seat and plays and (
            leave_one == 1 or any(len(p.slots) == leave_one for p in plays)
        ):
            moves.append(Call(seat))
        return moves

    def _legal_plays(self, seat: int) -> list[Play]:
        known, hand = self.known, self.hands[seat]
        cards = [known[s] for s in hand]
        if UNKNOWN in cards:
            raise IllegalMove(f"seat {seat}'s hand is hidden from this viewer")
        kinds = [KIND[c] for c in cards]
        plays: list[Play] = []
        pending, top_kind, top_colour = self.pending, self.top_kind, self.top_colour
        call_after_one = self.rules.announce and len(hand) == 2
        done: set[int] = set()
        for index, kind in enumerate(kinds):
            card = cards[index]
            if pending:
                if kind != self.pending_kind:
                    continue
            elif kind != top_kind and kind != KIND_CHANGE and card // 26 != top_colour:
                continue
            colours = _ALL_COLOURS if kind == KIND_CHANGE else _NO_COLOUR
            if kind == KIND_CHANGE:  # played alone (Q3); the copies play alike, so list one
                if kind in done:
                    continue
                done.add(kind)
            if kind == KIND_CHANGE or kinds.count(kind) == 1:  # the common case, kept cheap
                slot = hand[index]
                for colour in colours:
                    plays.append(Play(seat, (slot,), (card,), False, colour))
                    if call_after_one:
                        plays.append(Play(seat, (slot,), (card,), True, colour))
            elif kind not in done:
                done.add(kind)
                slots = [hand[i] for i, k in enumerate(kinds) if k == kind]
                self._group_plays(seat, kind, slots, colours, plays)
        return plays

    def _group_plays(
        self, seat: int, kind: int, slots: list[int], colours: tuple[int, ...], plays: list[Play]
    ) -> None:
        """Plays from several cards of one kind: each matching first card, then any subset."""
        known = self.known
        leave = len(self.hands[seat])
        announce = self.rules.announce
        firsts: dict[int, int] = {}  # one slot per distinct face: identical copies play alike
        for slot in slots:
            card = known[slot]
            if self.pending or kind == KIND_CHANGE or kind == self.top_kind or (
                card // 26 == self.top_colour
            ):
                firsts.setdefault(FACE[card], slot)
        for first in firsts.values():
            rest = [s for s in slots if s != first]
            for group in _groups(first, rest, known):
                cards = tuple(known[s] for s in group)
                for colour in colours:
                    plays.append(Play(seat, group, cards, False, colour))
                    if announce and leave - len(group) == 1:
                        plays.append(Play(seat, group, cards, True, colour))

    def scores(self) -> dict[int, int]:
        """Places: 1 is best."""
        if not self.over:
            raise IllegalMove("the game is not over")
        return {p: self.places[p] for p in self.players}


def _groups(first: int, rest: list[int], known: list[int]) -> list[tuple[int, ...]]:
    """Groups starting with ``first``: any subset of ``rest``, each distinct last card on top."""
    if len(rest) == 1:
        return [(first,), (first, rest[0])]
    out: list[tuple[int, ...]] = [(first,)]
    seen: set[tuple[int, ...]] = set()
    for size in range(1, len(rest) + 1):
        for subset in combinations(rest, size):
            for last in subset:
                middle = sorted((s for s in subset if s != last), key=known.__getitem__)
                key = (*(FACE[known[s]] for s in middle), FACE[known[last]])
                if key in seen:
                    continue
                seen.add(key)
                out.append((first, *middle, last))
    return out
