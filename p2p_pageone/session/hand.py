"""One hand's deck bookkeeping: engine slots ↔ deck rounds, owners, keys owed and awaited."""

from __future__ import annotations

from collections.abc import Sequence

from ..crypto.mental import DeckPeer
from ..engine.deal import UNKNOWN, Deal

PUBLIC = -1  # owner of a card shown to everyone (qdan start card, an eliminated hand)


class HandCrypto:
    """Deck rounds of one hand. Slot ``s`` of the engine lives in the round whose slots cover it:
    the main deck holds slots ``0..size-1``; the k-th reshuffle the next block."""

    def __init__(self, hand: int, me: int, seed: bytes, contexts: Sequence[bytes],
                 deck_size: int) -> None:
        self.hand = hand
        self.me = me
        self.deck = DeckPeer(me, seed, contexts, deck_size)
        self.rounds: list[tuple[str, int, int]] = []  # (label, first slot, size) once dealt
        self.pending_round = ""  # label of a round being shuffled, not yet handed to the engine
        self.pending_cards: list[int] = []
        self.logged_commits: set[int] = set()
        self.shown: set[int] = set()  # slots every peer has seen opened (played or shown)

    @property
    def peers(self) -> int:
        return self.deck.peers

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
        return self.deck.owner.get((label, position))

    def assign(self, slot: int, owner: int) -> None:
        label, position = self.locate(slot)
        if self.deck.owner.get((label, position)) != owner:
            self.deck.owner.pop((label, position), None)
            self.deck.set_owner(label, position, owner)

    def published(self, slot: int, peer: int) -> bool:
        label, position = self.locate(slot)
        return (label, position, peer) in self.deck.published

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

    def receive_keys(self, label: str, peer: int, slots: Sequence[int],
                     keys: Sequence[bytes]) -> None:
        positions = []
        for slot in slots:
            where, position = self.locate(slot)
            if where != label:
                raise KeyError(f"slot {slot} is not in deck round {label}")
            positions.append(position)
        self.deck.receive_keys(label, peer, positions, keys)

    def open_own(self, slot: int) -> int:
        return self.deck.open_own(*self.locate(slot))

    def open_public(self, slot: int, blame: int) -> int:
        label, position = self.locate(slot)
        return self.deck.open_public(label, position, blame)

    def check_shown(self, slot: int, owner: int, key: bytes, card: int) -> None:
        label, position = self.locate(slot)
        self.deck.check_public_open(label, position, owner, key, card)

    def reveal_all(self, deal: Deal, seeds: dict[int, bytes]) -> None:
        """After every seed is verified: tell the engine every card of every round."""
        for label, first, _ in self.rounds:
            for offset, card in enumerate(self.deck.all_cards(label, seeds)):
                if deal.known[first + offset] == UNKNOWN:
                    deal.reveal(first + offset, card)
