"""One peer's table protocol, sans-I/O: log entries and ``now`` in; envelopes and events out.

Every peer, the host included, runs a ``PeerSession``. The sequencer (host) orders envelopes into
the table's log; each peer feeds the log, entry by entry, to ``on_log`` and so evolves the same
state (``handlers``). ``intents.next_intent`` is what this peer must say next: protocol steps are
automatic, moves come from the player, or from the CPU with ``autoplay``. One envelope is in
flight at a time; it is sealed against the latest log head just before it is sent.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ..bots import Bot
from ..crypto.deck import DeckError, Pass
from ..crypto.envelope import ChainVerifier, Envelope, genesis, seal
from ..crypto.identity import Identity, fingerprint
from ..engine.deal import Deal
from ..engine.game import Game
from ..engine.moves import ChanceError, IllegalMove, Move
from ..engine.settings import SettingError, Settings
from ..engine.view import SeatView
from ..wire.codec import ProtocolError
from . import handlers, intents
from .common import Event, TableEnded
from .hand import HandCrypto
from .records import HandRecord


class PeerSession:
    def __init__(
        self, identity: Identity, name: str, random_bytes: Callable[[int], bytes],
        bot: Bot | None = None, rng: random.Random | None = None, autoplay: bool = False,
        host_table: tuple[str, Settings, int] | None = None,
    ) -> None:
        self.identity = identity
        self.name = name
        self.random_bytes = random_bytes
        self.bot, self.rng, self.autoplay = bot, rng or random.Random(0), autoplay
        self.host_table = host_table  # (table name, settings, seats) when this peer hosts
        self.table_name = ""
        self.table_id = random_bytes(16) if host_table else b""
        self.host_key = identity.public if host_table else b""
        self.chain: ChainVerifier | None = None
        self.settings: Settings | None = None
        self.seat_count = 0
        self.keys: list[bytes] = []  # public key per seat
        self.names: list[str] = []
        self.me = -1
        self.waiting_hellos: list[tuple[bytes, str]] = []
        self.ready: set[int] = set()
        self.coin_commits: dict[int, bytes] = {}
        self.coin_nonces: dict[int, bytes] = {}
        self.my_coin = b""
        self.game: Game | None = None
        self.active: list[int] = []  # seats still in the game (RULINGS Q14)
        self.hand = 0
        self.crypto: HandCrypto | None = None
        self.hand_deal: Deal | None = None
        self.seed_reveals: dict[int, bytes] = {}
        self.pass_cache: tuple[str, str, Pass] | None = None
        self.log: list[bytes] = []
        self.events: list[Event] = []
        self.outgoing: list[bytes] = []
        self.in_flight = b""
        self.requested: Move | None = None
        self.chat: list[str] = []
        self.ended = ""
        self.game_over = False
        self.turn_since = -1.0  # when our turn began (-1: not our turn)
        self.turn_moment: tuple[int, int] = (0, -1)
        self.hand_moves: list[Move] = []
        self.engine_events_seen = 0
        self.author = -1  # the seat that signed the log entry being applied
        self.aborting = ""  # why the current hand stopped before its end
        self.abort_by = -1
        self.prompted: tuple[int, int] = (0, -1)  # (hand, engine move) of the last turn prompt
        self.catch_hint: tuple[int, int] = (0, -1)
        self.history: list[HandRecord] = []  # every finished hand, with all its cards
        self.hello_sent = b""  # our hello as sealed: another with our key is an impostor
        self.urgent: tuple[str, dict[str, Any]] | None = None  # the host's timeout notice

    # --- inputs -------------------------------------------------------------------------------

    def on_log(self, raw: bytes, now: float, env: Envelope | None = None) -> None:
        """The sequencer's next log entry. Anything wrong ends the table, naming the culprit."""
        if self.ended:
            return
        self.author = -1
        try:
            handlers.apply_entry(self, raw, now, env)
            handlers.advance(self, now)
        except TableEnded as error:
            self._end(str(error), error.culprit)
        except DeckError as error:  # names the peer whose deck value was wrong, if known
            blamed = self.crypto.seat_at(error.peer) if self.crypto else -1
            self._end(f"{type(error).__name__}: {error}", blamed if blamed >= 0 else self.author)
        except (ProtocolError, IllegalMove, ChanceError, SettingError) as error:
            reason = error.reason if isinstance(error, ProtocolError) else str(error)
            self._end(f"sent a message this peer cannot accept: {reason}", self.author)
        if raw == self.in_flight:
            self.in_flight = b""
        self.flush(now)

    def refused(self, reason: str, now: float) -> None:
        """The sequencer refused our in-flight envelope (usually a race lost)."""
        self.in_flight = b""
        if self.me < 0 and not self.is_host:  # a joiner the host will not seat
            self._end(f"the host refused to seat us: {reason}", -1)
            return
        if self.requested is not None:
            self.events.append(Event("refused", f"not accepted: {reason}"))
            self.requested = None
        self.flush(now)

    def request(self, move: Move) -> None:
        """A move the player typed: checked now with what this peer knows, sent when possible."""
        if self.game is None or self.game_over or self.ended:
            raise IllegalMove("the game is not running")
        self.game.deal.verify(move)
        self.requested = move
        self.flush(0.0)

    def lost_host(self, why: str) -> None:
        if not self.ended and not self.game_over:
            host = self.seat_of(self.host_key)
            self._end(why, host if host >= 0 else -1)

    def say(self, text: str) -> None:
        self.chat.append(text[:200])

    def tick(self, now: float) -> None:
        self.flush(now)

    # --- outputs ------------------------------------------------------------------------------

    def take_outgoing(self) -> list[bytes]:
        out, self.outgoing = self.outgoing, []
        return out

    def take_events(self) -> list[Event]:
        out, self.events = self.events, []
        return out

    def flush(self, now: float) -> None:
        """Seal the next intent if nothing is in flight."""
        if self.in_flight or self.ended or (self.chain is None and not self.host_table):
            return
        intent = intents.next_intent(self, now)
        if intent is None:
            return
        kind, data = intent
        chain = self.chain
        seq = chain.next_seq(self.identity.public) if chain else 0
        prev = chain.head if chain else genesis(self.table_id)
        raw = seal(self.identity, self.table_id, self.hand, seq, prev, kind, data)
        self.in_flight = raw
        self.outgoing.append(raw)
        if kind == "hello":
            self.hello_sent = raw

    def _end(self, reason: str, culprit: int) -> None:
        who = ""
        if 0 <= culprit < len(self.names):
            who = f"{self.names[culprit]} (seat {culprit}, {fingerprint(self.keys[culprit])}) "
        self.ended = who + reason
        self.events.append(Event("ended", f"the table ended: {self.ended}", {"culprit": culprit}))

    # --- queries ------------------------------------------------------------------------------

    def seat_of(self, key: bytes) -> int:
        return self.keys.index(key) if key in self.keys else -1

    @property
    def is_host(self) -> bool:
        return self.host_table is not None

    def view(self) -> SeatView | None:
        return SeatView(self.game, self.me) if self.game is not None and self.me >= 0 else None

    def hand_known(self) -> bool:
        if self.game is None or self.me < 0:
            return False
        deal = self.game.deal
        return all(deal.known[s] >= 0 for s in deal.hands[self.me])

    def admissible(self, env: Envelope) -> str | None:
        """The sequencer's check before appending: None if fine, else the reason to refuse."""
        return handlers.admissible(self, env)

    def waiting_for(self) -> list[tuple[int, str]]:
        """Seats the table is waiting on for a protocol step, and for what."""
        from .waiting import waiting_for

        return waiting_for(self)

    def advert(self) -> dict[str, Any]:
        """What the host advertises over mDNS."""
        family = self.settings.family if self.settings else ""
        return {"name": self.table_name, "rules": family, "taken": len(self.keys),
                "free": max(0, self.seat_count - len(self.keys))}
