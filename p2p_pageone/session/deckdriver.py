"""One hand's deck driven in memory with no table around it: each peer folds the public record
into its own ``HandDeck``, holds its seed in ``HandSecrets``, and checks what it receives with
the same methods the table's fold runs (SPEC §5). The deck tests, the golden vectors and
``scripts/bench_deal.py`` drive the deck through here, so they exercise the table's code.

Every seat takes part, so a seat is its deck index. Cards are named by round label and position,
as the deck messages name them; a finished round's positions are slots from the first free one.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..crypto.deck import DeckRound, DeckSecrets, Pass, Violation
from .deckcheck import check_reveal, opened_cards
from .hand import HandDeck, HandSecrets


class HandPeer:
    """Seat ``seat`` of ``len(contexts)`` peers in hand ``hand``; ``contexts[j]`` binds peer j's
    derivations (table id, hand number and peer key)."""

    def __init__(self, seat: int, seed: bytes, contexts: Sequence[bytes], deck_size: int,
                 hand: int = 1) -> None:
        self.seat = seat
        self.deck = HandDeck(hand, range(len(contexts)), contexts, deck_size)
        self.secrets = HandSecrets(self.deck, seat, seed)
        self.known: dict[tuple[str, int], int] = {}  # (label, position) -> card this peer saw

    @property
    def commitment(self) -> bytes:
        return self.secrets.commitment

    @property
    def contexts(self) -> list[bytes]:
        return self.deck.contexts

    @property
    def deck_size(self) -> int:
        return self.deck.deck_size

    @property
    def rounds(self) -> dict[str, DeckRound]:
        return self.deck.record

    @property
    def published(self) -> dict[tuple[str, int, int], int]:
        """Every key this peer has recorded: (label, position, seat) -> key."""
        return self.deck.keys

    def derived(self, label: str) -> DeckSecrets:
        """This peer's scalars and permutation for one round, from its seed."""
        return self.secrets.secrets(self.deck, label)

    def record_commitment(self, seat: int, commitment: bytes) -> None:
        held = self.deck.commitments.get(seat)
        if held is not None and held != commitment:
            raise Violation(seat, f"peer {seat} sent two different seed commitments")
        self.deck.commit(seat, commitment)

    # --- shuffle and lock -----------------------------------------------------------------------

    def start_round(self, label: str, cards: Sequence[int]) -> None:
        """Begin a deck round over ``cards`` (the whole deck, or public cards to reshuffle)."""
        if len(self.deck.logged_commits) != self.deck.peers:
            raise Violation(-1, "every peer must commit to its seed before the shuffle")
        self.deck.start(label, cards)

    def compute_pass(self, label: str) -> tuple[str, Pass] | None:
        """This peer's proven pass if it is its turn in round ``label``, not yet recorded."""
        if self.deck.pending_round != label:
            return None
        return self.secrets.compute_pass(self.deck)

    def my_pass(self, label: str) -> tuple[str, Pass] | None:
        """Compute and record this peer's pass (when nothing else needs to see it first)."""
        result = self.compute_pass(label)
        if result is not None:
            self.receive_pass(label, result[0], self.seat, result[1])
        return result

    def receive_pass(self, label: str, step: str, seat: int, given: Pass) -> None:
        """Verify and record a pass; a bad one is a ``Violation`` naming its author."""
        wrong = self.deck.wrong_round(step, label)
        if wrong:
            raise Violation(seat, wrong)
        self.deck.receive_pass(step, seat, given)
        if self.deck.round_done():
            self.deck.finish_round(sum(size for _, _, size in self.deck.rounds))

    # --- dealing and opening --------------------------------------------------------------------

    def deal_keys(self, label: str, positions: Sequence[int], to: int) -> list[bytes]:
        """Record ``positions`` as dealt to seat ``to``; return this peer's keys for them
        (empty if ``to`` is this peer, which keeps its own)."""
        slots = self._slots(label, positions)
        for position, slot in zip(positions, slots, strict=True):
            held = self.deck.owner_of(slot)
            if held is not None and held != to:
                raise Violation(-1, f"position {position} was already dealt to seat {held}")
            self.deck.assign(slot, to)
        if to == self.seat:
            return []
        keys = [self.secrets.key_for(self.deck, slot) for slot in slots]
        self.deck.receive_keys(label, self.seat, slots, keys)  # as the log brings them back
        return keys

    def receive_keys(self, label: str, seat: int, positions: Sequence[int],
                     keys: Sequence[bytes]) -> None:
        """Check each unlock key against the sender's commitments before recording any."""
        if len(positions) != len(keys):
            raise Violation(seat, f"peer {seat} sent a key count that does not match")
        self.deck.receive_keys(label, seat, self._slots(label, positions, seat), keys)

    def open_own(self, label: str, position: int) -> int:
        """Open a position dealt to this peer with everyone's keys; return the card."""
        (slot,) = self._slots(label, [position])
        if self.deck.owner_of(slot) != self.seat:
            raise Violation(-1, f"position {position} was not dealt to this peer")
        if not self.secrets.can_open(self.deck, slot, {}):
            raise Violation(-1, f"a key for position {position} has not come yet")
        card = self.secrets.open_own(self.deck, slot)
        self.known[(label, position)] = card
        return card

    def show_key(self, label: str, position: int) -> bytes:
        """This peer's own key for one of its positions, to show (play) the card publicly."""
        (slot,) = self._slots(label, [position])
        if self.deck.owner_of(slot) != self.seat:
            raise Violation(-1, f"position {position} is not this peer's to show")
        key = self.secrets.key_for(self.deck, slot)
        self.deck.receive_keys(label, self.seat, [slot], [key])
        return key

    def check_public_open(self, label: str, position: int, owner: int, key: bytes,
                          claimed: int) -> int:
        """Verify another peer's public open: its position, and that it holds the claimed card."""
        (slot,) = self._slots(label, [position], owner)
        self.deck.check_shown(slot, owner, key, claimed)
        self.known[(label, position)] = claimed
        return claimed

    def _slots(self, label: str, positions: Sequence[int], blame: int = -1) -> list[int]:
        """The slots of ``positions`` in the dealt round ``label``."""
        first = next((f for name, f, _ in self.deck.rounds if name == label), None)
        if first is None:
            raise Violation(blame, f"deck {label} is not dealt")
        size = self.deck.record[label].size
        for position in positions:
            if not 0 <= position < size:
                raise Violation(blame, f"position {position} is not in deck {label}")
        return [first + position for position in positions]

    # --- the reveal -----------------------------------------------------------------------------

    def reveal_seed(self) -> bytes:
        return self.secrets.seed

    def verify_reveal(self, seat: int, seed: bytes) -> None:
        """Check a revealed seed against its commitment, and every pass and key it made against
        the seed (as the audit does); a ``Cheat`` names the peer."""
        own = (seat == self.seat and seed == self.secrets.seed
               and self.deck.commitments.get(seat) == self.secrets.commitment)
        if not own:  # our own passes and keys were computed from this very seed
            check_reveal(self.deck, seat, seed)

    def all_cards(self, label: str, seeds: dict[int, bytes]) -> list[int]:
        """After the reveal: every position's card in round ``label``, opened with the keys
        every seed (by seat) derives."""
        return opened_cards(self.deck, label, seeds, range(self.deck.record[label].size))


def seat_peers(seeds: Sequence[bytes], contexts: Sequence[bytes], deck_size: int,
               hand: int = 1) -> list[HandPeer]:
    """A peer for every seed, each holding every peer's seed commitment."""
    peers = [HandPeer(i, seed, contexts, deck_size, hand) for i, seed in enumerate(seeds)]
    for peer in peers:
        for other in peers:
            peer.record_commitment(other.seat, other.commitment)
    return peers
