"""Cheating peers as test doubles: each is refused when its value is received, naming its seat,
never the next peer (issue 11)."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p_pageone.crypto import group
from p2p_pageone.crypto.deck import Cheat, DeckSecrets, Pass, Violation
from p2p_pageone.session.deckdriver import HandPeer, seat_peers
from tests.test_deck import DECK, Tamper, deal, make_peers, shuffle_and_lock


def refused(peers: list[HandPeer], step: str, cheater: int, tamper: Tamper,
            match: str = "") -> Violation:
    with pytest.raises(Violation, match=match) as error:
        shuffle_and_lock(peers, tamper={(step, cheater): tamper})
    assert error.value.peer == cheater, str(error.value)
    return error.value


def reproved(peer: HandPeer, step: str, inputs: list[group.Point]) -> Pass:
    """The cheater's pass over an input list of its choosing, with a proof for that list."""
    deck_round = peer.rounds[DECK]
    secrets, context = peer.derived(DECK), deck_round.proof_context(step, peer.seat)
    prove = secrets.prove_shuffle if step == "shuffle" else secrets.prove_lock
    return prove(context, inputs).sent


def test_lock_pass_position_swap_to_peek_is_refused() -> None:
    """The peek: the cheater's own position 1 gets the victim's position 0, so the other
    peers' dealing keys for position 1 would open the victim's card for the cheater."""
    peers = make_peers(4, 53)
    cheater = peers[2]

    def peek(sent: Pass) -> Pass:
        inputs = list(cheater.rounds[DECK].input_for("lock", cheater.seat))
        inputs[1] = inputs[0]
        return reproved(cheater, "lock", inputs)

    refused(peers, "lock", 2, peek, "lock pass is refused")


def test_honest_lock_proof_with_swapped_outputs_is_refused() -> None:
    peers = make_peers(3, 53)

    def swap(sent: Pass) -> Pass:
        points = list(sent.points)
        points[0], points[1] = points[1], points[0]
        return Pass(points, sent.commits, sent.proof)

    refused(peers, "lock", 0, swap, "lock pass is refused")


def test_marker_substituted_in_a_shuffle_is_refused() -> None:
    """Stack/track: card 0 replaced by a marker tied to card 1's point (C0 + C1)."""
    peers = make_peers(3, 53)
    cheater = peers[0]

    def marker(sent: Pass) -> Pass:
        inputs = list(cheater.rounds[DECK].input_for("shuffle", 0))
        inputs[0] = group.add([inputs[0], inputs[1]])
        return reproved(cheater, "shuffle", inputs)

    refused(peers, "shuffle", 0, marker, "shuffle pass is refused")


@pytest.mark.parametrize("step", ["shuffle", "lock"])
@pytest.mark.parametrize("cheater", [0, 2])
def test_dropped_duplicated_substituted_points_are_refused(step: str, cheater: int) -> None:
    other = group.encode(group.mul(group.decode(group.card_points(53)[5]), 77))
    cases: dict[str, Tamper] = {
        "must hold 53 points": lambda p: Pass(p.points[:-1], p.commits, p.proof),
        "repeats a point": lambda p: Pass([p.points[1], *p.points[1:]], p.commits, p.proof),
        "is refused": lambda p: Pass([other, *p.points[1:]], p.commits, p.proof),
    }
    for match, tamper in cases.items():
        refused(make_peers(3, 53), step, cheater, tamper, match)


def test_wrong_commitments_are_refused() -> None:
    commit = group.encode(group.base(12345))
    refused(make_peers(3, 53), "shuffle", 1, lambda p: Pass(p.points, [commit], p.proof),
            "shuffle pass is refused")
    refused(make_peers(3, 53), "lock", 1,
            lambda p: Pass(p.points, [commit, *p.commits[1:]], p.proof), "lock pass is refused")
    refused(make_peers(3, 53), "lock", 1, lambda p: Pass(p.points, p.commits[1:], p.proof),
            "must carry 53 commitments")


def off_curve() -> bytes:
    x = 5
    while True:
        candidate = b"\x02" + x.to_bytes(32, "big")
        try:
            group.decode(candidate)
        except group.PointError:
            return candidate
        x += 1


@pytest.mark.parametrize("bad", [off_curve(), b"\x00" * 33, b"\x04" + b"\x01" * 32,
                                 group.card_points(53)[0][:32]], ids=["off", "identity",
                                                                      "prefix", "short"])
@pytest.mark.parametrize("step", ["shuffle", "lock"])
def test_invalid_points_name_their_author_not_the_next_peer(bad: bytes, step: str) -> None:
    refused(make_peers(3, 53), step, 1, lambda p: Pass([bad, *p.points[1:]], p.commits, p.proof),
            "bad point")
    refused(make_peers(3, 53), step, 1, lambda p: Pass(p.points, [bad, *p.commits[1:]], p.proof),
            "bad point")


@pytest.mark.parametrize("step", ["shuffle", "lock"])
@pytest.mark.parametrize("where", [0, 40, 700, 66 * 20 + 32 * 2 + 5, -1],
                         ids=["first", "u/z", "B/z", "k_B/z", "last"])
def test_corrupted_proof_bytes_are_refused(step: str, where: int) -> None:
    """Any byte of a proof (for 20 cards: a shuffle's u, its chain B, its batched chain
    response k_B, the last k_E; a lock's c and z) changed: refused, its author named."""
    def corrupt(p: Pass) -> Pass:
        data = bytearray(p.proof)
        data[where % len(data)] ^= 1
        return Pass(p.points, p.commits, bytes(data))

    refused(make_peers(2, 20), step, 1, corrupt, "refused")
    refused(make_peers(2, 20), step, 1, lambda p: Pass(p.points, p.commits, p.proof[:-1]),
            "wrong size")


@pytest.mark.parametrize("elsewhere", [{"hand": 2}, {"table": b"table-9"}, {"deck": "1/re1"}])
def test_a_proof_replayed_from_another_hand_table_or_round_is_refused(
    elsewhere: dict[str, object]
) -> None:
    deck = str(elsewhere.pop("deck", DECK))
    source = make_peers(3, 53, **elsewhere)  # type: ignore[arg-type]
    for peer in source:
        peer.start_round(deck, list(range(53)))
    _, replayed = source[0].compute_pass(deck) or ("", Pass([], [], b""))
    peers = make_peers(3, 53)
    refused(peers, "shuffle", 0, lambda p: replayed, "shuffle pass is refused")


def test_a_proof_for_another_input_list_is_refused() -> None:
    """Seat 1 shuffles (and proves) a deck of its own instead of seat 0's output."""
    peers = make_peers(3, 53)
    cheater = peers[1]

    def own_input(sent: Pass) -> Pass:
        return reproved(cheater, "shuffle", [group.decode(x) for x in group.card_points(53)])

    refused(peers, "shuffle", 1, own_input, "shuffle pass is refused")


def test_wrong_dealing_key_is_refused_naming_its_sender() -> None:
    peers = make_peers(3, 53)
    shuffle_and_lock(peers)
    keys = peers[2].deal_keys(DECK, [0, 3], 0)
    wrong = [keys[0], group.scalar_bytes(12345)]
    with pytest.raises(Violation, match="peer 2 sent a wrong key for position 3") as error:
        peers[0].receive_keys(DECK, 2, [0, 3], wrong)
    assert error.value.peer == 2
    assert (DECK, 0, 2) not in peers[0].published  # nothing of a refused message is kept
    with pytest.raises(Violation, match="malformed key"):
        peers[0].receive_keys(DECK, 2, [0], [b"\xff" * 32])
    with pytest.raises(Violation, match="not in deck"):
        peers[0].receive_keys(DECK, 2, [53], [keys[0]])


def test_wrong_key_shown_with_a_play_is_refused_naming_the_player() -> None:
    peers = make_peers(3, 53)
    shuffle_and_lock(peers)
    hands = deal(peers, 2)
    other_key = peers[1].show_key(DECK, 4)  # a real key, but for another position
    with pytest.raises(Violation, match="peer 1 sent a wrong key for position 1") as error:
        peers[0].check_public_open(DECK, 1, 1, other_key, hands[1][0])
    assert error.value.peer == 1


def test_a_pass_not_from_the_seed_passes_live_and_is_named_at_the_reveal() -> None:
    """Proofs make every value right; the seed reveal still shows a peer that did not derive
    its values from its committed seed (the hand stays re-derivable from the log)."""
    peers = make_peers(3, 20)
    for peer in peers:
        peer.start_round(DECK, list(range(20)))
    peers[1].secrets._derived[DECK] = DeckSecrets.derive(b"\x09" * 32, peers[1].contexts[1],
                                                         DECK, 20)
    shuffle_and_lock(peers)  # every pass is accepted: its proofs are right
    assert all(p.rounds[DECK].next_step() == ("done", -1) for p in peers)
    with pytest.raises(Cheat, match="peer 1's shuffle pass does not match its seed") as error:
        peers[0].verify_reveal(1, peers[1].reveal_seed())
    assert error.value.peer == 1


CHEATS: dict[str, Tamper] = {
    "swap": lambda p: Pass([p.points[1], p.points[0], *p.points[2:]], p.commits, p.proof),
    "drop": lambda p: Pass(p.points[:-1], p.commits, p.proof),
    "commit": lambda p: Pass(p.points, [p.commits[-1], *p.commits[:-1]], p.proof),
    "proof": lambda p: Pass(p.points, p.commits, p.proof[32:] + p.proof[:32]),
}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 4), st.integers(2, 12), st.binary(min_size=8, max_size=8),
       st.sampled_from(["shuffle", "lock"]), st.integers(0, 3),
       st.sampled_from([None, *CHEATS]))
def test_honest_tables_never_fail_and_a_cheater_is_the_one_named(
    count: int, size: int, salt: bytes, step: str, cheater: int, cheat: str | None
) -> None:
    cheater %= count
    seeds = [hashlib.sha256(salt + b"%d" % i).digest() for i in range(count)]
    contexts = [salt + b"|%d" % i for i in range(count)]
    peers = seat_peers(seeds, contexts, size)
    if cheat is None or (cheat == "swap" and size < 2):
        shuffle_and_lock(peers)
        hands = deal(peers, size // count)
        cards = [c for held in hands.values() for c in held]
        assert len(set(cards)) == len(cards)
        return
    if step == "shuffle" and cheat == "commit":
        cheat = "proof"  # a shuffle has one commitment: rotating it changes nothing
    with pytest.raises(Violation) as error:
        shuffle_and_lock(peers, tamper={(step, cheater): CHEATS[cheat]})
    assert error.value.peer == cheater


def test_nothing_published_is_a_point_with_one_scalar_stripped() -> None:
    """The issue's warning: ``s_j⁻¹·X`` for a lock pass's input X (for the last locker, the card
    times every other peer's lock, which the dealing keys would open for everyone) and the plain
    card points must appear nowhere in what the peers publish: passes, commitments, proofs."""
    peers = make_peers(3, 20)
    sent: list[Pass] = []
    for peer in peers:
        peer.start_round(DECK, list(range(20)))
    for _ in range(6):
        for peer in peers:
            result = peer.compute_pass(DECK)
            if result is not None:
                sent.append(result[1])
                for other in peers:
                    other.receive_pass(DECK, result[0], peer.seat, result[1])
                break
    deck_round = peers[0].rounds[DECK]
    forbidden = set(group.card_points(20))
    for j, peer in enumerate(peers):
        strip = group.inverse(peer.derived(DECK).shuffle_scalar)
        forbidden |= {group.encode(group.mul(x, strip)) for x in deck_round.input_for("lock", j)}
    published = set()
    for message in sent:
        published |= set(message.points) | set(message.commits)
        size = len(message.points)
        points_part = message.proof[: 2 * 33 * size] if len(message.commits) == 1 else b""
        published |= {points_part[i : i + 33] for i in range(0, len(points_part), 33)}
    assert len(published) > 6 * 20
    assert not forbidden & published
