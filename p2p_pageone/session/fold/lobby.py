"""Entries before the first deal: the table's description, hellos, seats, an early start, ready,
and the coin toss for the first dealer. Each kind has its check (``check_*``: raises, changes
nothing; the sequencer's admission asks it too) and its effect (``on_*``)."""

from __future__ import annotations

import dataclasses

from ...crypto.envelope import Envelope
from ...crypto.identity import fingerprint
from ...engine.game import Game
from ...engine.settings import SettingError, make_settings
from ...wire.codec import ProtocolError
from ...wire.kinds import EntryKind
from ..common import (
    PROTOCOL_VERSION,
    Event,
    MustRefuse,
    TableEnded,
    checked_endpoint,
    coin_commitment,
    coin_result,
)
from .rounds import start_hand
from .state import Entries, PublicState, nothing


def check_table(s: PublicState, env: Envelope, seat: int) -> None:
    if s.settings is not None:
        raise ProtocolError("the table was already described", fingerprint(env.sender))


def on_table(s: PublicState, env: Envelope, seat: int, now: float) -> None:
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


def check_hello(s: PublicState, env: Envelope, seat: int) -> None:
    """Checked before its sender is admitted to the chain: a hello is its first message."""
    if env.sender in s.keys or any(k == env.sender for k, _ in s.waiting_hellos):
        raise MustRefuse("this identity is already at the table: each user sits once",
                         EntryKind.HELLO, s.host_seat)
    if s.game is not None or len(s.keys) + len(s.waiting_hellos) >= s.seat_count:
        raise MustRefuse("the table is full", EntryKind.HELLO, s.host_seat)
    if env.data["proto"] != PROTOCOL_VERSION:
        raise ProtocolError(f"protocol version {env.data['proto']}; this table speaks "
                            f"{PROTOCOL_VERSION}: use the same pageone version as the host",
                            fingerprint(env.sender))
    assert s.chain is not None  # a user who left the lobby may come back: its count goes on
    if env.table != s.table_id or env.hand != 0 or env.seq != s.chain.next_seq(env.sender):
        raise MustRefuse("a hello must be the first message, for this table", EntryKind.HELLO,
                         s.host_seat)


def on_hello(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    s._hello(env)
    s.endpoints[env.sender] = checked_endpoint(env.data["endpoint"])
    s.waiting_hellos.append((env.sender, env.data["name"]))


def check_seat(s: PublicState, env: Envelope, seat: int) -> None:
    data = env.data
    if data["seat"] != len(s.keys) or data["seat"] >= s.seat_count or data["key"] in s.keys:
        raise ProtocolError("seated a player out of order or twice", fingerprint(env.sender))


def on_seat(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    data = env.data
    s.waiting_hellos = [(k, n) for k, n in s.waiting_hellos if k != data["key"]]
    s.keys.append(data["key"])
    s.names.append(data["name"])
    if s.chain is not None:
        s.chain.admit(data["key"])
    if data["key"] == s.own_key:
        s.me = data["seat"]
    s.events.append(Event("seat", f"{data['name']} sits at seat {data['seat']} "
                          f"({fingerprint(data['key'])})"))


def check_lobby_step(s: PublicState, env: Envelope, seat: int) -> None:
    """Steps before the first deal come in their order. One sealed before a player left the
    lobby (the toss starts again) is refused, and its author says it again when it is due: so
    one in the log out of its order is the sequencer's doing."""
    if s.game is not None or seat < 0:
        raise ProtocolError(f"a {env.kind} message is for the seated players before the game "
                            "starts", fingerprint(env.sender))
    full, kind = s.seat_count, env.kind
    refusal = ""
    if kind == EntryKind.START and (s.waiting_hellos
                                    or not 2 <= env.data["seats"] == len(s.keys) < full):
        refusal = "the game starts with the players seated, fewer than the seats"
    elif kind == EntryKind.READY and (len(s.keys) < full or seat in s.ready):
        refusal = "ready is said once, when every seat is taken"
    elif kind == EntryKind.COIN_COMMIT and (len(s.ready) < full or seat in s.coin_commits):
        refusal = "a coin commitment comes once, when every player is ready"
    elif kind == EntryKind.COIN_REVEAL and (len(s.coin_commits) < full or seat in s.coin_nonces):
        refusal = "a coin reveal comes once, after every commitment"
    if refusal:
        raise MustRefuse(refusal, kind, s.host_seat)


def on_start(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    """The host starts the game with the players seated, fewer than the seats it opened."""
    seats = env.data["seats"]
    assert s.settings is not None
    s.settings.check_players(seats)
    s.seat_count = seats
    s.events.append(Event("start", f"the host starts the game with the {seats} players "
                          "seated"))


def on_ready(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    s.ready.add(seat)


def on_coin_commit(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    s.coin_commits[seat] = env.data["commit"]


def on_coin_reveal(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    nonce = env.data["nonce"]
    if coin_commitment(s.table_id, env.sender, nonce) != s.coin_commits[seat]:
        raise TableEnded("revealed a coin nonce that does not match its commitment", seat,
                         step="coin toss")
    s.coin_nonces[seat] = nonce
    if len(s.coin_nonces) == s.seat_count and s.settings is not None:
        dealer = coin_result([s.coin_nonces[i] for i in range(s.seat_count)], s.seat_count)
        s.game = Game(s.settings, s.seat_count, dealer)
        s.active = list(range(s.seat_count))
        s.events.append(Event("dealer", f"the coin toss makes {s.names[dealer]} the first dealer",
                              {"dealer": dealer}))
        start_hand(s)


def on_say(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    name = s.names[seat] if seat >= 0 else fingerprint(env.sender)
    s.events.append(Event("say", f"{name}: {env.data['text']}"))


ENTRIES: Entries = {
    EntryKind.TABLE: (check_table, on_table),
    EntryKind.HELLO: (nothing, on_hello),  # checked before its sender joins the chain
    EntryKind.SEAT: (check_seat, on_seat),
    EntryKind.START: (check_lobby_step, on_start),
    EntryKind.READY: (check_lobby_step, on_ready),
    EntryKind.COIN_COMMIT: (check_lobby_step, on_coin_commit),
    EntryKind.COIN_REVEAL: (check_lobby_step, on_coin_reveal),
    EntryKind.SAY: (nothing, on_say),
}
