"""A whole game: deals in turn, dealer rotation, scoring, end of game (RULINGS C12, Q10)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .classic import ClassicDeal
from .deal import UNKNOWN, Deal
from .moves import (
    Chance,
    ChanceError,
    DealRequest,
    IllegalMove,
    Move,
    RevealRequest,
)
from .qdan import QdanDeal
from .settings import ELIMINATION_LIMIT, ClassicSettings, QdanSettings, Settings


@dataclass(frozen=True, slots=True)
class DealResult:
    """One finished deal: classic penalty points, or qdan places, per seat."""

    number: int
    dealer: int
    scores: dict[int, int]
    drawn: bool = False


class Game:
    """Deals one after another until the game ends. Chance steps and moves go through here."""

    def __init__(self, settings: Settings, seats: int, first_dealer: int) -> None:
        settings.check_players(seats)
        if not 0 <= first_dealer < seats:
            raise ValueError(f"first dealer {first_dealer} is not a seat")
        self.settings = settings
        self.seats = seats
        self.totals = [0] * seats
        self.out_at = [0] * seats  # classic elimination: the deal number a seat went out at
        self.results: list[DealResult] = []
        self.over = False
        self.places: list[int] = []
        self.to_reveal: tuple[int, ...] = ()  # hand slots this viewer must see before scoring
        self.left: list[int] = []  # seats that left for good (RULINGS Q14), in order
        self.awarded: dict[int, int] = {}  # qdan places given before a voided deal
        self.deal: Deal = self._new_deal(first_dealer)

    def what_if(self, deal: Deal) -> Game:
        """This game's standing with ``deal`` in play instead: a copy to look ahead on (what a
        player would do after moves not applied yet), never the game itself."""
        other = Game(self.settings, self.seats, deal.dealer)
        other.totals, other.out_at = list(self.totals), list(self.out_at)
        other.results, other.over, other.places = list(self.results), self.over, list(self.places)
        other.to_reveal, other.left = self.to_reveal, list(self.left)
        other.awarded, other.deal = dict(self.awarded), deal
        return other

    # --- driving ------------------------------------------------------------------------------

    @property
    def chance(self) -> Chance | None:
        if self.to_reveal:
            return RevealRequest(self.to_reveal)
        return None if self.over else self.deal.chance

    def reveal_hands(self, cards: Sequence[int]) -> None:
        """The cards at ``to_reveal`` (opened at the end of a classic deal); then score it."""
        if len(cards) != len(self.to_reveal) or UNKNOWN in cards:
            raise ChanceError(f"scoring needs the {len(self.to_reveal)} cards left in hands")
        for slot, card in zip(self.to_reveal, cards, strict=True):
            self.deal.reveal(slot, card)
        self.to_reveal = ()
        self._finish_deal()

    def deal_cards(self, cards: Sequence[int]) -> None:
        self.deal.deal(cards)
        self._after_step()

    def reshuffle(self, cards: Sequence[int]) -> None:
        self.deal.reshuffle(cards)
        self._after_step()

    def turn_up(self, card: int) -> None:
        if not isinstance(self.deal, QdanDeal):
            raise IllegalMove("classic deals turn up no start card")
        self.deal.turn_up(card)
        self._after_step()

    def apply(self, move: Move) -> None:
        if self.over:
            raise IllegalMove("the game is over")
        if self.to_reveal:
            raise IllegalMove("wait: the hands are being opened for scoring")
        deal = self.deal
        deal.apply(move)
        if deal.over:
            self._finish_deal()

    def legal_moves(self, seat: int) -> list[Move]:
        return [] if self.over else self.deal.legal_moves(seat)

    @property
    def players(self) -> tuple[int, ...]:
        return self.deal.players

    # --- deals and scoring --------------------------------------------------------------------

    def _new_deal(self, dealer: int) -> Deal:
        players = [s for s in range(self.seats)
                   if not self.out_at[s] and s not in self.left and s not in self.awarded]
        if isinstance(self.settings, ClassicSettings):
            return ClassicDeal(self.settings, players, dealer, self.seats)
        return QdanDeal(self.settings, players, dealer, self.seats, self._best_free_place())

    def _best_free_place(self) -> int:
        return min(set(range(1, self.seats + 1)) - set(self.awarded.values()))

    def leave(self, seat: int) -> None:
        """RULINGS Q14: ``seat`` is gone for good. Its deal cannot be finished without its keys,
        so the deal is voided (nobody scores it; the next dealer deals anew) and the game goes on
        without it: in classic it ranks below everyone; in qdan it takes the lowest place still
        free and the others keep the places they had. With one player left, the game ends."""
        if self.over or seat in self.left:
            return
        deal = self.deal
        self.left.append(seat)
        self.to_reveal = ()
        if isinstance(deal, QdanDeal):
            self.awarded.update({p: deal.places[p] for p in deal.players if deal.places[p]})
            self.awarded[seat] = deal.lowest_free_place()
        remaining = [p for p in range(self.seats) if not self.out_at[p]
                     and p not in self.left and p not in self.awarded]
        if len(remaining) <= 1:
            for p in remaining:
                self.awarded[p] = self._best_free_place()
            self._finish_game()
            return
        # A deal not dealt yet (the seat left between deals) is dealt by the same dealer, unless
        # that dealer is the one who left: the rotation skips nobody.
        waiting = isinstance(deal.chance, DealRequest) and deal.dealer != seat
        self.deal = self._new_deal(deal.dealer if waiting else self._next_dealer(deal.dealer))

    def _after_step(self) -> None:
        if self.deal.over and not self.over and not self.to_reveal:
            self._finish_deal()

    def _finish_deal(self) -> None:
        deal = self.deal
        if isinstance(deal, ClassicDeal) and not deal.drawn_deal:
            hidden = [s for p in deal.players for s in deal.hands[p] if deal.known[s] == UNKNOWN]
            if hidden:
                self.to_reveal = tuple(hidden)
                return
        scores = deal.scores()
        drawn = isinstance(deal, ClassicDeal) and deal.drawn_deal
        self.results.append(DealResult(len(self.results) + 1, deal.dealer, scores, drawn))
        settings = self.settings
        if isinstance(settings, QdanSettings):
            self.awarded.update(scores)
            self._finish_game()
            return
        for seat, points in scores.items():
            self.totals[seat] += points
        if settings.scoring == "elimination":
            for seat in deal.players:
                if self.totals[seat] > ELIMINATION_LIMIT:
                    self.out_at[seat] = len(self.results)
            standing = [s for s in range(self.seats) if not self.out_at[s] and s not in self.left]
            if len(standing) <= 1:
                self._finish_game()
                return
        elif len(self.results) >= settings.deals:
            self._finish_game()
            return
        self.deal = self._new_deal(self._next_dealer(deal.dealer))

    def _next_dealer(self, dealer: int) -> int:
        for step in range(1, self.seats + 1):
            seat = (dealer + step) % self.seats
            if not self.out_at[seat] and seat not in self.left and seat not in self.awarded:
                return seat
        raise AssertionError("no player left to deal")

    def _finish_game(self) -> None:
        """Places: lowest total first, ties share; in elimination, later elimination is better;
        a seat that left ranks below every seat that did not (later leavers above earlier)."""
        self.over = True
        if isinstance(self.settings, QdanSettings):
            self.places = [self.awarded.get(s, 0) for s in range(self.seats)]
            return

        def standing(seat: int) -> tuple[int, int, int]:
            if seat in self.left:
                return (1, -self.left.index(seat), 0)
            out = self.out_at[seat]
            return (0, -(out or len(self.results) + 1), self.totals[seat])

        keys = [standing(s) for s in range(self.seats)]
        self.places = [1 + sum(1 for other in keys if other < keys[s]) for s in range(self.seats)]

    def winners(self) -> list[int]:
        return [s for s in range(self.seats) if self.places and self.places[s] == 1]
