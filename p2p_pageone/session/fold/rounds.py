"""A hand's life in the public fold: it starts, follows from the log by itself (decks dealt,
public cards opened, reshuffles begun), ends with every card known and checked, and the game
ends when its last hand does."""

from __future__ import annotations

from ...crypto.deck import DeckError
from ...engine.deal import UNKNOWN, Deal
from ...engine.moves import ReshuffleRequest, TurnUpRequest
from ...engine.qdan import QdanDeal
from ..common import DID_NOT_OPEN, Event, TableEnded
from ..deckcheck import opened_cards, round_cards
from ..hand import PUBLIC, HandDeck
from .obligations import lapse_hand_duties
from .queries import deck_of, game_of, hand_over, shown_to_all
from .records import HandRecord, check_hand
from .state import PublicState


def start_hand(s: PublicState) -> None:
    assert s.game is not None and s.chain is not None and s.settings is not None
    s.hand += 1
    s.chain.start_hand(s.hand)
    contexts = [s.table_id + s.hand.to_bytes(4, "big") + s.keys[seat] for seat in s.active]
    s.crypto = HandDeck(s.hand, s.active, contexts, s.settings.deck_size)
    s.seed_reveals = {}
    s.reveals_due_at = -1
    s.hand_deal = s.game.deal
    s.engine_events_seen = 0
    s.hand_moves = []
    lapse_hand_duties(s.claims)
    s.events.append(Event("hand", f"hand {s.hand}: {s.names[s.game.deal.dealer]} deals",
                          {"hand": s.hand, "dealer": s.game.deal.dealer,
                           "position": len(s.log) - 1}))
    s._hand_started()


def heads_agree(s: PublicState) -> None:
    """Every seat still in the game signed the head the hand ended on: the next hand starts,
    or the game ends."""
    if s.hand_end is not None and all(seat in s.heads for seat in s.active):
        assert s.chain is not None  # every active seat's last prev is now past the hand's end
        s.chain.forget_before(s.hand_end[0])
        s.hand_end, s.heads = None, {}
        if game_of(s).over:
            game_over(s)
        else:
            start_hand(s)


# --- advancing the hand after each entry ------------------------------------------------------


def advance(s: PublicState, now: float) -> None:
    """Everything that follows from the log so far without anyone saying anything."""
    if s.game is None or s.crypto is None or s.game_over:
        return
    _forward_engine_events(s)  # what the entry did comes before what follows from it
    try:
        _advance(s, now)
    finally:
        _forward_engine_events(s)


def _forward_engine_events(s: PublicState) -> None:
    """The engine's own account of what happened (plays, draws, tricks) for the terminal."""
    deal = s.hand_deal
    if deal is None:
        return
    for event in deal.events[s.engine_events_seen :]:
        s.events.append(Event("engine", "", {"event": event}))
    s.engine_events_seen = len(deal.events)


def _advance(s: PublicState, now: float) -> None:
    assert s.game is not None and s.crypto is not None
    game, crypto = s.game, s.crypto
    if hand_over(s):
        _reveals_due(s)
        _finish_hand(s)
        return
    all_committed = len(crypto.logged_commits) == len(s.active)
    if not crypto.pending_round and not crypto.rounds and all_committed:
        crypto.start(crypto.main_label(), range(game.settings.deck_size))
    if crypto.round_done():
        if not crypto.rounds:
            crypto.finish_round(0)
            game.deal_cards([UNKNOWN] * game.settings.deck_size)
        else:
            first = len(game.deal.known)
            crypto.finish_round(first)
            game.reshuffle([UNKNOWN] * crypto.rounds[-1][2])
    if not crypto.rounds:
        return
    _sync_owners(s)
    try:
        _open_public_cards(s)
    except DeckError as error:
        if error.peer >= 0:
            raise
        raise TableEnded(DID_NOT_OPEN.format(error)) from None
    s._open_private()
    request = game.chance
    if isinstance(request, ReshuffleRequest) and not crypto.pending_round and all(
        shown_to_all(s, slot) for slot in request.slots
    ):
        # The cards as known now: the request was made when the stock ran out, maybe before
        # every key of an eliminated hand shown into the discards was in.
        known = game.deal.known
        crypto.start(crypto.next_reshuffle_label(), [known[slot] for slot in request.slots])
    s._after_advance(now)
    if hand_over(s):
        _reveals_due(s)
        _finish_hand(s)


def _reveals_due(s: PublicState) -> None:
    """Note the entry after which the hand's seeds are due (a seat that read it knows)."""
    if s.reveals_due_at < 0:
        s.reveals_due_at = len(s.log) - 1


def _sync_owners(s: PublicState) -> None:
    game, crypto = game_of(s), deck_of(s)
    deal = game.deal
    moment = (id(deal), deal.version, len(crypto.shown), len(crypto.rounds))
    if crypto.synced == moment:  # nothing moved since the last entry
        return
    crypto.synced = moment
    for seat in deal.players:
        crypto.sync_hand(seat, deal.hands[seat])
    public: list[int] = []
    if isinstance(game.chance, TurnUpRequest):
        public.append(game.chance.slot)
    if isinstance(deal, QdanDeal):  # an eliminated hand is shown into the discard pile
        public += [slot for slot in deal.discard if slot not in crypto.shown]
    for slot in public:
        if crypto.owner_of(slot) != PUBLIC:
            crypto.assign(slot, PUBLIC)


def _open_public_cards(s: PublicState) -> None:
    """Cards every peer has published its key for: the qdan start card, an eliminated hand."""
    game, crypto = game_of(s), deck_of(s)
    while True:
        deal = game.deal
        opened = False
        request = game.chance
        if isinstance(request, TurnUpRequest) and crypto.keys_complete(request.slot):
            crypto.shown.add(request.slot)
            game.turn_up(crypto.open_public(request.slot))
            _sync_owners(s)
            opened = True
        if isinstance(deal, QdanDeal):
            for slot in deal.discard:
                if slot not in crypto.shown and crypto.keys_complete(slot):
                    deal.reveal(slot, crypto.open_public(slot))
                    crypto.shown.add(slot)
        if not opened:
            return


def _finish_hand(s: PublicState) -> None:
    game, crypto = game_of(s), deck_of(s)
    if len(s.seed_reveals) < len(s.active) or s.hand_end is not None:
        return
    finished = s.hand_deal
    assert finished is not None
    for label, first, size in crypto.rounds:
        if s.rederive:  # every pass re-derived from the seeds: the permutations tell it all
            for offset, card in enumerate(round_cards(crypto, label, s.seed_reveals)):
                finished.reveal(first + offset, card)
            continue
        unknown = [o for o in range(size) if finished.known[first + o] == UNKNOWN]
        for offset, card in zip(unknown, opened_cards(crypto, label, s.seed_reveals, unknown),
                                strict=True):
            finished.reveal(first + offset, card)
    record = HandRecord(finished.dealer, finished.players, tuple(finished.known),
                        tuple(m for _, m in s.hand_moves), tuple(p for p, _ in s.hand_moves),
                        s.hand, getattr(finished, "first_place", 1))
    _check_full_information(s, record, finished)
    if game.to_reveal:
        game.reveal_hands([finished.known[slot] for slot in game.to_reveal])
    s.history.append(record)
    if s.log.read_back is not None:  # the log is on disk, for the audit: keep the last hand
        del s.history[:-1]
    result = game.results[-1]
    text = ", ".join(f"{s.names[p]} {v}" for p, v in sorted(result.scores.items()))
    s.events.append(Event("scores", f"hand {s.hand} over: "
                          f"{'places' if game.settings.family == 'qdan' else 'penalties'} {text}",
                          {"hand": s.hand, "scores": dict(result.scores),
                           "drawn": result.drawn, "position": len(s.log) - 1}))
    assert s.chain is not None  # every seat signs where the hand ended before the next starts
    s.hand_end, s.heads = (len(s.log), s.chain.head), {}


def _check_full_information(s: PublicState, record: HandRecord, live: Deal) -> None:
    """Every move of the hand again, through the same engine, with every card known."""
    game = game_of(s)
    replayed, fault = check_hand(game.settings, game.seats, record)
    if fault is not None and fault.move < 0:
        raise TableEnded(f"hand {s.hand}: {fault.reason}", step="deck round")
    if fault is not None:
        at = record.positions[fault.move]
        raise TableEnded(f"made a move the rules refuse with every card known (entry {at}, "
                         f"hand {s.hand}): {fault.reason}", fault.seat, at,
                         step="move, with every card known")
    if live.over and replayed.scores() != live.scores():
        raise TableEnded(f"hand {s.hand}: the replay with every card scores "
                         f"{replayed.scores()}, the table {live.scores()}")


def game_over(s: PublicState) -> None:
    game = game_of(s)
    s.game_over = True
    winners = ", ".join(s.names[w] for w in game.winners())
    s.events.append(Event("game_over", f"game over: {winners} "
                          f"{'wins' if len(game.winners()) == 1 else 'win'}",
                          {"places": list(game.places)}))
