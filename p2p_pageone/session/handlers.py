"""The fold of the table's log, entry by entry, into the public ``TableState`` (SPEC.md §7).

Nothing here knows a secret: every card is opened with keys the log holds, and every check
uses what the log says. What a peer alone knows comes in through ``TableState``'s hooks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..crypto.deck import DeckError, Pass
from ..crypto.envelope import ChainVerifier, Envelope, open_envelope
from ..crypto.identity import fingerprint
from ..engine.deal import UNKNOWN, Deal
from ..engine.game import Game
from ..engine.moves import IllegalMove, Play, ReshuffleRequest, TurnUpRequest
from ..engine.qdan import QdanDeal
from ..engine.settings import SettingError, make_settings
from ..wire.codec import ProtocolError
from .away import on_away, on_back
from .common import (
    DID_NOT_OPEN,
    PROTOCOL_VERSION,
    Event,
    TableClosed,
    TableEnded,
    checked_endpoint,
    coin_commitment,
    coin_result,
)
from .deckcheck import Unproven, check_reveal, opened_cards, round_cards
from .hand import PUBLIC, HandDeck
from .moves import move_from
from .order import check_head
from .records import HandRecord, check_hand
from .takeover import on_takeover

if TYPE_CHECKING:
    from .table import TableState

Handler = Callable[["TableState", Envelope, int, float], None]


def apply_entry(s: TableState, raw: bytes, now: float, env: Envelope | None = None) -> None:
    """``env``: the envelope already opened (and its signature checked) from these bytes.

    The entry goes into ``s.log`` first: a log keeps what the sequencer relayed, the faulty
    entry included, as evidence."""
    s.log.append(raw)
    env = env or open_envelope(raw)
    if s.chain is None:
        if env.kind != "table":
            raise TableEnded("the log does not start with the table's description")
        s.table_id = env.table
        s.chain = ChainVerifier(env.table, [env.sender])
        s.host_key = env.sender
    elif env.kind == "hello" and env.sender not in s.chain.members:
        if s.game is not None:  # an honest sequencer refuses it: the host let it in
            raise TableEnded("relayed a hello after the game started: the sequencer must refuse "
                             "it", s.seat_of(s.host_key))
        s.chain.admit(env.sender)
    s.author = s.seat_of(env.sender)
    s.chain.accept(raw, env)
    HANDLERS[env.kind](s, env, s.author, now)


def _seated(seat: int, env: Envelope) -> None:
    if seat < 0:
        raise ProtocolError(f"a {env.kind} message from someone not seated",
                            fingerprint(env.sender))


def _in_hand(s: TableState, seat: int, env: Envelope) -> None:
    if seat not in s.active:
        raise ProtocolError(f"a {env.kind} message from a seat no longer in the game",
                            fingerprint(env.sender))


def _from_host(s: TableState, env: Envelope) -> None:
    if env.sender != s.host_key:
        raise ProtocolError(f"only the host may send {env.kind}", fingerprint(env.sender))


def on_table(s: TableState, env: Envelope, seat: int, now: float) -> None:
    if s.settings is not None:
        raise ProtocolError("the table was already described", fingerprint(env.sender))
    data, host = env.data, f"the host ({fingerprint(env.sender)})"
    try:
        s.settings = make_settings(data["rules"], data["options"])
    except SettingError as error:
        raise TableEnded(f"{host} described settings this pageone cannot play: {error}") from None
    exact = dataclasses.asdict(s.settings)  # what the host sends: every setting, its own type
    sent = data["options"]
    if set(sent) != set(exact) or any(type(sent[k]) is not type(v) or sent[k] != v
                                      for k, v in exact.items()):
        raise TableEnded(f"{host} described the table's settings in another form than their "
                         "own (every setting once, an integer as an integer)")
    s.settings.check_players(data["seats"])
    s.seat_count, s.table_name = data["seats"], data["name"]
    s.events.append(Event("table", f"table {s.table_name!r}: {s.settings.family}, "
                          f"{s.seat_count} seats, host {fingerprint(env.sender)}"))


def on_hello(s: TableState, env: Envelope, seat: int, now: float) -> None:
    if env.data["proto"] != PROTOCOL_VERSION:
        raise ProtocolError("speaks another protocol version", fingerprint(env.sender))
    s._hello(env)
    s.endpoints[env.sender] = checked_endpoint(env.data["endpoint"])
    s.waiting_hellos.append((env.sender, env.data["name"]))


def on_seat(s: TableState, env: Envelope, seat: int, now: float) -> None:
    _from_host(s, env)
    data = env.data
    if data["seat"] != len(s.keys) or data["seat"] >= s.seat_count or data["key"] in s.keys:
        raise ProtocolError("seated a player out of order or twice", fingerprint(env.sender))
    s.waiting_hellos = [(k, n) for k, n in s.waiting_hellos if k != data["key"]]
    s.keys.append(data["key"])
    s.names.append(data["name"])
    if s.chain is not None:
        s.chain.admit(data["key"])
    if data["key"] == s.own_key:
        s.me = data["seat"]
    s.events.append(Event("seat", f"{data['name']} sits at seat {data['seat']} "
                          f"({fingerprint(data['key'])})"))


def on_start(s: TableState, env: Envelope, seat: int, now: float) -> None:
    """The host starts the game with the players seated, fewer than the seats it opened."""
    _from_host(s, env)
    seats = env.data["seats"]
    if s.game is not None or seats != len(s.keys) or seats >= s.seat_count or s.waiting_hellos:
        raise ProtocolError("started the table with other players than those seated",
                            fingerprint(env.sender))
    assert s.settings is not None
    s.settings.check_players(seats)
    s.seat_count = seats
    s.events.append(Event("start", f"the host starts the game with the {seats} players "
                          "seated"))


def on_ready(s: TableState, env: Envelope, seat: int, now: float) -> None:
    _seated(seat, env)
    s.ready.add(seat)


def on_coin_commit(s: TableState, env: Envelope, seat: int, now: float) -> None:
    _seated(seat, env)
    if len(s.ready) < s.seat_count or seat in s.coin_commits:
        raise ProtocolError("a coin commitment out of turn", fingerprint(env.sender))
    s.coin_commits[seat] = env.data["commit"]


def on_coin_reveal(s: TableState, env: Envelope, seat: int, now: float) -> None:
    _seated(seat, env)
    nonce = env.data["nonce"]
    if len(s.coin_commits) < s.seat_count or seat in s.coin_nonces:
        raise ProtocolError("a coin reveal out of turn", fingerprint(env.sender))
    if coin_commitment(s.table_id, env.sender, nonce) != s.coin_commits[seat]:
        raise TableEnded("revealed a coin nonce that does not match its commitment", seat)
    s.coin_nonces[seat] = nonce
    if len(s.coin_nonces) == s.seat_count and s.settings is not None:
        dealer = coin_result([s.coin_nonces[i] for i in range(s.seat_count)], s.seat_count)
        s.game = Game(s.settings, s.seat_count, dealer)
        s.active = list(range(s.seat_count))
        s.events.append(Event("dealer", f"the coin toss makes {s.names[dealer]} the first dealer"))
        start_hand(s)


def start_hand(s: TableState) -> None:
    assert s.game is not None and s.chain is not None and s.settings is not None
    s.hand += 1
    s.chain.start_hand(s.hand)
    contexts = [s.table_id + s.hand.to_bytes(4, "big") + s.keys[seat] for seat in s.active]
    s.crypto = HandDeck(s.hand, s.active, contexts, s.settings.deck_size)
    s.seed_reveals = {}
    s.hand_deal = s.game.deal
    s.engine_events_seen = 0
    s.hand_moves = []
    s.events.append(Event("hand", f"hand {s.hand}: {s.names[s.game.deal.dealer]} deals",
                          {"hand": s.hand, "dealer": s.game.deal.dealer,
                           "position": len(s.log) - 1}))
    s._hand_started()


def on_seed_commit(s: TableState, env: Envelope, seat: int, now: float) -> None:
    _seated(seat, env)
    crypto = _crypto(s)
    if seat in crypto.logged_commits:
        raise ProtocolError("committed twice to a hand seed", fingerprint(env.sender))
    _in_hand(s, seat, env)
    crypto.commit(seat, env.data["commit"])


def on_pass(s: TableState, env: Envelope, seat: int, now: float) -> None:
    _seated(seat, env)
    crypto = _crypto(s)
    refusal = crypto.wrong_round(env.kind, env.data["deck"])
    if refusal:
        raise ProtocolError(refusal, fingerprint(env.sender))
    _in_hand(s, seat, env)
    given = Pass.from_fields(env.data)
    crypto.receive_pass(env.kind, seat, given, verify_proof=not s.defer_proofs)
    if s.defer_proofs:
        s.unproven.append(Unproven(len(s.log) - 1, s.hand, seat, env.kind,
                                   crypto.record[crypto.pending_round], crypto.index(seat),
                                   proof=given.proof))


def on_keys(s: TableState, env: Envelope, seat: int, now: float) -> None:
    _seated(seat, env)
    _in_hand(s, seat, env)
    crypto, label = _crypto(s), env.data["deck"]
    try:
        checked = crypto.receive_keys(label, seat, env.data["positions"], env.data["keys"],
                                      verify=not s.defer_proofs)
        _defer_keys(s, crypto, label, seat, checked)
    except KeyError as error:
        raise ProtocolError(f"keys for an unknown position: {error}",
                            fingerprint(env.sender)) from None


def _defer_keys(s: TableState, crypto: HandDeck, label: str, seat: int,
                checked: list[tuple[int, int]]) -> None:
    if s.defer_proofs:
        s.unproven.append(Unproven(len(s.log) - 1, s.hand, seat, "keys", crypto.record[label],
                                   crypto.index(seat), keys=tuple(checked)))


def on_move(s: TableState, env: Envelope, seat: int, now: float) -> None:
    _seated(seat, env)
    game, crypto = _game(s), _crypto(s)
    move = move_from(seat, env.data)
    if isinstance(move, Play) and len(move.cards) != len(move.slots):
        raise ProtocolError("a play must claim one card per position", fingerprint(env.sender))
    if isinstance(move, Play):
        for slot, card, key in zip(move.slots, move.cards, env.data["keys"], strict=True):
            try:
                checked = crypto.check_shown(slot, seat, key, card, verify=not s.defer_proofs)
                _defer_keys(s, crypto, crypto.locate(slot)[0], seat, checked)
            except KeyError:
                raise TableEnded(f"played position {slot}, which is not in its hand",
                                 seat, len(s.log) - 1) from None
    try:
        s._apply_move(game, move)
    except IllegalMove as error:
        raise TableEnded(f"made a move the rules refuse: {error}", seat, len(s.log) - 1) from None
    if isinstance(move, Play):
        crypto.shown.update(move.slots)
    s.hand_moves.append((len(s.log) - 1, move))


def on_seed_reveal(s: TableState, env: Envelope, seat: int, now: float) -> None:
    _seated(seat, env)
    if not hand_over(s):  # every value is proven on receipt: nothing honest stops a hand
        raise TableEnded(f"relayed a seed reveal from {s.names[seat]} before the hand was over: "
                         "the sequencer must refuse it", s.seat_of(s.host_key))
    _in_hand(s, seat, env)
    if not s._own_reveal(seat, env.data["seed"]):
        check_reveal(_crypto(s), seat, env.data["seed"], proven=not s.defer_proofs,
                     rederive=s.rederive)
    if s.defer_proofs:  # every pass, commitment and key of the seat in this hand re-derived
        s.unproven = [u for u in s.unproven if (u.hand, u.seat) != (s.hand, seat)]
    s.seed_reveals[seat] = env.data["seed"]


def on_head(s: TableState, env: Envelope, seat: int, now: float) -> None:
    """A seat signs the log head it reached at the end of the hand (SPEC §7, "Signed order")."""
    _seated(seat, env)
    _in_hand(s, seat, env)
    check_head(s, env, seat)
    s.heads[seat] = env.data["head"]
    _heads_agree(s)


def _heads_agree(s: TableState) -> None:
    """Every seat still in the game signed the head the hand ended on: the next hand starts,
    or the game ends."""
    if s.hand_end is not None and all(seat in s.heads for seat in s.active):
        assert s.chain is not None  # every active seat's last prev is now past the hand's end
        s.chain.forget_before(s.hand_end[0])
        s.hand_end, s.heads = None, {}
        if _game(s).over:
            _game_over(s)
        else:
            start_hand(s)


def on_say(s: TableState, env: Envelope, seat: int, now: float) -> None:
    name = s.names[seat] if seat >= 0 else fingerprint(env.sender)
    s.events.append(Event("say", f"{name}: {env.data['text']}"))


def on_timeout(s: TableState, env: Envelope, seat: int, now: float) -> None:
    _from_host(s, env)
    silent = env.data["seat"]
    if _reveal_due(s, silent):
        raise TableEnded(_refused_reveal(s, silent), silent)
    if 0 <= silent < len(s.keys) and s.keys[silent] == s.host_key:  # no sequencer, no table
        raise TableClosed(f"timed itself out (the table waited for {env.data['waited_for']}): "
                          "there is no sequencer left", silent)
    _leave(s, env.data["seat"], f"went silent while the table waited for "
           f"{env.data['waited_for']}")


def on_expel(s: TableState, env: Envelope, seat: int, now: float) -> None:
    """The sequencer refused a deck message and shows it: every peer checks the evidence itself
    (signed by the expelled seat, for this hand, refused by the same checks), then voids the
    hand without that seat. Evidence that checks out names the host instead."""
    _from_host(s, env)
    culprit, crypto = env.data["seat"], _crypto(s)
    try:
        evidence = open_envelope(env.data["evidence"])
    except ProtocolError:
        raise TableEnded("expelled a peer with evidence that is not a signed message",
                         seat) from None
    assert s.chain is not None
    if (culprit not in s.active or culprit >= len(s.keys) or evidence.sender != s.keys[culprit]
            or evidence.table != s.table_id or evidence.hand != s.hand
            or evidence.seq != s.chain.next_seq(evidence.sender)  # refused, so never logged
            or evidence.kind not in ("shuffle", "lock", "keys", "move")):
        raise TableEnded("expelled a peer with evidence that is not that peer's refused deck "
                         "message in this hand", seat)
    refusal = crypto.refusal(evidence.kind, culprit, evidence.data)
    if refusal is None:
        raise TableEnded(f"expelled {s.names[culprit]} for a {evidence.kind} message that "
                         "checks out", seat)
    _leave(s, culprit, f"sent a {evidence.kind} message every peer refuses ({refusal})")


def on_bye(s: TableState, env: Envelope, seat: int, now: float) -> None:
    _seated(seat, env)
    if _reveal_due(s, seat):  # leaving instead of revealing hides the cards that check its moves
        raise TableEnded(_refused_reveal(s, seat), seat)
    if env.sender == s.host_key and not s.game_over:  # no sequencer, no table
        reason = env.data["reason"]
        raise TableClosed("closed the table" + (f" ({reason})" if reason and reason !=
                                                "the host closed the table" else ""), seat)
    if not s.game_over:
        _leave(s, seat, f"left the table: {env.data['reason']}")


def _reveal_due(s: TableState, seat: int) -> bool:
    """``seat`` played the hand and has not revealed its seed yet."""
    return (not s.game_over and s.crypto is not None and hand_over(s) and seat in s.active
            and seat not in s.seed_reveals)


def _refused_reveal(s: TableState, seat: int) -> str:
    """A peer silent after the play instead of revealing its seed: a cheat, not a leaver."""
    moves = [at for at, move in s.hand_moves if move.seat == seat]
    unchecked = (f"its moves at entries {', '.join(map(str, moves))} cannot be checked"
                 if moves else "its hidden cards cannot be checked")
    return (f"refused to reveal its hand seed after hand {s.hand} was played: {unchecked}; "
            "the table treats this as cheating, not as leaving")


def _leave(s: TableState, seat: int, why: str, restart: bool = True) -> None:
    """RULINGS Q14: the hand is voided and the game goes on without ``seat`` if it can.
    ``restart`` False: several seats leave at once, and the caller starts the next hand."""
    game = s.game
    if game is None and 0 <= seat < len(s.keys):
        _leave_lobby(s, seat, why)
        return
    if game is None or not 0 <= seat < s.seat_count or seat not in s.active:
        raise TableEnded(why, seat)
    if seat == s.me:
        raise TableEnded(f"{why}; the table goes on without us", seat)
    if len(s.active) <= 2 and not (game.over and s.hand_end is not None):
        raise TableClosed(why, seat)
    s.active.remove(seat)
    s.away.pop(seat, None)
    name, over = s.names[seat], game.over
    game.leave(seat)
    if s.hand_end is not None:  # between two hands, or after the last: the hand played stands
        s.heads.pop(seat, None)
        s.events.append(Event("left", f"{name} (seat {seat}) {why}" + (
            "" if over else f": the game goes on without {name}"), {
                "seat": seat, "hand": s.hand, "why": why, "position": len(s.log) - 1}))
        if restart:
            _heads_agree(s)
        return
    s.events.append(Event("left", f"{name} (seat {seat}) {why}: hand {s.hand} is void and the "
                          f"game goes on without {name}",
                          {"seat": seat, "hand": s.hand, "why": why, "position": len(s.log) - 1}))
    if game.over:
        _game_over(s)
    elif restart:
        start_hand(s)


def _leave_lobby(s: TableState, seat: int, why: str) -> None:
    """Before the game, a leaver frees its seat and the table waits for another player. The
    coin toss starts again with whoever sits: fresh commitments from everyone."""
    if s.keys[seat] == s.host_key:
        raise TableEnded(why, seat)
    s._left_lobby(seat, why)
    name, key = s.names.pop(seat), s.keys.pop(seat)
    assert s.chain is not None
    s.chain.leave(key)
    s.me = s.seat_of(s.own_key)
    s.ready.clear()
    s.coin_commits.clear()
    s.coin_nonces.clear()
    missing = s.seat_count - len(s.keys)
    s.events.append(Event("left", f"{name} {why}: the seat is free again; waiting for "
                          f"{missing} more player{'s' if missing > 1 else ''}",
                          {"seat": seat, "hand": 0, "why": why, "position": len(s.log) - 1}))


def on_unused(s: TableState, env: Envelope, seat: int, now: float) -> None:
    raise ProtocolError(f"{env.kind} messages are not part of this protocol version's log",
                        fingerprint(env.sender))


HANDLERS: dict[str, Handler] = {
    "table": on_table, "hello": on_hello, "seat": on_seat, "start": on_start, "ready": on_ready,
    "coin_commit": on_coin_commit, "coin_reveal": on_coin_reveal,
    "seed_commit": on_seed_commit, "shuffle": on_pass, "lock": on_pass, "keys": on_keys,
    "expel": on_expel, "head": on_head, "away": on_away, "back": on_back,
    "move": on_move, "seed_reveal": on_seed_reveal, "say": on_say, "timeout": on_timeout,
    "bye": on_bye, "open": on_unused, "heartbeat": on_unused, "takeover": on_takeover,
}


def _crypto(s: TableState) -> HandDeck:
    if s.crypto is None:
        raise ProtocolError("a hand message before the hand started")
    return s.crypto


def _game(s: TableState) -> Game:
    if s.game is None:
        raise ProtocolError("a game message before the game started")
    return s.game


def hand_over(s: TableState) -> bool:
    game = s.game
    if game is None or s.crypto is None:
        return False
    return game.deal is not s.hand_deal or game.deal.over or bool(game.to_reveal)


# --- advancing the hand after each entry ------------------------------------------------------


def advance(s: TableState, now: float) -> None:
    """Everything that follows from the log so far without anyone saying anything."""
    if s.game is None or s.crypto is None or s.game_over:
        return
    _forward_engine_events(s)  # what the entry did comes before what follows from it
    try:
        _advance(s, now)
    finally:
        _forward_engine_events(s)


def _forward_engine_events(s: TableState) -> None:
    """The engine's own account of what happened (plays, draws, tricks) for the terminal."""
    deal = s.hand_deal
    if deal is None:
        return
    for event in deal.events[s.engine_events_seen :]:
        s.events.append(Event("engine", "", {"event": event}))
    s.engine_events_seen = len(deal.events)


def _advance(s: TableState, now: float) -> None:
    assert s.game is not None and s.crypto is not None
    game, crypto = s.game, s.crypto
    if hand_over(s):
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
        _shown_to_all(s, slot) for slot in request.slots
    ):
        # The cards as known now: the request was made when the stock ran out, maybe before
        # every key of an eliminated hand shown into the discards was in.
        known = game.deal.known
        crypto.start(crypto.next_reshuffle_label(), [known[slot] for slot in request.slots])
    s._after_advance(now)
    if hand_over(s):
        _finish_hand(s)


def _sync_owners(s: TableState) -> None:
    game, crypto = _game(s), _crypto(s)
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


def _open_public_cards(s: TableState) -> None:
    """Cards every peer has published its key for: the qdan start card, an eliminated hand."""
    game, crypto = _game(s), _crypto(s)
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


def slots_owed_by(s: TableState, peer: int) -> list[int]:
    """Slots whose card ``peer`` must still help open: other seats' hands and public cards."""
    crypto, game = _crypto(s), _game(s)
    if not crypto.rounds:
        return []
    deal = game.deal
    wanted = [slot for seat in deal.players if seat != peer for slot in deal.hands[seat]]
    if isinstance(game.chance, TurnUpRequest):
        wanted.append(game.chance.slot)  # the qdan start card, shown to all
    if isinstance(deal, QdanDeal):
        wanted += [slot for slot in deal.discard if crypto.owner_of(slot) == PUBLIC]
    return crypto.unpublished(wanted, peer)


def _shown_to_all(s: TableState, slot: int) -> bool:
    """Every peer knows this card (played face up, or opened with every key)."""
    return slot in _crypto(s).shown


def _finish_hand(s: TableState) -> None:
    game, crypto = _game(s), _crypto(s)
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
                        s.hand)
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


def _check_full_information(s: TableState, record: HandRecord, live: Deal) -> None:
    """Every move of the hand again, through the same engine, with every card known."""
    game = _game(s)
    replayed, fault = check_hand(game.settings, game.seats, record)
    if fault is not None and fault.move < 0:
        raise TableEnded(f"hand {s.hand}: {fault.reason}")
    if fault is not None:
        at = record.positions[fault.move]
        raise TableEnded(f"made a move the rules refuse with every card known (entry {at}, "
                         f"hand {s.hand}): {fault.reason}", fault.seat, at)
    if live.over and replayed.scores() != live.scores():
        raise TableEnded(f"hand {s.hand}: the replay with every card scores "
                         f"{replayed.scores()}, the table {live.scores()}")


def _game_over(s: TableState) -> None:
    game = _game(s)
    s.game_over = True
    winners = ", ".join(s.names[w] for w in game.winners())
    s.events.append(Event("game_over", f"game over: {winners} "
                          f"{'wins' if len(game.winners()) == 1 else 'win'}",
                          {"places": list(game.places)}))


