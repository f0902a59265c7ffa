"""Classic Page One (seeds 000/001/003/004): follow suit or draw until you can; tricks."""

from __future__ import annotations

from .cards import JOKER, RANK_EIGHT, SUIT_NAMES, classic_label, classic_points
from .deal import FOLLOW, NOBODY, PENALTY, UNKNOWN, Deal
from .moves import Call, Catch, Draw, IllegalMove, Move, Play
from .settings import ClassicSettings


class ClassicDeal(Deal):
    """One classic deal. ``trick`` holds ``(seat, slot, card)`` in play order."""

    family = "classic"

    def __init__(
        self, settings: ClassicSettings, players: tuple[int, ...] | list[int], dealer: int,
        seats: int,
    ) -> None:
        super().__init__(settings, players, dealer, seats)
        self.rules = settings
        self.trick: list[tuple[int, int, int]] = []
        self.led_suit = -1
        self.leader = NOBODY
        self.trick_left = 0  # players still to give a card to this trick
        self.drawn_slot = -1  # the card drawn this turn while trying to follow
        self.collected: list[int] = []
        self.winner = NOBODY
        self.drawn_deal = False
        self.stock_closed = False  # ran dry with nothing to reshuffle: no more draws (C6)
        self.tricks = 0

    def clone(self) -> ClassicDeal:
        other = ClassicDeal(self.rules, self.players, self.dealer, self.seats)
        self._copy_into(other)
        other.trick = list(self.trick)
        other.led_suit, other.leader, other.trick_left = self.led_suit, self.leader, self.trick_left
        other.drawn_slot, other.winner, other.tricks = self.drawn_slot, self.winner, self.tricks
        other.collected = list(self.collected)
        other.drawn_deal, other.stock_closed = self.drawn_deal, self.stock_closed
        return other

    def _hand_size(self) -> int:
        return self.rules.hand_size

    def _call_due_at(self) -> int:
        return self.rules.call_at

    def _start(self) -> None:
        self._new_trick(self._after[self.dealer])

    def _new_trick(self, leader: int) -> None:
        self.trick = []
        self.led_suit = -1
        self.leader = self.turn = leader
        self.trick_left = len(self.players)
        self.drawn_slot = -1

    # --- verify ---------------------------------------------------------------------------------

    def verify_play(self, move: Play) -> None:
        if move.seat != self.turn:
            raise IllegalMove("it is not your turn")
        if len(move.slots) != 1:
            raise IllegalMove("play one card at a time")
        if move.colour != -1:
            raise IllegalMove("classic cards have no colour to choose")
        self._check_holding(move)
        card = move.cards[0]
        if move.call and len(self.hands[move.seat]) - 1 != self.rules.call_at:
            raise IllegalMove(
                f"call Page One with the play that leaves you {self._call_cards()}"
            )
        led = self.led_suit
        if not self.trick or led == -1:
            return
        drawn = self.known[self.drawn_slot] if self.drawn_slot >= 0 else UNKNOWN
        if drawn != UNKNOWN and drawn < JOKER and drawn // 13 == led and move.slots[0] != (
            self.drawn_slot
        ):
            raise IllegalMove(f"you drew {classic_label(drawn)}: it must be played at once (C5)")
        if card < JOKER and card // 13 != led:
            raise IllegalMove(
                f"follow {SUIT_NAMES[led]} or play a joker; with no {SUIT_NAMES[led]}, draw"
            )

    def verify_draw(self, move: Draw) -> None:
        if move.seat != self.turn:
            raise IllegalMove("it is not your turn")
        if not self.trick:
            raise IllegalMove("you lead this trick: play any card")
        led = self.led_suit
        if led == -1:
            raise IllegalMove("a joker was led: play any card, its suit is the one to follow")
        known = self.known
        for slot in self.hands[move.seat]:
            card = known[slot]
            if card != UNKNOWN and card < JOKER and card // 13 == led:
                raise IllegalMove(
                    f"you hold {classic_label(card)}: follow suit instead of drawing (C5)"
                )

    def _call_cards(self) -> str:
        return "1 card" if self.rules.call_at == 1 else f"{self.rules.call_at} cards"

    def verify_call(self, move: Call) -> None:
        if self.open_miss != move.seat:
            raise IllegalMove(
                f"call Page One when a play leaves you {self._call_cards()} "
                "(attach it to the play, or call before the next player acts)"
            )

    def verify_catch(self, move: Catch) -> None:
        super().verify_catch(move)

    # --- apply ----------------------------------------------------------------------------------

    def _apply_play(self, move: Play) -> None:
        seat, slot, card = move.seat, move.slots[0], move.cards[0]
        hand = self.hands[seat]
        hand.remove(slot)
        self.trick.append((seat, slot, card))
        self.events.append(("play", seat, (card,)))
        if self.led_suit == -1 and card < JOKER:
            self.led_suit = card // 13
        self.drawn_slot = -1
        self._note_call_state(seat, move.call, len(hand), self.rules.call_at)
        if not hand:  # going out ends the deal at once, even mid-trick (C8)
            self.winner = seat
            self._end()
            return
        self.trick_left -= 1
        self.turn = self._after[seat]
        if self.rules.stop_eight and card < JOKER and card % 13 == RANK_EIGHT and (
            self.trick_left > 0
        ):
            self.events.append(("stopped", self.turn))
            self.trick_left -= 1  # the next player gives no card to this trick (C11)
            self.turn = self._after[self.turn]
        if self.trick_left == 0:
            self._finish_trick()

    def _finish_trick(self) -> None:
        winner, leader = self.trick_winner(), NOBODY
        if self.rules.reverse_lead:
            leader = self._lowest_of_led()
        if leader == NOBODY:
            leader = winner
        self.collected.extend(slot for _, slot, _ in self.trick)
        self.tricks += 1
        self.events.append(("trick", winner, tuple(c for _, _, c in self.trick)))
        self._new_trick(leader)

    def trick_winner(self) -> int:
        """The first joker wins (C7); otherwise the highest card of the led suit."""
        best, best_rank = NOBODY, -1
        for seat, _, card in self.trick:
            if card >= JOKER:
                return seat
            if card // 13 == self.led_suit and card % 13 > best_rank:
                best, best_rank = seat, card % 13
        return best

    def _lowest_of_led(self) -> int:
        """Reverse-lead variant: the lowest card of the led suit; a joker is never lowest (C10)."""
        low, low_rank = NOBODY, 99
        for seat, _, card in self.trick:
            if card < JOKER and card // 13 == self.led_suit and card % 13 < low_rank:
                low, low_rank = seat, card % 13
        return low

    def _apply_draw(self, move: Draw) -> None:
        self._owe(move.seat, 1, FOLLOW)

    def _apply_call(self, move: Call) -> None:
        self.open_miss = NOBODY
        self.called[move.seat] = True
        self.events.append(("call", move.seat))

    def _recyclable(self) -> list[int]:
        return [] if self.stock_closed else self.collected

    def _take_recyclable(self) -> None:
        self.collected = []

    def _draws_done(self, seat: int, why: str, short: int) -> None:
        if why == FOLLOW:
            if not short:
                self.drawn_slot = self.hands[seat][-1]
            elif self.rules.exhausted == "drawn":  # nothing to draw or reshuffle (C6)
                self.drawn_deal = True
                self._end()
            else:
                self.stock_closed = True
                self._pass_trick(seat)
        elif why == PENALTY and short:
            self.events.append(("forgiven", seat, short))  # (C9)

    def _pass_trick(self, seat: int) -> None:
        """C6: nothing left to draw; ``seat`` gives no card to this trick, keeps its draws.

        The stock stays closed for the rest of the deal, so every later trick leaves fewer cards
        in the hands and the deal must end: reshuffling the tricks again let strong players pass
        the same cards round for ever (two thirds of 3-player games between ``normal`` bots).
        """
        self.events.append(("passed", seat))
        self.drawn_slot = -1
        self.trick_left -= 1
        self.turn = self._after[seat]
        if self.trick_left == 0:
            self._finish_trick()

    def _end(self) -> None:
        self.over = True
        self.turn = NOBODY
        self.open_miss = NOBODY  # a missed call can no longer be punished (C8)

    # --- listing and scoring ------------------------------------------------------------------

    def _list_moves(self, seat: int) -> list[Move]:
        moves: list[Move] = []
        if self.over or self.chance is not None:
            return moves
        if self.open_miss == seat:
            moves.append(Call(seat))
        elif self.open_miss != NOBODY and self.rules.forget_penalty > 0:
            moves.append(Catch(seat, self.open_miss))
        if seat != self.turn:
            return moves
        hand, known = self.hands[seat], self.known
        leaves = len(hand) - 1
        call_due = leaves == self.rules.call_at
        led = self.led_suit if self.trick else -1
        must = self.drawn_slot if self.drawn_slot >= 0 else -1
        if must >= 0 and not (known[must] < JOKER and known[must] // 13 == led):
            must = -1
        can_follow = False
        for slot in hand:
            card = known[slot]
            if card == UNKNOWN:
                raise IllegalMove(f"seat {seat}'s hand is hidden from this viewer")
            follows = card < JOKER and card // 13 == led
            can_follow = can_follow or follows
            if led == -1 or card >= JOKER or follows:
                if must >= 0 and slot != must:
                    continue
                moves.append(Play(seat, (slot,), (card,)))
                if call_due:
                    moves.append(Play(seat, (slot,), (card,), call=True))
        if led != -1 and not can_follow:
            moves.append(Draw(seat))
        return moves

    def hand_points(self, seat: int) -> int:
        points = self.rules.joker_points
        return sum(classic_points(self.known[s], points) for s in self.hands[seat])

    def scores(self) -> dict[int, int]:
        """Penalty points per player: zero for the winner and for everyone in a drawn deal."""
        if not self.over:
            raise IllegalMove("the deal is not over")
        if self.drawn_deal:
            return dict.fromkeys(self.players, 0)
        return {p: 0 if p == self.winner else self.hand_points(p) for p in self.players}
