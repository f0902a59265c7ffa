"""One hand's deck: the public record every peer folds from the log (``HandDeck``), and the
secrets only one peer holds (``HandSecrets``).

Engine slots ↔ deck rounds: the main deck holds slots ``0..size-1``; the k-th reshuffle the next
block. Only the seats still in the game take part; the deck numbers them 0, 1, … in seat order.
Every method here takes and returns table seats; ``DeckError.peer`` is a deck index (``seat_at``
turns it into a seat).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..crypto import group
from ..crypto.deck import (
    DeckError,
    DeckRound,
    DeckSecrets,
    Pass,
    Violation,
    card_at,
    open_point,
    seed_commitment,
    start_points,
)

PUBLIC = -1  # owner of a card shown to everyone (qdan start card, an eliminated hand)


class HandDeck:
    """What the log says about one hand's deck: commitments, passes, owners, published keys."""

    def __init__(self, hand: int, seats: Sequence[int], contexts: Sequence[bytes],
                 deck_size: int) -> None:
        self.hand = hand
        self.seats = list(seats)
        self._index = {seat: i for i, seat in enumerate(self.seats)}
        self.contexts = list(contexts)
        self.deck_size = deck_size
        self.commitments: dict[int, bytes] = {}  # deck index -> seed commitment
        self.record: dict[str, DeckRound] = {}  # every round of the hand, by label
        self.rounds: list[tuple[str, int, int]] = []  # (label, first slot, size) once dealt
        self._located: dict[int, tuple[str, int]] = {}  # slot -> (label, position), once dealt
        self._checked: dict[tuple[str, int, int], int] = {}  # keys that passed u·T = W
        self._slot_owner: dict[int, int] = {}  # slot -> deck index or PUBLIC (as ``owner``)
        self._slot_keys: set[tuple[int, int]] = set()  # (slot, deck index) whose key is logged
        self.pending_round = ""  # label of a round being shuffled, not yet handed to the engine
        self.pending_cards: list[int] = []
        self.owner: dict[tuple[str, int], int] = {}  # (label, position) -> deck index or PUBLIC
        self.keys: dict[tuple[str, int, int], int] = {}  # (label, position, index) -> key
        self.logged_commits: set[int] = set()  # seats
        self.shown: set[int] = set()  # slots every peer has seen opened (played or shown)
        self.synced: tuple[int, ...] = ()  # the state owners were last brought up to date at

    # --- seats and deck indices -----------------------------------------------------------------

    def seat_at(self, index: int) -> int:
        return self.seats[index] if 0 <= index < len(self.seats) else -1

    def index(self, seat: int) -> int:
        return self._index[seat] if seat >= 0 else seat

    @property
    def peers(self) -> int:
        return len(self.seats)

    # --- commitments and passes -----------------------------------------------------------------

    def commit(self, seat: int, commitment: bytes) -> None:
        self.commitments[self._index[seat]] = commitment
        self.logged_commits.add(seat)

    def main_label(self) -> str:
        return f"{self.hand}/main"

    def next_reshuffle_label(self) -> str:
        return f"{self.hand}/re{len(self.rounds)}"

    def start(self, label: str, cards: Sequence[int]) -> None:
        self.record[label] = DeckRound(label, start_points(cards, self.deck_size), self.peers,
                                       self.contexts)
        self.pending_round, self.pending_cards = label, list(cards)

    def wrong_round(self, step: str, label: str) -> str:
        """Why a ``step`` pass for deck ``label`` cannot be taken now ("" if it can)."""
        if not self.pending_round:
            return f"a {step} pass for deck {label!r} while no deck round is being shuffled"
        if label != self.pending_round:
            return f"a {step} pass for deck {label!r}, which is not being shuffled"
        return ""

    def check_pass(self, step: str, seat: int, given: Pass) -> None:
        """Every check of a pass (turn, points, proof) without recording it: the sequencer's."""
        self.record[self.pending_round].check(step, self._index[seat], given)

    def receive_pass(self, step: str, seat: int, given: Pass, verify_proof: bool = True) -> None:
        """Verified on receipt: a bad pass is a ``Violation`` naming its author."""
        self.record[self.pending_round].accept(step, self._index[seat], given, verify_proof)

    def pass_turn(self) -> tuple[str, int]:
        """The pending round's next step and the seat that must take it."""
        step, index = self.record[self.pending_round].next_step()
        return step, self.seat_at(index)

    def round_done(self) -> bool:
        return bool(self.pending_round) and (
            self.record[self.pending_round].next_step()[0] == "done"
        )

    def finish_round(self, first_slot: int) -> None:
        label, size = self.pending_round, len(self.pending_cards)
        self.rounds.append((label, first_slot, size))
        self._located.update((first_slot + p, (label, p)) for p in range(size))
        self.pending_round, self.pending_cards = "", []

    # --- slots, owners and keys -------------------------------------------------------------------

    def locate(self, slot: int) -> tuple[str, int]:
        where = self._located.get(slot)
        if where is None:
            raise KeyError(f"slot {slot} is in no dealt deck round")
        return where

    def slot_of(self, label: str, position: int) -> int:
        first = next(f for name, f, _ in self.rounds if name == label)
        return first + position

    # The fold asks these for every slot of every hand after every entry: they answer from
    # slot-keyed indexes kept beside ``owner`` and ``keys`` instead of locating the slot.

    def owner_of(self, slot: int) -> int | None:
        index = self._slot_owner.get(slot)
        if index is None:
            self.locate(slot)  # a slot in no dealt round is an error, not "no owner"
            return None
        return PUBLIC if index == PUBLIC else self.seats[index]

    def assign(self, slot: int, owner: int) -> None:
        index = self.index(owner)
        self.owner[self.locate(slot)] = index
        self._slot_owner[slot] = index

    def published(self, slot: int, seat: int) -> bool:
        if (slot, self._index[seat]) in self._slot_keys:
            return True
        self.locate(slot)
        return False

    def unpublished(self, slots: Sequence[int], seat: int) -> list[int]:
        """The slots among ``slots`` whose key from ``seat`` is not in the log yet."""
        index, published = self._index[seat], self._slot_keys
        missing = [slot for slot in slots if (slot, index) not in published]
        for slot in missing:
            self.locate(slot)  # a slot in no dealt round is an error (published ones are dealt)
        return missing

    def sync_hand(self, seat: int, slots: Sequence[int]) -> None:
        """Record ``seat`` as the owner of every slot in its hand."""
        index, owners = self._index[seat], self._slot_owner
        for slot in slots:
            if owners.get(slot) != index:
                self.assign(slot, seat)

    def keys_complete(self, slot: int, but: int = -2) -> bool:
        """Every peer's key for ``slot`` is in the log (``but``: except this seat's)."""
        self.locate(slot)
        skip = self._index.get(but, -2)
        published = self._slot_keys
        return all((slot, i) in published or i == skip for i in range(self.peers))

    def group_by_round(self, slots: Sequence[int]) -> dict[str, list[int]]:
        groups: dict[str, list[int]] = {}
        for slot in slots:
            groups.setdefault(self.locate(slot)[0], []).append(slot)
        return groups

    def refusal(self, kind: str, seat: int, data: Mapping[str, Any]) -> str | None:
        """Why a deck message from ``seat`` must be refused (None if it checks out), without
        recording anything: every point, proof and key it carries (SPEC §5.8)."""
        try:
            if kind in ("shuffle", "lock"):
                wrong = self.wrong_round(kind, data["deck"])
                if wrong:
                    return wrong
                self.check_pass(kind, seat, Pass.from_fields(data))
            elif kind == "keys":
                self.check_keys(data["deck"], seat, data["positions"], data["keys"])
            elif kind == "move":
                self.check_play(seat, data)
        except (DeckError, KeyError) as error:
            return str(error).strip("'\"")
        return None

    def check_play(self, seat: int, data: Mapping[str, Any]) -> None:
        """Each key of a play against its commitments, and each of the player's own positions
        opened with the logged keys to the card it claims (a position not in its hand is for the
        rules to refuse)."""
        slots, keys, cards = data["positions"], data["keys"], data["cards"]
        if len(cards) != len(slots):
            raise Violation(self._index[seat], "a play must claim one card per position")
        for slot, key, card in zip(slots, keys, cards, strict=True):
            self.check_keys(self.locate(slot)[0], seat, [slot], [key])
            if self.owner_of(slot) == seat and self.keys_complete(slot, but=seat):
                self._open_shown(slot, seat, key, card)

    def check_keys(self, label: str, seat: int, slots: Sequence[int], keys: Sequence[bytes],
                   verify: bool = True) -> list[tuple[int, int]]:
        """Each key a 32-byte scalar for a slot of ``label`` that passes ``u·T = W`` against the
        sender's commitments: ``(position, key)`` pairs; a ``Violation`` names the sender.
        ``verify=False`` leaves ``u·T = W`` to the caller (the audit, at the reveal)."""
        index = self._index[seat]
        deck_round = self.record.get(label)
        if deck_round is None or deck_round.next_step()[0] != "done":
            raise Violation(index, f"peer {index} sent keys for deck {label}, which is not dealt")
        checked = []
        for slot, raw in zip(slots, keys, strict=True):
            where, position = self.locate(slot)
            if where != label:
                raise KeyError(f"slot {slot} is not in deck round {label}")
            try:
                key = group.scalar_of(raw)
            except group.PointError as error:
                raise Violation(index, f"peer {index} sent a malformed key: {error}") from None
            if verify and self._checked.get((label, position, index)) != key:
                if not deck_round.check_key(index, position, key):
                    raise Violation(index, f"peer {index} sent a wrong key for position "
                                    f"{position} of deck {label}: it does not match its lock "
                                    "commitment")
                self._checked[(label, position, index)] = key  # the sequencer's check and the
                # fold's, or a play's check and its showing, then cost one multiplication
            checked.append((position, key))
        return checked

    def vouch_key(self, label: str, position: int, index: int, key: int) -> None:
        """Remember a key known to be right (this peer's own, derived from its seed)."""
        self._checked[(label, position, index)] = key

    def receive_keys(self, label: str, seat: int, slots: Sequence[int], keys: Sequence[bytes],
                     verify: bool = True) -> list[tuple[int, int]]:
        """Record keys once every one of them checks out (nothing of a bad message is kept)."""
        index = self._index[seat]
        checked = self.check_keys(label, seat, slots, keys, verify)
        for slot, (position, key) in zip(slots, checked, strict=True):
            self.keys[(label, position, index)] = key
            self._slot_keys.add((slot, index))
        return checked

    def open_with(self, slot: int, keys: Sequence[int], blame: int) -> int:
        label, position = self.locate(slot)
        point = open_point(self.record[label].final_point(position), keys)
        return card_at(point, self.deck_size, blame)

    def logged_keys(self, slot: int) -> list[int]:
        label, position = self.locate(slot)
        return [self.keys[(label, position, i)] for i in range(self.peers)]

    def open_public(self, slot: int) -> int:
        """A card every peer has published its key for (a card shown to all)."""
        return self.open_with(slot, self.logged_keys(slot), -1)

    def check_shown(self, slot: int, owner: int, key: bytes, card: int,
                    verify: bool = True) -> list[tuple[int, int]]:
        """A played card: the slot was ``owner``'s, and every logged key opens it to ``card``;
        the key as ``receive_keys`` gives it."""
        index = self._index[owner]
        label, position = self.locate(slot)
        if self.owner.get((label, position)) != index:
            raise Violation(index, f"peer {index} showed position {position}, which is not theirs")
        checked = self.receive_keys(label, owner, [slot], [key], verify)
        if not self.keys_complete(slot):
            raise Violation(index, f"a key for position {position} is missing")
        self._open_shown(slot, owner, key, card)
        return checked

    def _open_shown(self, slot: int, owner: int, key: bytes, card: int) -> None:
        """``owner``'s position opened with every other logged key and ``key`` (checked)."""
        index = self._index[owner]
        label, position = self.locate(slot)
        keys = [group.scalar_of(key) if i == index else self.keys[(label, position, i)]
                for i in range(self.peers)]
        if self.open_with(slot, keys, index) != card:
            raise Violation(index, f"peer {index} claimed card {card} but position {position} "
                            "holds another card: not the card it was dealt")


class HandSecrets:
    """One peer's own hand seed and everything derived from it (never in the log until the
    reveal)."""

    def __init__(self, deck: HandDeck, seat: int, seed: bytes) -> None:
        if len(seed) != 32:
            raise ValueError("a hand seed is 32 bytes")
        self.seed = seed
        self.index = deck.index(seat)
        self.context = deck.contexts[self.index]
        self.commitment = seed_commitment(seed, self.context)
        self._derived: dict[str, DeckSecrets] = {}

    def secrets(self, deck: HandDeck, label: str) -> DeckSecrets:
        if label not in self._derived:
            size = deck.record[label].size
            self._derived[label] = DeckSecrets.derive(self.seed, self.context, label, size)
        return self._derived[label]

    def compute_pass(self, deck: HandDeck) -> tuple[str, Pass] | None:
        """This peer's proven shuffle or lock pass of the pending round, if it is its turn.
        The deck round remembers it, so it is not verified again when the log brings it back."""
        label = deck.pending_round
        deck_round = deck.record[label]
        step, peer = deck_round.next_step()
        if peer != self.index:
            return None
        given = deck_round.input_for(step, peer)
        secrets, context = self.secrets(deck, label), deck_round.proof_context(step, peer)
        proven = (secrets.prove_shuffle if step == "shuffle" else secrets.prove_lock)(context,
                                                                                      given)
        deck_round.vouch(step, peer, proven.sent, proven.outputs, proven.commits)
        return step, proven.sent

    def key_for(self, deck: HandDeck, slot: int) -> bytes:
        """This peer's key for a slot, to send: its own checks of it need no multiplication."""
        label, position = deck.locate(slot)
        key = self.secrets(deck, label).unlock_key(position)
        deck.vouch_key(label, position, self.index, key)
        return group.scalar_bytes(key)

    def keys_for(self, deck: HandDeck, slots: Sequence[int]) -> tuple[str, list[int], list[bytes]]:
        """This peer's keys for slots of one round: (label, slots, keys)."""
        label = deck.locate(slots[0])[0]
        return label, list(slots), [self.key_for(deck, slot) for slot in slots]

    def open_own(self, deck: HandDeck, slot: int,
                 early: Mapping[tuple[str, int, int], int] | None = None) -> int:
        """A card dealt to this peer: every other peer's logged key (or one it sent us
        directly and we checked, ``early``) and its own."""
        label, position = deck.locate(slot)
        keys = [self.secrets(deck, label).unlock_key(position) if i == self.index
                else deck.keys.get((label, position, i)) or (early or {})[(label, position, i)]
                for i in range(deck.peers)]
        return deck.open_with(slot, keys, -1)

    def can_open(self, deck: HandDeck, slot: int,
                 early: Mapping[tuple[str, int, int], int]) -> bool:
        """Every other peer's key for ``slot`` is logged or was sent to us and checked."""
        label, position = deck.locate(slot)
        return all(i == self.index or (label, position, i) in deck.keys
                   or (label, position, i) in early for i in range(deck.peers))
