"""Rigged deals for rules tests: choose every hand and the stock order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from p2p_pageone.engine import ClassicSettings, Game, QdanSettings
from p2p_pageone.engine.cards import parse_classic, parse_qdan, same_face
from p2p_pageone.engine.deal import UNKNOWN
from p2p_pageone.engine.moves import Play


def cards_of(family: str, text: str, taken: list[int] | None = None) -> list[int]:
    """``"7h 10s jk"`` → card ids; a repeated qdan name (or joker) takes the next copy."""
    parse = parse_classic if family == "classic" else parse_qdan
    taken = [] if taken is None else taken
    out: list[int] = []
    for word in text.split():
        card = parse(word)
        if family == "qdan" or word.startswith("jk"):
            while card in taken:
                card += 1
        out.append(card)
        taken.append(card)
    return out


def rig(
    settings: ClassicSettings | QdanSettings,
    hands: Sequence[str],
    stock: str = "",
    dealer: int | None = None,
) -> Game:
    """A game whose first deal gives seat ``i`` the cards ``hands[i]``; ``stock`` is drawn first.

    The dealer defaults to the last seat, so seat 0 leads (classic) or plays first (qdan).
    """
    family = settings.family
    players = len(hands)
    dealer = players - 1 if dealer is None else dealer
    taken: list[int] = []
    per_seat = [cards_of(family, h, taken) for h in hands]
    size = len(per_seat[0])
    assert all(len(h) == size for h in per_seat)
    top = cards_of(family, stock, taken)
    used = {c for h in per_seat for c in h} | set(top)
    assert len(used) == size * players + len(top), "a card is used twice"
    rest = [c for c in range(settings.deck_size) if c not in used]
    order = [(dealer + 1 + i) % players for i in range(players)]
    dealt = [per_seat[order[i % players]][i // players] for i in range(size * players)]
    if family == "classic":
        settings = ClassicSettings(**{**_fields(settings), "hand_size": size})
    else:
        settings = QdanSettings(**{**_fields(settings), "start_cards": size})
    game = Game(settings, players, dealer)
    game.deal_cards(dealt + top + rest)
    while game.chance is not None:  # qdan: turn up until a number card
        game.turn_up(game.deal.known[game.deal.stock[-1]])
    return game


def _fields(settings: ClassicSettings | QdanSettings) -> dict[str, object]:
    import dataclasses

    return {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)}


def play(game: Game, seat: int, text: str, call: bool = False, colour: int = -1) -> None:
    """Play the named cards from ``seat``'s hand."""
    game.apply(play_move(game, seat, text, call, colour))


def play_move(game: Game, seat: int, text: str, call: bool = False, colour: int = -1) -> Play:
    deal = game.deal
    family = game.settings.family
    parse = parse_classic if family == "classic" else parse_qdan
    slots: list[int] = []
    cards: list[int] = []
    for word in text.split():
        want = parse(word)
        slot = next(
            s for s in deal.hands[seat]
            if s not in slots and _same(deal.known[s], want, family)
        )
        slots.append(slot)
        cards.append(deal.known[slot])
    return Play(seat, tuple(slots), tuple(cards), call, colour)


def _same(card: int, want: int, family: str) -> bool:
    if family == "classic":
        return card == want or (card >= 52 and want >= 52)
    return same_face(card, want)


def hand(game: Game, seat: int) -> list[int]:
    return sorted(game.deal.hand_cards(seat))


def own_engine(referee: Game, seat: int) -> Game:
    """The seat's own engine, dealt as the referee's deal: it sees its own hand, nothing else
    (fed the same public steps, it never learns the others' cards)."""
    deal = referee.deal
    peer = Game(referee.settings, referee.seats, deal.dealer)
    peer.deal_cards([card if slot in deal.hands[seat] else UNKNOWN
                     for slot, card in enumerate(deal.known)])
    return peer


def challenge_to(sequencer: Any, conn: int) -> dict[str, Any]:
    """The challenge ``sequencer`` sent connection ``conn`` (its first frame)."""
    from p2p_pageone.wire.codec import unpack

    for c, data in sequencer.out:
        value = unpack(data[4:])
        if c == conn and isinstance(value, dict) and value.get("control") == "challenge":
            return dict(value)
    raise AssertionError(f"no challenge was sent to connection {conn}")


def claim(sequencer: Any, conn: int, identity: Any, role: str = "intro") -> bytes:
    """The framed ``role`` frame (intro, watch) of ``identity`` answering the challenge
    ``sequencer`` sent ``conn``, with its proof: what an honest pageone sends."""
    from p2p_pageone.session.links import answer_challenge

    return answer_challenge(challenge_to(sequencer, conn), identity, {"control": role})


def introduce(sequencer: Any, conn: int, client: Any, now: float) -> bytes:
    """Hand ``client`` the challenge ``sequencer`` sent ``conn`` (taken out of what is to be
    delivered) and return the intro it answers with: its first frame, at once."""
    from p2p_pageone.wire.codec import frame, pack

    challenge = challenge_to(sequencer, conn)
    sequencer.out = [(c, data) for c, data in sequencer.out if c != conn]
    client.receive(frame(pack(challenge)), now)
    intro: bytes = client.out.pop(0)
    return intro


def lost_to(signer: Any, successor: Any, why: str) -> bytes:
    """``signer``'s ``lost`` statement (``sign_lost``), signed for ``successor`` (a statement
    counts only for the successor it names)."""
    signer.sign_lost(why)
    return bytes(signer.lost_for(successor.identity.public))


def host_frame(sequencer: Any, index: int, raw: bytes) -> bytes:
    """The ``entry`` frame the host sends for its log's entry ``index``, its receipt with it."""
    from p2p_pageone.session.logsync import entry_frame
    from p2p_pageone.wire.codec import frame

    return frame(entry_frame(index, raw, sequencer.receipt(index)))


def forked_frame(host: Any, before: Sequence[bytes], raw: bytes) -> bytes:
    """The ``entry`` frame a forking host sends for ``raw`` after the entries ``before`` (a
    history it also signs, with its receipt of it)."""
    from p2p_pageone.crypto.envelope import extend, genesis
    from p2p_pageone.session.logsync import entry_frame
    from p2p_pageone.session.receipts import sign_receipt
    from p2p_pageone.wire.codec import frame

    head = genesis(host.table_id)
    for entry in [*before, raw]:
        head = extend(head, entry)
    receipt = sign_receipt(host.identity, host.table_id, len(before) + 1, head)
    return frame(entry_frame(len(before), raw, receipt))
