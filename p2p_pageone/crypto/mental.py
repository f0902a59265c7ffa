"""One peer's side of the deck protocol for one hand, sans-I/O (protocol/SPEC.md §5).

A ``DeckPeer`` holds its own seed and a copy of the public record. Messages between peers are
plain values (proven passes as ``Pass``, 32-byte keys), ready to be wrapped in envelopes; every
received pass and key is verified before it is recorded. The table session folds the same
``DeckRound`` records through ``session.hand``; this class serves the tests, the benchmarks and
the golden vectors.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import group
from .deck import (
    Cheat,
    DeckRound,
    DeckSecrets,
    Pass,
    Violation,
    card_at,
    open_point,
    seed_commitment,
    start_points,
)


class DeckPeer:
    """Seat ``seat`` of ``len(contexts)`` peers; ``contexts[j]`` binds peer j's derivations
    (table id, hand number and peer key)."""

    def __init__(self, seat: int, seed: bytes, contexts: Sequence[bytes], deck_size: int) -> None:
        if len(seed) != 32:
            raise ValueError("a hand seed is 32 bytes")
        self.seat = seat
        self.peers = len(contexts)
        self.contexts = list(contexts)
        self.deck_size = deck_size
        self._seed = seed
        self.commitments: dict[int, bytes] = {seat: seed_commitment(seed, contexts[seat])}
        self.rounds: dict[str, DeckRound] = {}
        self.owner: dict[tuple[str, int], int] = {}  # (deck, position) -> seat it was dealt to
        self.published: dict[tuple[str, int, int], int] = {}  # (deck, position, peer) -> key
        self.known: dict[tuple[str, int], int] = {}  # positions whose card this peer has seen
        self._secrets: dict[str, DeckSecrets] = {}
        self._computed: dict[str, tuple[str, Pass]] = {}  # own pass, not yet logged

    @property
    def commitment(self) -> bytes:
        return self.commitments[self.seat]

    def record_commitment(self, peer: int, commitment: bytes) -> None:
        if peer in self.commitments and self.commitments[peer] != commitment:
            raise Violation(peer, f"peer {peer} sent two different seed commitments")
        self.commitments[peer] = commitment

    # --- shuffle and lock -------------------------------------------------------------------

    def start_round(self, deck: str, cards: Sequence[int]) -> None:
        """Begin a deck round over ``cards`` (the whole deck, or public cards to reshuffle)."""
        if len(self.commitments) != self.peers:
            raise Violation(-1, "every peer must commit to its seed before the shuffle")
        self.rounds[deck] = DeckRound(deck, start_points(cards, self.deck_size), self.peers,
                                      self.contexts)
        self._secrets[deck] = DeckSecrets.derive(
            self._seed, self.contexts[self.seat], deck, len(cards)
        )

    def compute_pass(self, deck: str) -> tuple[str, Pass] | None:
        """This peer's proven shuffle or lock pass if it is its turn, without recording it."""
        deck_round = self.rounds[deck]
        step, peer = deck_round.next_step()
        if peer != self.seat:
            return None
        cached = self._computed.get(deck)
        if cached is not None and cached[0] == step:
            return step, cached[1]
        given = deck_round.input_for(step, peer)
        secrets, context = self._secrets[deck], deck_round.proof_context(step, peer)
        prove = secrets.prove_shuffle if step == "shuffle" else secrets.prove_lock
        proven = prove(context, given)
        deck_round.vouch(step, peer, proven.sent, proven.outputs, proven.commits)
        self._computed[deck] = (step, proven.sent)
        return step, proven.sent

    def my_pass(self, deck: str) -> tuple[str, Pass] | None:
        """Compute and record this peer's pass (when nothing else needs to see it first)."""
        result = self.compute_pass(deck)
        if result is not None:
            self.receive_pass(deck, result[0], self.seat, result[1])
        return result

    def receive_pass(self, deck: str, step: str, peer: int, given: Pass) -> None:
        """Verify and record a pass; a bad one is a ``Violation`` naming its author."""
        self.rounds[deck].accept(step, peer, given)
        if peer == self.seat:
            self._computed.pop(deck, None)

    # --- dealing and opening ----------------------------------------------------------------

    def deal_keys(self, deck: str, positions: Sequence[int], to: int) -> list[bytes]:
        """Record ``positions`` as dealt to seat ``to``; return this peer's keys for them
        (empty if ``to`` is this peer, which keeps its own)."""
        for position in positions:
            self.set_owner(deck, position, to)
        if to == self.seat:
            return []
        return self.publish_keys(deck, positions)

    def publish_keys(self, deck: str, positions: Sequence[int]) -> list[bytes]:
        """This peer's unlock keys for ``positions`` (to deal them, or to show them publicly)."""
        secrets = self._secrets[deck]
        keys = [secrets.unlock_key(p) for p in positions]
        for position, key in zip(positions, keys, strict=True):
            self.published[(deck, position, self.seat)] = key
        return [group.scalar_bytes(k) for k in keys]

    def keys_for(self, deck: str, positions: Sequence[int]) -> list[bytes]:
        """This peer's unlock keys for ``positions``, without recording them as published."""
        secrets = self._secrets[deck]
        return [group.scalar_bytes(secrets.unlock_key(p)) for p in positions]

    def set_owner(self, deck: str, position: int, to: int) -> None:
        """Record who may open ``position`` (-1: a card shown to everyone)."""
        if not 0 <= position < self.rounds[deck].size:
            raise Violation(-1, f"there is no position {position} in deck {deck}")
        held = self.owner.setdefault((deck, position), to)
        if held != to:
            raise Violation(-1, f"position {position} was already dealt to seat {held}")

    def receive_keys(self, deck: str, peer: int, positions: Sequence[int],
                     keys: Sequence[bytes]) -> None:
        """Check each unlock key against the peer's commitments before recording any."""
        deck_round = self.rounds.get(deck)
        if deck_round is None or deck_round.next_step()[0] != "done":
            raise Violation(peer, f"peer {peer} sent keys for deck {deck}, which is not dealt")
        if len(positions) != len(keys):
            raise Violation(peer, f"peer {peer} sent a key count that does not match")
        checked = []
        for position, raw in zip(positions, keys, strict=True):
            if not 0 <= position < deck_round.size:
                raise Violation(peer, f"peer {peer} sent a key for position {position}, "
                                f"which is not in deck {deck}")
            try:
                key = group.scalar_of(raw)
            except group.PointError as error:
                raise Violation(peer, f"peer {peer} sent a malformed key: {error}") from None
            if not deck_round.check_key(peer, position, key):
                raise Violation(peer, f"peer {peer} sent a wrong key for position {position} "
                                f"of deck {deck}: it does not match its lock commitment")
            checked.append((position, key))
        for position, key in checked:
            self.published[(deck, position, peer)] = key

    def open_own(self, deck: str, position: int) -> int:
        """Open a position dealt to this peer with everyone's keys; return the card."""
        if self.owner.get((deck, position)) != self.seat:
            raise Violation(-1, f"position {position} was not dealt to this peer")
        keys = [self._secrets[deck].unlock_key(position)]
        for peer in range(self.peers):
            if peer != self.seat:
                if (deck, position, peer) not in self.published:
                    raise Violation(peer, f"peer {peer} has not sent its key for {position}")
                keys.append(self.published[(deck, position, peer)])
        card = self._open(deck, position, keys, blame=-1)
        self.known[(deck, position)] = card
        return card

    def show_key(self, deck: str, position: int) -> bytes:
        """This peer's own key for one of its positions, to show (play) the card publicly."""
        if self.owner.get((deck, position)) != self.seat:
            raise Violation(-1, f"position {position} is not this peer's to show")
        key = self._secrets[deck].unlock_key(position)
        self.published[(deck, position, self.seat)] = key
        return group.scalar_bytes(key)

    def check_public_open(self, deck: str, position: int, owner: int, key: bytes,
                          claimed: int) -> int:
        """Verify another peer's public open: its position, and that it holds the claimed card."""
        if self.owner.get((deck, position)) != owner:
            raise Violation(owner, f"peer {owner} showed position {position}, which is not theirs")
        self.receive_keys(deck, owner, [position], [key])
        keys = [self.published.get((deck, position, p), 0) for p in range(self.peers)]
        keys[self.seat] = self._secrets[deck].unlock_key(position)
        if 0 in keys:
            raise Violation(owner, f"a key for position {position} is missing")
        card = self._open(deck, position, keys, blame=owner)
        if card != claimed:
            raise Violation(owner, f"peer {owner} claimed card {claimed} but position "
                            f"{position} holds another card: not the card it was dealt")
        self.known[(deck, position)] = card
        return card

    def has_all_keys(self, deck: str, position: int) -> bool:
        return all((deck, position, p) in self.published or p == self.seat
                   for p in range(self.peers))

    def open_public(self, deck: str, position: int, blame: int = -1) -> int:
        """Open a position whose keys every other peer has published (a card shown to all)."""
        keys = [self.published[(deck, position, p)] if p != self.seat
                else self._secrets[deck].unlock_key(position) for p in range(self.peers)]
        card = self._open(deck, position, keys, blame)
        self.known[(deck, position)] = card
        return card

    def _open(self, deck: str, position: int, keys: Sequence[int], blame: int) -> int:
        point = open_point(self.rounds[deck].final_point(position), keys)
        return card_at(point, self.deck_size, blame)

    # --- the reveal -------------------------------------------------------------------------

    def reveal_seed(self) -> bytes:
        return self._seed

    def verify_reveal(self, peer: int, seed: bytes) -> None:
        """Check a revealed seed against its commitment, every pass and every published key."""
        if seed_commitment(seed, self.contexts[peer]) != self.commitments.get(peer):
            raise Cheat(peer, f"peer {peer}'s revealed seed does not match its commitment")
        if peer == self.seat and seed == self._seed:
            return  # our own passes and keys were computed from this very seed
        for deck, deck_round in self.rounds.items():
            secrets = DeckSecrets.derive(seed, self.contexts[peer], deck, deck_round.size)
            deck_round.verify_peer(peer, secrets)
            for (d, position, who), key in self.published.items():
                if d == deck and who == peer and key != secrets.unlock_key(position):
                    raise Cheat(peer, f"peer {peer} published a wrong key for position "
                                f"{position} of deck {deck}")

    def all_cards(self, deck: str, seeds: dict[int, bytes]) -> list[int]:
        """After the reveal: every position's card, recomputed from the seeds."""
        deck_round = self.rounds[deck]
        secrets = [DeckSecrets.derive(seeds[p], self.contexts[p], deck, deck_round.size)
                   for p in range(self.peers)]
        return [
            card_at(open_point(deck_round.final_point(i), [s.unlock_key(i) for s in secrets]),
                    self.deck_size, -1)
            for i in range(deck_round.size)
        ]
