"""The proven deck with in-memory peers: dealing, private and public opens, and every cheat the
issue lists refused at receipt with its author named."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest

from p2p_pageone.crypto import group
from p2p_pageone.crypto.deck import Cheat, DeckSecrets, Pass, Violation, open_point
from p2p_pageone.session.deckdriver import HandPeer, seat_peers
from p2p_pageone.wire.codec import pack, unpack

DECK = "1/main"
Tamper = Callable[[Pass], Pass]


def make_peers(count: int, size: int, hand: int = 1, table: bytes = b"table-1") -> list[HandPeer]:
    seeds = [hashlib.sha256(b"seed%d" % i).digest() for i in range(count)]
    contexts = [b"%s|hand-%d|peer-%d" % (table, hand, i) for i in range(count)]
    return seat_peers(seeds, contexts, size)


def wire(given: Pass) -> Pass:
    """A pass crosses the wire as msgpack, as it would between real peers."""
    decoded = unpack(pack(given.fields()))
    assert isinstance(decoded, dict)
    return Pass.from_fields(decoded)


def shuffle_and_lock(peers: list[HandPeer], deck: str = DECK, cards: list[int] | None = None,
                     tamper: dict[tuple[str, int], Tamper] | None = None) -> None:
    """Every pass in turn; ``tamper[(step, seat)]`` replaces what that seat sends."""
    size = peers[0].deck_size
    for peer in peers:
        if deck not in peer.rounds:
            peer.start_round(deck, cards if cards is not None else list(range(size)))
    for _ in range(2 * len(peers)):
        for peer in peers:
            result = peer.compute_pass(deck)
            if result is None:
                continue
            step, sent = result
            if tamper and (step, peer.seat) in tamper:
                sent = tamper[(step, peer.seat)](sent)
            else:
                peer.receive_pass(deck, step, peer.seat, sent)
            for other in peers:
                if other is not peer:
                    other.receive_pass(deck, step, peer.seat, wire(sent))
            break


def deal(peers: list[HandPeer], per_seat: int) -> dict[int, list[int]]:
    """Positions round-robin to each seat; everyone else sends keys; owners open theirs."""
    dealt = {p.seat: [i for i in range(per_seat * len(peers)) if i % len(peers) == p.seat]
             for p in peers}
    for to, positions in dealt.items():
        for sender in peers:
            keys = sender.deal_keys(DECK, positions, to)
            for receiver in peers:
                if receiver is not sender and keys:
                    receiver.receive_keys(DECK, sender.seat, positions, keys)
    return {p.seat: [p.open_own(DECK, i) for i in dealt[p.seat]] for p in peers}


@pytest.mark.parametrize(("count", "size"), [(2, 53), (3, 54), (4, 53), (6, 108)])
def test_peers_shuffle_lock_deal_and_open(count: int, size: int) -> None:
    peers = make_peers(count, size)
    shuffle_and_lock(peers)
    finals = {tuple(p.rounds[DECK].final) for p in peers}
    assert len(finals) == 1
    hands = deal(peers, 4)
    all_cards = [c for cards in hands.values() for c in cards]
    assert len(set(all_cards)) == len(all_cards) and all(0 <= c < size for c in all_cards)
    for peer in peers:  # each peer has seen exactly its own cards
        assert {pos for (_, pos) in peer.known} == {i for i in range(4 * count)
                                                    if i % count == peer.seat}
    # a peer holding every key but the owner's still cannot open the owner's card
    spy, victim_position = peers[0], 1
    keys = [k for (d, pos, who), k in spy.published.items() if pos == victim_position]
    keys.append(spy.derived(DECK).unlock_key(victim_position))
    point = open_point(spy.rounds[DECK].final_point(victim_position), keys)
    assert point not in group.card_index(size)
    # public open: the owner shows its key and everyone checks the card
    owner = peers[1]
    key = owner.show_key(DECK, victim_position)
    for peer in peers:
        if peer is not owner:
            assert peer.check_public_open(DECK, victim_position, 1, key, hands[1][0]) == hands[1][0]
    # the reveal: every seed matches every pass and key, and all cards are recoverable
    seeds = {p.seat: p.reveal_seed() for p in peers}
    for peer in peers:
        for seat, seed in seeds.items():
            peer.verify_reveal(seat, seed)
    deck = peers[0].all_cards(DECK, seeds)
    assert sorted(deck) == list(range(size))
    assert [deck[i] for i in range(4 * count) if i % count == 0] == hands[0]


def test_card_points_have_no_small_known_logs() -> None:
    points = group.card_points(108)
    assert len(set(points)) == 108 and all(len(x) == 33 and x[0] == 2 for x in points)
    multiples = {group.encode(group.base(k)) for k in range(1, 300)}
    negatives = {bytes([x[0] ^ 1]) + x[1:] for x in multiples}
    assert not (multiples | negatives) & set(points)  # not i·G, as a PyPI package has it
    assert group.card_points(53) == points[:53]


def test_playing_a_card_not_dealt_is_refused_at_once() -> None:
    peers = make_peers(2, 53)
    shuffle_and_lock(peers)
    hands = deal(peers, 4)
    key = peers[1].show_key(DECK, 1)
    fake = next(c for c in range(53) if c not in hands[1])
    with pytest.raises(Violation, match="not the card it was dealt") as error:
        peers[0].check_public_open(DECK, 1, 1, key, fake)
    assert error.value.peer == 1
    with pytest.raises(Violation, match="which is not theirs"):
        peers[0].check_public_open(DECK, 0, 1, key, hands[0][0])


def test_seed_that_does_not_match_its_commitment_is_named() -> None:
    peers = make_peers(2, 53)
    shuffle_and_lock(peers)
    with pytest.raises(Cheat, match="does not match its commitment"):
        peers[0].verify_reveal(1, hashlib.sha256(b"other").digest())


def test_reshuffle_of_public_cards_under_a_fresh_label() -> None:
    peers = make_peers(3, 53)
    recycled = [4, 9, 17, 30, 52]
    shuffle_and_lock(peers, deck="1/re1", cards=recycled)
    seeds = {p.seat: p.reveal_seed() for p in peers}
    cards = peers[0].all_cards("1/re1", seeds)
    assert sorted(cards) == recycled
    main = DeckSecrets.derive(seeds[0], peers[0].contexts[0], DECK, 5)
    again = DeckSecrets.derive(seeds[0], peers[0].contexts[0], "1/re1", 5)
    assert main.locks != again.locks and main.shuffle_scalar != again.shuffle_scalar


def test_permutation_is_a_permutation_and_depends_on_the_seed() -> None:
    a = DeckSecrets.derive(b"\x01" * 32, b"ctx", DECK, 108)
    b = DeckSecrets.derive(b"\x02" * 32, b"ctx", DECK, 108)
    assert sorted(a.order) == list(range(108)) and a.order != b.order


def test_short_challenges_are_a_plus_b_lambda_as_the_spec_says() -> None:
    """SPEC §5.4: 17 bytes of SHAKE-256 per challenge, a = (x mod 2^68) + 1, b = x >> 68, and
    the challenge a + b·λ; λ is a cube root of unity, and a multiplication by such a challenge
    agrees with the two halves done separately."""
    from p2p_pageone.crypto.transcript import Transcript

    assert pow(group.LAMBDA, 3, group.N) == 1 and group.LAMBDA != 1
    transcript = Transcript("lock")
    transcript.absorb("context", b"x")
    data = hashlib.shake_256(transcript.digest() + b"w").digest(17 * 5)
    got = transcript.short_challenges("w", 5)
    for i, challenge in enumerate(got):
        x = int.from_bytes(data[17 * i : 17 * i + 17], "big")
        a, b = x % 2**68 + 1, x >> 68
        assert challenge == (a + b * group.LAMBDA) % group.N
        point = group.decode(group.card_points(3)[1])
        halves = group.add([group.mul(point, a), group.mul(group.mul(point, group.LAMBDA), b)])
        assert group.mul(point, challenge) == halves
    assert len(set(got)) == 5 and all(0 < c < group.N for c in got)


def test_joint_multiplication_matches_two_and_covers_x_above_the_order() -> None:
    """``mul_add_base`` (ECDSA recovery's k·P + z·G) against a multiplication and an addition,
    also for a point whose x is at or above N, which recovery cannot take."""
    high = next(group.decode(b"\x02" + (group.N + t).to_bytes(32, "big"))
                for t in range(1, 200) if _on_curve(b"\x02" + (group.N + t).to_bytes(32, "big")))
    for point in (group.decode(group.card_points(5)[2]), high, group.G):
        for k, z in ((1, 0), (5, 7), (group.N - 1, 3), (123456789, group.N - 2)):
            expect = group.mul(point, k)
            if z:
                expect = group.add([expect, group.base(z)])
            assert group.mul_add_base(point, k, z) == expect
    with pytest.raises(group.PointError):
        group.mul_add_base(group.G, group.N - 1, 1)  # −G + G: the identity


def _on_curve(data: bytes) -> bool:
    try:
        group.decode(data)
    except group.PointError:
        return False
    return True
