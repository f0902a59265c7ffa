"""One hand's deck bookkeeping: engine slots ↔ deck rounds, owners, keys owed and awaited."""

from __future__ import annotations

from collections.abc import Sequence

from ..crypto.deck import Pass
from ..crypto.mental import DeckPeer
from ..engine.deal import UNKNOWN, Deal

PUBLIC = -1  # owner of a card shown to everyone (qdan start card, an eliminated hand)


class HandCrypto:
    """Deck rounds of one hand. Slot ``s`` of the engine lives in the round whose slots cover it:
    the main deck holds slots ``0..size-1``; the k-th reshuffle the next block.

    Only the seats still in the game (``seats``) take part; the deck numbers them 0, 1, … in
    seat order. Every method here takes and returns table seats; ``DeckError.peer`` is a deck
    index (``seat_at`` turns it into a seat).
    """

    def __init__(self, hand: int, me: int, seats: Sequence[int], seed: bytes,
                 contexts: Sequence[bytes], deck_size: int) -> None:
        self.hand = hand
        self.me = me
        self.seats = list(seats)
        self._index = {seat: i for i, seat in enumerate(self.seats)}
        self.deck = DeckPeer(self._index[me], seed, contexts, deck_size)
        self.rounds: list[tuple[str, int, int]] = []  # (label, first slot, size) once dealt
        self.pending_round = ""  # label of a round being shuffled, not yet handed to the engine
        self.pending_cards: list[int] = []
        self.logged_commits: set[int] = set()
        self.shown: set[int] = set()  # slots every peer has seen opened (played or shown)

    def seat_at(self, index: int) -> int:
        return self.seats[index] if 0 <= index < len(self.seats) else -1

    def index(self, seat: int) -> int:
        return self._index[seat] if seat >= 0 else seat

    def commit(self, seat: int, commitment: bytes) -> None:
        self.deck.record_commitment(self._index[seat], commitment)

    def receive_pass(self, step: str, seat: int, given: Pass) -> None:
        """Verified on receipt: a bad pass is a ``Violation`` naming its author."""
        self.deck.receive_pass(self.pending_round, step, self._index[seat], given)

    def pass_turn(self) -> tuple[str, int]:
        """The pending round's next step and the seat that must take it."""
        step, index = self.deck.rounds[self.pending_round].next_step()
        return step, self.seat_at(index)

    def verify_reveal(self, seat: int, seed: bytes) -> None:
        self.deck.verify_reveal(self._index[seat], seed)

    def main_label(self) -> str:
        return f"{self.hand}/main"

    def next_reshuffle_label(self) -> str:
        return f"{self.hand}/re{len(self.rounds)}"

    def start(self, label: str, cards: Sequence[int]) -> None:
        self.deck.start_round(label, cards)
        self.pending_round, self.pending_cards = label, list(cards)

    def round_done(self) -> bool:
        return bool(self.pending_round) and (
            self.deck.rounds[self.pending_round].next_step()[0] == "done"
        )

    def finish_round(self, first_slot: int) -> None:
        self.rounds.append((self.pending_round, first_slot, len(self.pending_cards)))
        self.pending_round, self.pending_cards = "", []

    def locate(self, slot: int) -> tuple[str, int]:
        for label, first, size in self.rounds:
            if first <= slot < first + size:
                return label, slot - first
        raise KeyError(f"slot {slot} is in no dealt deck round")

    def owner(self, slot: int) -> int | None:
        label, position = self.locate(slot)
        index = self.deck.owner.get((label, position))
        return None if index is None else (PUBLIC if index == PUBLIC else self.seats[index])

    def assign(self, slot: int, owner: int) -> None:
        label, position = self.locate(slot)
        index = self.index(owner)
        if self.deck.owner.get((label, position)) != index:
            self.deck.owner.pop((label, position), None)
            self.deck.set_owner(label, position, index)

    def published(self, slot: int, seat: int) -> bool:
        label, position = self.locate(slot)
        return (label, position, self._index[seat]) in self.deck.published

    def keys_complete(self, slot: int) -> bool:
        label, position = self.locate(slot)
        return self.deck.has_all_keys(label, position)

    def group_by_round(self, slots: Sequence[int]) -> dict[str, list[int]]:
        groups: dict[str, list[int]] = {}
        for slot in slots:
            label, _ = self.locate(slot)
            groups.setdefault(label, []).append(slot)
        return groups

    def key_for(self, slot: int) -> bytes:
        label, position = self.locate(slot)
        return self.deck.keys_for(label, [position])[0]

    def keys_for(self, slots: Sequence[int]) -> tuple[str, list[int], list[bytes]]:
        """This peer's keys for slots of one round: (label, slots, keys)."""
        label = self.locate(slots[0])[0]
        positions = [self.locate(s)[1] for s in slots]
        return label, list(slots), self.deck.keys_for(label, positions)

    def receive_keys(self, label: str, seat: int, slots: Sequence[int],
                     keys: Sequence[bytes]) -> None:
        positions = []
        for slot in slots:
            where, position = self.locate(slot)
            if where != label:
                raise KeyError(f"slot {slot} is not in deck round {label}")
            positions.append(position)
        self.deck.receive_keys(label, self._index[seat], positions, keys)

    def open_own(self, slot: int) -> int:
        return self.deck.open_own(*self.locate(slot))

    def open_public(self, slot: int) -> int:
        label, position = self.locate(slot)
        return self.deck.open_public(label, position, -1)

    def check_shown(self, slot: int, owner: int, key: bytes, card: int) -> None:
        label, position = self.locate(slot)
        self.deck.check_public_open(label, position, self._index[owner], key, card)

    def reveal_all(self, deal: Deal, seeds: dict[int, bytes]) -> None:
        """After every seed (by seat) is verified: tell the engine every card of every round."""
        by_index = {self._index[seat]: seed for seat, seed in seeds.items()}
        for label, first, _ in self.rounds:
            for offset, card in enumerate(self.deck.all_cards(label, by_index)):
                if deal.known[first + offset] == UNKNOWN:
                    deal.reveal(first + offset, card)
