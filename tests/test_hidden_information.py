"""One engine, three roles: each seat runs its own engine knowing only its hand and the public
cards, bots choose on those views, and the full-information referee agrees with every peer."""

from __future__ import annotations

import random

import pytest

from p2p_pageone.bots import make_bot
from p2p_pageone.engine import (
    UNKNOWN,
    ChanceError,
    Deal,
    DealRequest,
    Game,
    IllegalMove,
    Play,
    ReshuffleRequest,
    RevealRequest,
    SeatView,
    TurnUpRequest,
    make_settings,
)


class Table:
    """A referee plus one partial-knowledge engine per seat, fed the same steps."""

    def __init__(self, family: str, players: int, seed: int, options: dict[str, object]) -> None:
        self.rng = random.Random(seed)
        settings = make_settings(family, options)
        dealer = self.rng.randrange(players)
        self.referee = Game(settings, players, dealer)
        self.peers = [Game(settings, players, dealer) for _ in range(players)]
        self.bots = [make_bot(self.rng.choice(["random", "normal"])) for _ in range(players)]

    def _sync_hands(self, finished: Deal | None = None) -> None:
        """Show each peer the cards that arrived in its own hand."""
        ref = self.referee.deal
        for seat, peer in enumerate(self.peers):
            if peer.to_reveal:  # end of a classic deal: the seed reveal opens every hand
                assert isinstance(peer.chance, RevealRequest) and finished is not None
                peer.reveal_hands([finished.known[s] for s in peer.to_reveal])
            for slot in peer.deal.hands[seat]:
                if peer.deal.known[slot] == UNKNOWN:
                    peer.deal.reveal(slot, ref.known[slot])

    def chance(self) -> None:
        request = self.referee.chance
        if isinstance(request, DealRequest):
            deck = list(range(request.size))
            self.rng.shuffle(deck)
            self.referee.deal_cards(deck)
            for peer in self.peers:
                peer.deal_cards([UNKNOWN] * request.size)
        elif isinstance(request, ReshuffleRequest):
            cards = list(request.cards)
            self.rng.shuffle(cards)
            self.referee.reshuffle(cards)
            for peer in self.peers:
                peer.reshuffle([UNKNOWN] * len(cards))
        elif isinstance(request, TurnUpRequest):
            card = self.referee.deal.known[request.slot]
            self.referee.turn_up(card)
            for peer in self.peers:
                peer.turn_up(card)
        self._sync_hands()

    def step(self) -> None:
        ref = self.referee.deal
        seat = ref.turn
        for other in ref.players:  # out-of-turn calls and catches first
            if other != seat and ref.open_miss != -1:
                move = self.bots[other].choose(SeatView(self.peers[other], other), self.rng)
                if move is not None:
                    break
        else:
            move = self.bots[seat].choose(SeatView(self.peers[seat], seat), self.rng)
        assert move is not None
        before = self.referee.deal
        self.referee.apply(move)
        for peer in self.peers:
            peer.apply(move)
        self._sync_hands(before)

    def check(self) -> None:
        ref = self.referee
        for seat, peer in enumerate(self.peers):
            assert peer.over == ref.over
            if ref.over:
                assert peer.places == ref.places and peer.totals == ref.totals
                continue
            assert peer.deal.turn == ref.deal.turn
            assert [len(h) for h in peer.deal.hands] == [len(h) for h in ref.deal.hands]
            assert len(peer.deal.stock) == len(ref.deal.stock)
            if ref.chance is None:
                assert peer.legal_moves(seat) == ref.legal_moves(seat)
            for other in peer.deal.players:
                if other != seat:
                    assert all(peer.deal.known[s] == UNKNOWN for s in peer.deal.hands[other])


@pytest.mark.parametrize(
    ("family", "players", "options"),
    [
        ("classic", 2, {}),
        ("classic", 4, {"stop_eight": True, "jokers": 2}),
        ("classic", 6, {"reverse_lead": True, "call_at": 1, "hand_size": 5}),
        ("qdan", 2, {}),
        ("qdan", 4, {"colour_changes": 8, "forget_penalty": 2}),
        ("qdan", 6, {"hand_limit": 12, "start_cards": 5, "announce": False}),
    ],
)
def test_peers_with_partial_knowledge_agree_with_referee(
    family: str, players: int, options: dict[str, object]
) -> None:
    for seed in range(3):
        table = Table(family, players, seed, {"deals": 2, **options} if family == "classic"
                      else options)
        steps = 0
        while not table.referee.over:
            if table.referee.chance is not None:
                table.chance()
            else:
                table.step()
            table.check()
            steps += 1
            assert steps < 20_000


def test_peer_refuses_a_card_that_contradicts_what_it_was_shown() -> None:
    game = Game(make_settings("classic"), 2, 1)
    game.deal_cards(list(range(53)))
    slot = game.deal.hands[0][0]
    real = game.deal.known[slot]
    with pytest.raises(IllegalMove, match="not the card you were dealt"):
        game.apply(Play(0, (slot,), ((real + 1) % 52,)))
    with pytest.raises(ChanceError, match="was shown as"):
        game.deal.reveal(slot, (real + 1) % 52)


def test_peer_cannot_list_moves_for_a_hidden_hand() -> None:
    game = Game(make_settings("classic"), 2, 1)
    game.deal_cards([UNKNOWN] * 53)
    with pytest.raises(IllegalMove, match="hidden"):
        game.legal_moves(0)
    with pytest.raises(IllegalMove, match="hidden"):
        SeatView(game, 0).hand()
