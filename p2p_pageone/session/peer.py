"""One peer's table protocol, sans-I/O: log entries and ``now`` in; envelopes and events out.

A ``PeerSession`` is the public fold of the log (``table.TableState``) plus what only this peer
has: its identity, its hand seeds and the cards they open, the moves it wants to make, and its
outbox. The sequencer (host) orders envelopes into the table's log; each peer feeds the log,
entry by entry, to ``on_log``. ``intents.next_intent`` is what this peer must say next: protocol
steps are automatic, moves come from the player, or from the CPU with ``autoplay``. One envelope
is in flight at a time, with at most two moves behind it (``pipeline``); each is sealed against
the latest log head just before it is sent.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from typing import Any, Protocol

from ..bots import Bot
from ..crypto.deck import DeckError, Pass
from ..crypto.envelope import Envelope, genesis, open_envelope, seal
from ..crypto.identity import Identity
from ..engine.deal import UNKNOWN
from ..engine.game import Game
from ..engine.moves import IllegalMove, Move
from ..engine.settings import Settings
from ..engine.view import SeatView
from ..wire.codec import ProtocolError
from . import intents, pipeline
from .common import BUSY, DID_NOT_OPEN, PROTOCOL_VERSION, Event, TableEnded
from .early import EarlyKeys
from .hand import HandSecrets
from .table import FOLD_ERRORS, TableState


class SeedStore(Protocol):
    """Where a joiner keeps its hand seeds for the life of the table, so that the same user
    running the same ``pageone join`` again can open its cards and reveal (SPEC §7, "Reconnect")."""

    def load(self, table: bytes, hand: int) -> bytes | None:
        """The seed kept for this table's hand, if any."""

    def save(self, table: bytes, hand: int, seed: bytes) -> str:
        """Keep it before it is used; "" if kept, else why it could not be."""


SEAT_GIVEN_UP = ("this user's seat was given up (it did not come back in time): the game went "
                 "on without it")


class PeerSession(TableState):
    def __init__(
        self, identity: Identity, name: str, random_bytes: Callable[[int], bytes],
        bot: Bot | None = None, rng: random.Random | None = None, autoplay: bool = False,
        host_table: tuple[str, Settings, int] | None = None, seeds: SeedStore | None = None,
    ) -> None:
        super().__init__(identity.public)
        self.identity = identity
        self.name = name
        self.random_bytes = random_bytes
        self.bot, self.rng, self.autoplay = bot, rng or random.Random(0), autoplay
        self.host_table = host_table  # (table name, settings, seats) when this peer hosts
        self.table_id = random_bytes(16) if host_table else b""
        self.host_key = identity.public if host_table else b""
        self.my_coin = b""
        self.secrets: HandSecrets | None = None  # this hand's seed and what it derives
        self.pass_cache: tuple[str, str, Pass] | None = None
        self.outgoing: list[bytes] = []
        self.pipe: list[pipeline.Sent] = []  # ours out, neither logged nor refused, oldest first
        self.requested: Move | None = None
        self.chat: list[str] = []
        self.ended = ""
        self.turn_since = -1.0  # when our turn began (-1: not our turn)
        self.turn_moment: tuple[int, int] = (0, -1)
        self.prompted: tuple[int, int] = (0, -1)  # (hand, engine move) of the last turn prompt
        self.catch_hint: tuple[int, int] = (0, -1)
        self.hello_sent = b""  # our hello as sealed: another with our key is an impostor
        self.welcome: tuple[bytes, bytes, int] | None = None  # (table, head, seq) for our hello
        self.back_sent = b""  # our back on this connection, as sealed
        self.answered = False  # the host's welcome on this connection came
        self.log_read = bool(host_table)  # a joiner's own hello is in the part of the log read
        self.local = ""  # this machine failed (its disk): why; nobody else is to blame
        self.local_bye = ""
        self.urgent: tuple[str, dict[str, Any]] | None = None  # the host's timeout notice
        self.seeds = seeds
        self.returning = False  # this process came back to a seat kept for its return
        self.lost_secrets = 0  # a hand whose seed is not the one this seat committed to
        self.dropped = ""  # why the connection was lost mid-game: the seat may be kept for us
        self.may_resume = False  # the transport tries a new connection after a drop
        self.resuming = False
        self.known, self.checked = 0, 0  # on a new connection: our entries the host sends again
        self.endpoint = ""  # where this joiner listens for a takeover ("": it does not)
        self.early = EarlyKeys()  # keys for our cards their authors sent us directly
        self.opened_early = 0  # cards we opened with such keys, before the log had them
        self.direct_out: list[tuple[str, bytes]] = []  # (endpoint, our keys envelope) to send
        self.resend = -1  # a new host lacks our log from this entry on: the client sends it
        self.via_successor = False  # this connection is to the successor, not to the host
        self.taking_over = -1  # we are the new sequencer, gathering the others: the old host's
        # seat, until our ``takeover`` is sealed

    # --- inputs -------------------------------------------------------------------------------

    def on_log(self, raw: bytes, now: float, env: Envelope | None = None) -> None:
        """The sequencer's next log entry. Anything wrong ends the table, naming the culprit."""
        if self.ended:
            return
        if self.checked < self.known:  # a new connection: the log again, from the start
            if raw != self.log[self.checked]:
                self._log_differs(raw)
            self.checked += 1
            return
        try:
            if env is None and raw == self.in_flight:  # our own bytes, back from the host
                env = open_envelope(raw, own=True)
            self.apply(raw, env, now)
        except FOLD_ERRORS as error:
            culprit, reason = self.blame(error)
            self._end(reason, culprit)
        if self.pipe and raw == self.pipe[0].raw:
            self.pipe.pop(0)
        if raw == self.hello_sent:
            self.log_read = True  # what came before was the table's history, earlier visits too
        elif raw == self.back_sent and not self.log_read:
            self.log_read, self.resuming = True, False
            self._return(now)
        self.flush(now)

    def _log_differs(self, raw: bytes) -> None:
        """The host's log, sent again on a new connection, is not the one we hold."""
        try:
            env = open_envelope(raw)
        except ProtocolError:
            env = None
        if env is not None and env.kind == "takeover":
            self._end("the new host took the table over without the last entries this pageone "
                      "had from the old host (it came back too late to hand them over): this "
                      "log ends here, and nobody is to blame", -1)
            return
        if self.via_successor:  # not our host's log: what it says is no evidence of anything
            self._end("the peer taking the table over sent a log that differs from ours; this "
                      "pageone leaves, naming nobody", -1)
            return
        self._end("sent on our new connection a log that differs from the one it sent before "
                  "(a fork)", self.seat_of(self.host_key))

    # --- what only this peer knows, added to the public fold ------------------------------------

    def _hello(self, env: Envelope) -> None:
        if (env.sender == self.identity.public and self.log_read
                and env.raw != self.hello_sent and not self.is_host):
            raise TableEnded("another pageone with this user's identity joined this table first: "
                             "each user sits once")

    def _left_lobby(self, seat: int, why: str) -> None:
        if seat == self.me and (self.log_read or self.is_host):  # not an earlier visit of ours
            raise TableEnded(f"{why}; the table goes on without us", seat)

    def welcomed(self, welcome: dict[str, Any], now: float) -> None:
        """The host's answer to our intro, what our first envelope is sealed against: a
        ``hello`` to sit down, or, when our identity holds a seat in the running game (a drop,
        or this user's earlier pageone), a ``back`` to take it again. The host sends the log only
        once that envelope is in it. A new host that gathered us after a takeover welcomes us
        again once its ``takeover`` is in (a new hand): our back, held so far, is sealed anew."""
        again = bool(self.back_sent) and self.in_flight == self.back_sent and not self.log_read
        if self.is_host or (self.answered and not again):
            return
        self.answered = True
        table, head, seq, hand = welcome["table"], welcome["head"], welcome["seq"], welcome["hand"]
        chain, index = self.chain, welcome["index"]
        if chain is not None and table != self.table_id:
            self._end("the host answered for another table", self.seat_of(self.host_key))
        elif welcome["seated"] and chain is not None and index < len(self.log):
            # A new host that lacks the old host's last entries: it gets them from us first.
            if chain.position(head) != index:
                self._end("the new host answered with a log that is not a part of ours; this "
                          "pageone leaves (a welcome is not signed, so nobody is named)", -1)
                return
            self.resend = index
            self.back_sent = self.in_flight = seal(
                self.identity, table, chain.hand, chain.next_seq(self.identity.public),
                chain.head, "back", {"endpoint": self.endpoint})
            self.outgoing.append(self.in_flight)
        elif welcome["seated"]:
            self.table_id = table
            self.back_sent = self.in_flight = seal(self.identity, table, hand, seq, head,
                                                   "back", {"endpoint": self.endpoint})
            self.outgoing.append(self.in_flight)
        elif self.chain is not None and self.game is not None:
            self._end(SEAT_GIVEN_UP, -1)
        else:
            self.welcome = (table, head, seq)
            self.flush(now)

    def _return(self, now: float) -> None:
        """Our ``back`` is in the log and the log before it folded: we came back to our seat
        (the host keeps the seat of a dropped connection for a while) if we can play on."""
        if self.game_over:
            self._end("the game is over already", -1)
        elif self.me not in self.active:
            self._end(SEAT_GIVEN_UP, -1)
        elif (self.lost_secrets == self.hand or self._seed_lost()) and self.hand_end is None:
            self.urgent = ("bye", {"reason": "its hand secrets are not on this machine"})
            self.flush(now)  # the table goes on without us at once, not after the window
            self._end(f"this machine does not have the hand secrets this seat committed to "
                      f"in hand {self.hand} (they are kept in pageone's data directory), so "
                      "it cannot play that hand on: it left the table, which goes on without it",
                      -1)
        else:
            self.returning = True
            self.events.append(Event("returning", f"back at the table as {self.names[self.me]}"
                                     f" (seat {self.me}): the game goes on"))

    def _hand_started(self) -> None:
        assert self.crypto is not None
        active = self.me in self.active
        self.secrets = HandSecrets(self.crypto, self.me, self._hand_seed()) if active else None
        self.pass_cache = None
        self.early.new_hand(self.hand)

    def _hand_seed(self) -> bytes:
        """A fresh seed for this hand, kept on disk first; or the one kept (a return)."""
        store = self.seeds
        kept = store.load(self.table_id, self.hand) if store is not None else None
        if kept is not None:
            return kept
        seed = self.random_bytes(32)
        trouble = store.save(self.table_id, self.hand, seed) if store is not None else ""
        if trouble:
            self.events.append(Event("warning", f"this hand's secrets could not be kept on "
                                     f"disk ({trouble}): if this pageone stops, it cannot come "
                                     "back to this hand"))
        return seed

    def _open_private(self) -> None:
        """Open the cards dealt to this peer once every other peer's key is in the log."""
        game, deck, secrets = self.game, self.crypto, self.secrets
        if game is None or deck is None or secrets is None:
            return
        deal = game.deal
        if self.me not in deal.players or deal is not self.hand_deal:
            return
        if self._seed_lost():  # a return without our seed: the reveals open a finished
            self.secrets, self.lost_secrets = None, self.hand  # hand's cards; a hand in play
            return  # is lost to us
        early = self.early
        if early.pending:
            early.absorb(deck, self.seat_of, self.me)
        for slot in deal.hands[self.me]:
            if deal.known[slot] != UNKNOWN:
                continue
            if deck.keys_complete(slot, but=self.me):
                try:
                    deal.reveal(slot, secrets.open_own(deck, slot))
                except DeckError as error:
                    if error.peer >= 0:
                        raise
                    raise TableEnded(DID_NOT_OPEN.format(error)) from None
            elif early.keys and secrets.can_open(deck, slot, early.keys):
                with contextlib.suppress(DeckError):  # the log's keys will tell, and name
                    deal.reveal(slot, secrets.open_own(deck, slot, early.keys))
                    self.opened_early += 1

    def direct(self, raw: bytes, now: float) -> None:
        """A ``keys`` envelope its author sent us directly, ahead of the log: checked like the
        fold checks it, and used only to open our own cards sooner (SPEC §7)."""
        try:
            env = open_envelope(raw)
        except ProtocolError:
            return
        if (env.kind != "keys" or env.table != self.table_id or self.ended or self.game is None
                or self.seat_of(env.sender) not in self.active):
            return
        self.early.add(env)
        self._open_private()
        self._after_advance(now)
        self.flush(now)

    def _send_direct(self, raw: bytes, slots: list[int]) -> None:
        """Our keys go straight to each joiner whose cards they open, as well as to the host."""
        deck = self.crypto
        if deck is None:
            return
        owners = {deck.owner_of(slot) for slot in slots}
        for seat in sorted(owner for owner in owners if owner is not None):
            if seat not in self.active or seat == self.me or seat in self.away:
                continue
            key = self.keys[seat]
            endpoint = self.endpoints.get(key, "")
            if endpoint and key != self.host_key:
                self.direct_out.append((endpoint, raw))

    def _seed_lost(self) -> bool:
        """Our seed is not the one our seat committed to in this hand (its file is gone)."""
        secrets, deck = self.secrets, self.crypto
        return secrets is not None and deck is not None and deck.commitments.get(
            secrets.index, secrets.commitment) != secrets.commitment

    def _own_reveal(self, seat: int, seed: bytes) -> bool:
        secrets = self.secrets
        return seat == self.me and secrets is not None and seed == secrets.seed and (
            self.crypto is not None and secrets.commitment == self.crypto.commitments.get(
                secrets.index))

    def _apply_move(self, game: Game, move: Move) -> None:
        game.apply(move)
        if move.seat == self.me:
            self.requested = None

    def _after_advance(self, now: float) -> None:
        game = self.game
        if game is None:
            return
        deal = game.deal
        if deal.turn != self.me:
            self.turn_since = -1.0
        elif self.turn_since < 0 or self.turn_moment != (self.hand, deal.moves):
            self.turn_since, self.turn_moment = now, (self.hand, deal.moves)  # a timer per turn
        self._prompt_player()

    def _prompt_player(self) -> None:
        """Tell the player when it is their turn, and when someone can be caught."""
        game = self.game
        if game is None or game.chance is not None or not self.hand_known():
            return
        deal = game.deal
        moment = (self.hand, deal.moves)
        if deal.turn == self.me and self.prompted != moment:
            self.prompted = moment
            self.events.append(Event("your_turn", "your turn"))
        miss = deal.open_miss
        if miss not in (-1, self.me) and self.catch_hint != moment and deal.settings.forget_penalty:
            self.catch_hint = moment
            self.events.append(Event("catchable", f"{self.names[miss]} did not say Page One: "
                                     f"type catch {self.names[miss]} before the next player acts"))

    def refused(self, reason: str, now: float, seq: int = -1) -> None:
        """The sequencer refused an envelope of ours (usually a race lost); ``seq`` says which
        when moves went out behind the first (``pipeline.refused_behind``)."""
        if pipeline.refused_behind(self, reason, seq, now):
            return
        kind = open_envelope(self.in_flight).kind if self.in_flight else ""
        self.in_flight = b""
        if self.me < 0 and not self.is_host and kind == "bye":  # we left before we sat down
            self.ended = "left the table before sitting down"
            return
        if self.me < 0 and not self.is_host and reason == BUSY and self.may_resume:
            if not self.dropped:  # strangers crowd the lobby: a new connection, in a moment
                self.events.append(Event("busy", "the table is busy: trying again…"))
            self.dropped = reason
            return
        if self.me < 0 and not self.is_host:  # a joiner the host will not seat
            self._end(f"the host refused to seat us: {reason}", -1)
            return
        if kind == "back":  # after a drop, a race with our old connection's last message or
            # with its away: a new connection gets a fresh welcome (for at most the retry time)
            if self.may_resume and self.game is not None and self.me in self.active:
                self.lost_host(f"the host did not take us back: {reason}")
            else:
                self._end(f"the host did not take us back: {reason}", -1)
            return
        if "never saw" in reason and not self.is_host:
            # We sealed it against a head of the log the host sent us: the host's log is not
            # ours, so it showed the peers different tables (a fork). Retrying cannot help.
            self._end("refused our message for extending a log head it sent us itself: its "
                      "log differs from ours (a fork)", self.seat_of(self.host_key))
            return
        if self.requested is not None:
            self.events.append(Event("refused", f"not accepted: {reason}"))
            self.requested = None
        if kind in ("shuffle", "lock", "keys"):
            return  # never refused for a race: resending at once would only loop; tick retries
        self.flush(now)

    def request(self, move: Move) -> None:
        """A move the player typed: checked now with what this peer knows, sent when possible."""
        if self.game is None or self.game_over or self.ended:
            raise IllegalMove("the game is not running")
        self.game.deal.verify(move)
        self.requested = move
        self.flush(0.0)

    def local_fault(self, reason: str, now: float, bye: str = "") -> None:
        """This machine cannot go on (its disk, its files, its network): say bye, blame nobody."""
        if self.local or self.ended or self.game_over:
            return
        self.local = reason
        self.events.append(Event("local", reason))
        why = bye or ("the host's machine cannot write its log" if self.is_host else
                      "its machine cannot write its log")
        if self.me < 0 and not self.is_host:  # not seated: nobody to say bye to
            self.ended = reason
            return
        self.local_bye = why[:200]  # said until it is in the log, even if refused once
        self.flush(now)

    def start_now(self) -> str:
        """The host starts before every seat is taken: "" if it will, else why not."""
        if not self.is_host:
            return "only the host starts the game"
        if self.game is not None or self.ended:
            return "the game has started already"
        if self.waiting_hellos or len(self.keys) < 2:
            return "wait: a game needs 2 players or more, seated"
        if len(self.keys) == self.seat_count:
            return "every seat is taken: the game starts by itself"
        self.urgent = ("start", {"seats": len(self.keys)})
        self.flush(0.0)
        return ""

    @property
    def in_flight(self) -> bytes:
        """Our oldest envelope out, b"" if none."""
        return self.pipe[0].raw if self.pipe else b""

    @in_flight.setter
    def in_flight(self, raw: bytes) -> None:
        self.pipe = [pipeline.Sent(raw)] if raw else []

    def give_up(self, reason: str, culprit: int, now: float) -> None:
        """Leave a table that does not go on. The bye accuses nobody: a clock is no evidence."""
        if self.ended or self.game_over:
            return
        self.urgent = ("bye", {"reason": "the table stopped moving"})
        self.flush(now)
        self._end(reason, culprit)

    def lost_host(self, why: str) -> None:
        if self.local and not self.ended:  # we were leaving for our own fault: no blame
            self._end(f"left the table: {self.local}", -1)
        if not self.ended and not self.game_over:
            host = self.seat_of(self.host_key)
            resumable = self.game is not None and self.me in self.active and not self.local
            if resumable and self.may_resume:
                if not self.dropped and not self.resuming:  # told once, not every attempt
                    self.events.append(Event("dropped", f"{why}: trying to reconnect…"))
                self.dropped = why
                return
            self.dropped = why if resumable else ""
            self._end(why, host if host >= 0 else -1)

    def resume(self) -> None:
        """A new connection after a drop: we say ``back`` (sealed against the host's welcome),
        then the host sends its whole log again and the entries we have are checked against ours
        (SPEC §7, "Reconnect")."""
        self.dropped, self.log_read, self.in_flight = "", False, b""
        self.known, self.checked = len(self.log), 0
        self.resuming, self.answered, self.back_sent = True, False, b""

    def take_over(self) -> None:
        """The host is gone and we are its successor: we become the table's sequencer. Nothing
        is sealed until the others have handed over what they hold (``finish_takeover``)."""
        assert self.settings is not None
        self.taking_over = self.seat_of(self.host_key)
        self.host_table = (self.table_name, self.settings, self.seat_count)
        self.dropped, self.resuming, self.answered = "", False, True
        self.in_flight, self.known, self.checked, self.log_read = b"", 0, 0, True

    def finish_takeover(self, window: int, now: float) -> None:
        """Every peer that came has handed over its log: ``takeover`` goes in first."""
        old, self.taking_over = self.taking_over, -1
        if old >= 0 and not self.ended and not self.game_over:
            self.urgent = ("takeover", {"seat": old, "window": window})
        self.flush(now)

    def host_endpoint(self) -> str:
        """Where the table's host listens, if it is a joiner that took the table over."""
        return self.endpoints.get(self.host_key, "")

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
        """Seal the next intent if nothing is in flight, else any move that may go behind."""
        if self.ended or self.taking_over >= 0:
            return
        if self.pipe:
            pipeline.fill(self, now)
            return
        if self.chain is None and not self.host_table:
            self._send_hello()
            return
        if not self.log_read:
            return
        intent = intents.next_intent(self, now)
        if intent is None:
            return
        kind, data = intent
        chain = self.chain
        seq = chain.next_seq(self.identity.public) if chain else 0
        prev = chain.head if chain else genesis(self.table_id)
        raw = seal(self.identity, self.table_id, self.hand, seq, prev, kind, data)
        self.pipe = [pipeline.Sent(raw, kind, data, seq)]
        self.outgoing.append(raw)
        if kind == "keys" and not self.is_host:
            self._send_direct(raw, data["positions"])
        pipeline.fill(self, now)
        if kind == "hello":
            self.hello_sent = raw

    def _send_hello(self) -> None:
        if self.welcome is None or self.hello_sent:
            return
        table, head, seq = self.welcome
        self.table_id = table
        hello = {"name": self.name, "proto": PROTOCOL_VERSION, "client": "pageone",
                 "endpoint": self.endpoint}
        self.hello_sent = self.in_flight = seal(self.identity, table, 0, seq, head, "hello", hello)
        self.outgoing.append(self.in_flight)

    def _end(self, reason: str, culprit: int) -> None:
        who = f"{self.who(culprit)} " if 0 <= culprit < len(self.names) else ""
        self.ended = who + reason
        self.events.append(Event("ended", f"the table ended: {self.ended}", {"culprit": culprit}))

    # --- queries ------------------------------------------------------------------------------

    @property
    def is_host(self) -> bool:
        return self.host_table is not None

    def view(self) -> SeatView | None:
        return SeatView(self.game, self.me) if self.game is not None and self.me >= 0 else None

    def hand_known(self) -> bool:
        """This peer's cards are dealt and it has opened every one of them."""
        if self.game is None or self.me < 0:
            return False
        deal = self.game.deal
        return bool(deal.known) and all(deal.known[s] >= 0 for s in deal.hands[self.me])

    def admissible(self, env: Envelope) -> str | None:
        """The sequencer's check before appending: None if fine, else the reason to refuse."""
        from .admission import admissible

        return admissible(self, env)

    def waiting_for(self) -> list[tuple[int, str]]:
        """Seats the table is waiting on for a protocol step, and for what."""
        from .waiting import waiting_for

        return waiting_for(self)

    def advert(self) -> dict[str, Any]:
        """What the host advertises over mDNS."""
        family = self.settings.family if self.settings else ""
        free = len(self.away) if self.game is not None else self.seat_count - len(self.keys)
        return {"name": self.table_name, "rules": family, "taken": len(self.keys),
                "free": max(0, free)}  # in a game: the seats kept for a return
