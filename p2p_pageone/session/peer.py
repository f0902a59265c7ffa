"""One peer's table protocol, sans-I/O: log entries and ``now`` in; envelopes and events out.

A ``PeerSession`` is the public fold of the log (``fold.table.TableState``) plus what only this
peer has (``player.PlayerState``): its identity, its hand seeds and the cards they open, the
moves it wants to make, and its outbox; its attachment to a host is ``attachment``. It folds
the log the sequencer orders (``on_log``); ``intents.next_intent`` is what it says next (steps
are automatic; moves come from the player, or the CPU with ``autoplay``). One envelope is in
flight at a time, with at most two moves behind it (``pipeline``), each on the latest head.
"""

from __future__ import annotations

import contextlib
import math

from ..crypto.deck import DeckError
from ..crypto.envelope import Envelope, genesis, open_envelope, seal
from ..engine.deal import UNKNOWN
from ..engine.moves import IllegalMove, Move
from ..engine.settings import QdanSettings
from ..wire.kinds import KIND_RULES, EntryKind
from . import intents, logsync, pipeline, through_others, witnessing
from .admission import admissible
from .attachment import SEAT_GIVEN_UP, AttachedPlayer
from .common import DID_NOT_OPEN, PROTOCOL_VERSION, Event, Refusal, TableEnded
from .fold.claims import Claim
from .fold.obligations import Owed, open_claims, owed, progressed, waiting_for
from .fold.table import FOLD_ERRORS
from .hand import HandSecrets
from .player import Paced, SeedStore, Sent

__all__ = ["SEAT_GIVEN_UP", "PeerSession", "SeedStore"]


class PeerSession(AttachedPlayer):
    def on_log(self, raw: bytes, now: float, env: Envelope | None = None,
               in_place: bool = False) -> None:
        """The sequencer's next log entry (``in_place``: taken at its index, never one sent
        again on a new connection). Anything wrong ends the table, naming the culprit."""
        if self.ended:
            return
        if not in_place and (logsync.taken_from_host(self, raw, now)  # the mesh brought it
                             | self._resent(raw)):  # (both are told of it: no short cut)
            return
        try:
            if env is None and raw == self.in_flight:  # our own bytes, back from the host
                env = open_envelope(raw, own=True)
            self.apply(raw, env, now)
        except FOLD_ERRORS as error:
            culprit, reason = self.blame(error)
            self._end(reason, culprit)
        if self.outbox.pipe and raw == self.outbox.pipe[0].raw:
            self.outbox.pipe.pop(0)
        if raw == self.attachment.hello_sent:
            # what came before was the table's history, earlier visits too
            self.attachment.log_read = True
        elif raw == self.attachment.back_sent and not self.attachment.log_read:
            self.attachment.log_read, self.attachment.resuming = True, False
            self._return(now)
        self.flush(now)

    # --- what only this peer knows, added to the public fold ------------------------------------

    def _hello(self, env: Envelope) -> None:
        if (env.sender == self.identity.public and self.attachment.log_read
                and env.raw != self.attachment.hello_sent and not self.is_host):
            raise TableEnded("another pageone with this user's identity joined this table first: "
                             "each user sits once")

    def _left_lobby(self, seat: int, why: str) -> None:
        # not an earlier visit of ours
        if seat == self.me and (self.attachment.log_read or self.is_host):
            raise TableEnded(f"{why}; the table goes on without us", seat)

    def _hand_started(self) -> None:
        assert self.crypto is not None
        active = self.me in self.active
        self.private.secrets = (HandSecrets(self.crypto, self.me, self._hand_seed()) if active
                                else None)
        self.private.pass_cache = None
        self.private.early.new_hand(self.hand)

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
        game, deck, secrets = self.game, self.crypto, self.private.secrets
        if game is None or deck is None or secrets is None:
            return
        deal = game.deal
        if self.me not in deal.players or deal is not self.hand_deal:
            return
        if self._seed_lost():  # a return without our seed: the reveals open a finished
            # hand's cards; a hand in play
            self.private.secrets, self.private.lost_secrets = None, self.hand
            return  # is lost to us
        early = self.private.early
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
                    self.private.opened_early += 1

    def direct(self, raw: bytes, now: float) -> None:
        """A frame a peer sent us on the mesh: a sign of life or an envelope, kept for a witness
        round; a ``keys`` envelope, checked like the fold checks it, also opens our own cards
        sooner; a log entry the host has not sent us, taken as far as the host receipted it
        (SPEC §7)."""
        if self.ended or self.game is None:
            return
        if (entry := logsync.entry_in(raw)) is not None:
            return self._take_from_mesh(entry, now)
        env = witnessing.receive(self, raw, now)
        if env is None or env.kind != EntryKind.KEYS:
            return
        self.private.early.add(env)
        self._open_private()
        self._after_advance(now)
        self.flush(now)

    def _end(self, reason: str, culprit: int) -> None:
        active = not self.ended and not self.is_host and culprit == self.host_seat >= 0
        super()._end(reason, culprit)
        if active:
            witnessing.farewell(self)

    def from_host(self, index: int, raw: bytes, now: float, receipt: bytes = b"",
                  host: bytes = b"") -> bool:
        """The host's stream: its entry ``index``, with its receipt signed by ``host`` (SPEC
        §7). True if taken (not one we hold, nor one behind a gap: ``logsync.from_host``)."""
        try:
            if self.ended or not logsync.from_host(self, index, raw, now, receipt, host):
                return False
        except TableEnded as fork:
            self._end(str(fork), fork.culprit)
            return False
        self.on_log(raw, now)
        self._take_from_mesh(None, now)
        return True

    def _take_from_mesh(self, entry: tuple[int, bytes, bytes] | None, now: float) -> None:
        """Entries the mesh offers, as far as receipted, and the host's that waited behind."""
        if entry is not None:
            logsync.offered(self, *entry, now=now)
        while not self.ended:
            ahead = logsync.next_from_host(self)
            if ahead:  # (it may have come on a connection since closed)
                self.on_log(ahead, now, in_place=True)
                logsync.settle(self)  # its receipt, kept to serve it on
                continue
            for raw in (taken := logsync.receipted(self)):
                if self.ended:
                    return
                self.mesh.skip = [*self.mesh.skip[1 - logsync.OFFERED:], raw]
                claims, refuted = open_claims(self), len(self.refuted)
                self.on_log(raw, now, in_place=True)
                logsync.settle(self)
                if progressed(self, claims, refuted):  # as the host's stream is judged
                    self.mesh.synced_at = now
            if not taken:
                return
            self.wake()

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
                self.outbox.direct_out.append((endpoint, raw))

    def _claimed(self, claim: Claim, now: float) -> None:
        witnessing.claimed(self, claim, now)

    def _own_disproof(self, claim: Claim) -> str:
        return witnessing.own_disproof(self, claim)

    def _own_reveal(self, seat: int, seed: bytes) -> bool:
        secrets = self.private.secrets
        return seat == self.me and secrets is not None and seed == secrets.seed and (
            self.crypto is not None and secrets.commitment == self.crypto.commitments.get(
                secrets.index))

    def _move_logged(self, move: Move) -> None:
        if move.seat == self.me:  # in the log: not asked for again
            self.outbox.requested = None

    def _after_advance(self, now: float) -> None:
        game = self.game
        if game is None:
            return
        deal = game.deal
        if deal.turn != self.me:
            self.clock.turn_since = -1.0
        elif self.clock.turn_since < 0 or self.clock.turn_moment != (self.hand, deal.moves):
            # a timer per turn
            self.clock.turn_since, self.clock.turn_moment = now, (self.hand, deal.moves)
        self._prompt_player()

    def _prompt_player(self) -> None:
        """Tell the player when it is their turn, and when someone can be caught."""
        game = self.game
        if game is None or game.chance is not None or not self.hand_known():
            return
        deal = game.deal
        moment = (self.hand, deal.moves)
        if deal.turn == self.me and self.clock.prompted != moment:
            self.clock.prompted = moment
            self.events.append(Event("your_turn", "your turn"))
        miss = deal.open_miss
        if (miss not in (-1, self.me) and self.clock.catch_hint != moment
                and deal.settings.forget_penalty):
            self.clock.catch_hint = moment
            self.events.append(Event("catchable", f"{self.names[miss]} did not say Page One: "
                                     f"type catch {self.names[miss]} before the next player acts"))

    def refused(self, reason: str, now: float, seq: int = -1,
                code: Refusal | None = None) -> None:
        """The sequencer refused an envelope of ours (``seq``: which, when moves went out behind
        the first); ``code`` is what it means (None: our own sequencer's, from its text)."""
        if self.ended:  # a refusal that comes after the end changes nothing, its reason first
            return
        code = Refusal.of(reason) if code is None else code
        if pipeline.refused_behind(self, reason, code, seq, now):
            return
        kind = open_envelope(self.in_flight).kind if self.in_flight else None
        self.in_flight = b""
        if code is Refusal.SEAT_GONE and seq < 0 and self.me >= 0 and self.game is not None:
            # we come back to a seat the game no longer has (timed out while we were away)
            self._end("the game went on without this machine: the host turned it away, saying "
                      "its seat was given up (it was timed out, or left, while this machine "
                      "could not take part)", -1)
            return
        if self.me < 0 and not self.is_host and kind == EntryKind.BYE:  # we left before we sat down
            self.ended = "left the table before sitting down"
            return
        if (self.me < 0 and not self.is_host and code is Refusal.BUSY
                and self.attachment.may_resume):
            # strangers crowd the lobby: a new connection, in a moment
            if not self.attachment.dropped:
                self.events.append(Event("busy", "the table is busy: trying again…"))
            self.attachment.dropped = reason
            return
        if self.me < 0 and not self.is_host:  # a joiner the host will not seat
            self._end(f"the host refused to seat us: {reason}", -1)
            return
        if kind == EntryKind.BACK:  # after a drop, a race with our old connection's last message or
            # with its away: a new connection gets a fresh welcome (for at most the retry time)
            if self.attachment.may_resume and self.game is not None and self.me in self.active:
                self.lost_host(f"the host did not take us back: {reason}")
            else:
                self._end(f"the host did not take us back: {reason}", -1)
            return
        if code is Refusal.BROKEN_CHAIN and not self.is_host:
            # We sealed it against a head of the log the host sent us: the host's log is not
            # ours, so it showed the peers different tables (a fork). Retrying cannot help.
            self._end("refused our message for extending a log head it sent us itself: its "
                      "log differs from ours (a fork)", self.seat_of(self.host_key))
            return
        if self.outbox.requested is not None:
            self.events.append(Event("refused", f"not accepted: {reason}"))
            self.outbox.requested = None
        if kind is not None and self.claims and not KIND_RULES[kind].during_round:
            self.outbox.round_refused_at = len(self.log)  # the round first (intents)
            return
        if kind is not None and KIND_RULES[kind].deck_step:  # never refused for a race:
            return  # resending at once would only loop; tick retries
        self.flush(now)

    def request(self, move: Move) -> None:
        """A move the player typed: checked now with what this peer knows, sent when possible."""
        if self.game is None or self.game_over or self.ended:
            raise IllegalMove("the game is not running")
        self.game.deal.verify(move)
        self.outbox.requested = move
        self.flush(0.0)
        self.wake()

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
        self.notify(EntryKind.START, {"seats": len(self.keys)})
        self.flush(0.0)
        return ""

    def next_wake(self, now: float) -> float:
        """When this peer next has something to do without anything arriving: its turn timer
        runs out, or its CPU player is ready (``Paced``). ``inf``: nothing is due by time."""
        due = [math.inf]
        game = self.game
        if (game is not None and isinstance(game.settings, QdanSettings)
                and game.settings.turn_timer > 0 and self.clock.turn_since >= 0):
            due.append(self.clock.turn_since + game.settings.turn_timer)
        if isinstance(self.bot, Paced):
            ready = self.bot.ready_at()
            if ready is not None:
                due.append(ready)
        return min(due)

    def tick(self, now: float) -> None:
        witnessing.send_alive(self, now)
        witnessing.hand_over(self, now)
        logsync.serve_laggards(self, now)
        pipeline.drop_taken(self)
        through_others.play_through_others(self, now)
        self.flush(now)

    # --- outputs ------------------------------------------------------------------------------

    def flush(self, now: float) -> None:
        """Seal the next intent if nothing is in flight, else any move that may go behind."""
        if self.ended or self.attachment.taking_over >= 0:
            return
        if self.outbox.pipe:
            pipeline.fill(self, now)
            return
        if self.chain is None and not self.host_table:
            self._send_hello()
            return
        if not self.attachment.log_read:
            return
        intent = intents.next_intent(self, now)
        if intent is None:
            return
        kind, data = intent
        chain = self.chain
        seq = chain.next_seq(self.identity.public) if chain else 0
        prev = chain.head if chain else genesis(self.table_id)
        raw = seal(self.identity, self.table_id, self.hand, seq, prev, kind, data)
        self.outbox.pipe = [Sent(raw, kind, data, seq)]
        self.outbox.outgoing.append(raw)
        if kind == EntryKind.KEYS and not self.is_host:
            self._send_direct(raw, data["positions"])
        witnessing.to_mesh(self, raw, kind, data)
        pipeline.fill(self, now)
        if kind == EntryKind.HELLO:
            self.attachment.hello_sent = raw

    def _send_hello(self) -> None:
        if self.attachment.welcome is None or self.attachment.hello_sent:
            return
        table, head, seq = self.attachment.welcome
        self.table_id = table
        hello = {"name": self.name, "proto": PROTOCOL_VERSION, "client": "pageone",
                 "endpoint": self.attachment.endpoint}
        self.attachment.hello_sent = self.in_flight = seal(self.identity, table, 0, seq, head,
                                                           EntryKind.HELLO, hello)
        self.outbox.outgoing.append(self.in_flight)

    # --- queries ------------------------------------------------------------------------------

    def admissible(self, env: Envelope) -> str | None:
        """The sequencer's check before appending: None if fine, else the reason to refuse."""
        return admissible(self, env)

    def waiting_for(self) -> list[tuple[int, str]]:
        """Seats the table is waiting on for a protocol step, and for what (as the terminal
        says it)."""
        return [] if self.ended else waiting_for(self)

    def owed(self) -> list[Owed]:
        """Seats the table is waiting on, and for which step (``fold/obligations``)."""
        return [] if self.ended else owed(self)

