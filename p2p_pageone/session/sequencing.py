"""The sequencer's core (protocol/SPEC.md §7): it appends what admission takes, holds what must
wait (the Page One window, moves ahead of their keys), and says the host's notices. The Page One
window is described in ``sequencer``.
"""

from __future__ import annotations

from collections import deque

from ..crypto.envelope import Envelope, open_envelope
from ..wire.codec import ProtocolError, frame
from ..wire.kinds import KIND_RULES, EntryKind
from .admission import expel_notice
from .fold.entrylog import EntryLog
from .fold.obligations import BOUNDS, Owed, moves_on, open_claims, stalemate, timeable
from .fold.queries import lacks_keys
from .links import (
    GATHER,
    LINGER,
    LOBBY_TIMEOUT,
    RECONNECT_WINDOW,
    START_AFTER,
    WATCHERS,
    Link,
    chat_allowed,
    refusal,
)
from .logsync import entry_frame
from .peer import PeerSession
from .receipts import HostReceipts


class SequencerCore:
    """Orders every envelope into the log and relays it to every seated connection."""

    def __init__(self, host: PeerSession, now: float, silent_after: float = 10.0,
                 step_timeout: float = BOUNDS.step, heartbeat: float = 1.0,
                 catch_window: float = 0.0, min_players: int = 0,
                 lobby_timeout: float = LOBBY_TIMEOUT, start_after: float = START_AFTER,
                 reconnect_window: int = RECONNECT_WINDOW, gather: float = GATHER,
                 watchers: int = WATCHERS, watcher_chat: bool = False) -> None:
        self.host = host
        self.watchers = watchers  # at most this many watch at once (0: none)
        self.watcher_chat = watcher_chat  # watchers may chat (rate-limited), never in the log
        host.watch_room = (0, watchers)
        # A takeover (the host went, we are its successor): until ``gather_until`` the others
        # hand over the entries we lack and say ``back``, held (conn -> envelope) until our
        # ``takeover`` is in the log.
        self.gather_until = now + gather if host.attachment.taking_over >= 0 else -1.0
        self.took_over = host.attachment.taking_over >= 0  # this table's host by a takeover
        self.gathered: dict[int, Envelope] = {}
        # Moves of a seat whose cards' keys are not all in the log yet (it opened them from
        # keys sent to it directly): held until they are, at most ``step_timeout``.
        self.early: list[tuple[int, Envelope, float]] = []
        self.reconnect_window = reconnect_window  # 0: a dropped seat is timed out at once
        self.away_since: dict[int, tuple[float, str]] = {}  # seats kept for their return:
        # since when, and why
        self.through_others: dict[int, float] = {}  # seats back by a ``back`` the others
        # handed us (no connection of their own here), and since when
        # The lobby: with ``min_players`` (0: wait for every seat) the game starts with at least
        # that many once nobody has sat down or left for ``start_after`` seconds.
        self.min_players, self.start_after = min_players, start_after
        self.lobby_timeout = lobby_timeout
        self.lobby_changed = now
        self.catch_window = catch_window
        self.cpu_keys: set[bytes] = set()  # CPU peers this host started: held in the window too
        self.window: tuple[int, float] | None = None  # (seat owing the call, opened at)
        self.held: list[tuple[int, Envelope]] = []  # (connection, or 0 for the host's own)
        self.silent_after, self.step_timeout, self.heartbeat = silent_after, step_timeout, heartbeat
        self.links: dict[int, Link] = {}
        self.relayed_chat: dict[bytes, deque[float]] = {}  # an author's chat lines relayed
        self.out: list[tuple[int, bytes]] = []  # (connection, frame) to send
        self.to_close: list[int] = []
        self.last_progress = now
        self._last_ping = now
        self._last_tick = now
        self._quiet_told = False
        # After a stall of this machine: until ``stall_until`` the connections found closed
        # are held, not kept away: if a majority of the seats left us, the table moved on
        self.stall_until = -1.0
        self.stall_dropped: list[tuple[Link, str]] = []
        self.stall_heard: set[bytes] = set()  # seats that echoed a ping sent after it
        # The end of the game: the log's length then, and when; who confirmed having it.
        self.linger = max(LINGER, silent_after)
        self.final: tuple[int, float] | None = None
        self.confirmed: set[bytes] = set()
        self.end_told = False
        self.receipts = HostReceipts(host.identity, host.table_id)
        host.flush(now)
        self._pump(now)

    def receipt(self, index: int, raw: bytes = b"") -> bytes:
        """Our receipt of the log's entries 0..``index`` (``receipts``), signed once."""
        return self.receipts.of(self.log, index, raw)

    @property
    def log(self) -> EntryLog:
        """The log as ordered: the host's own (every entry the sequencer appends, it folds)."""
        return self.host.log

    def _note_window(self, now: float) -> None:
        game = self.host.game
        miss = game.deal.open_miss if game is not None else -1
        if miss < 0:
            self.window = None
        elif self.window is None or self.window[0] != miss:
            self.window = (miss, now)

    def _must_wait(self, env: Envelope, now: float) -> bool:
        if now < self.stall_until:  # after a stall, nothing goes in before its news is in
            return True
        if self.window is None or env.kind != EntryKind.MOVE:
            return False
        seat, opened = self.window
        if now - opened >= self.catch_window:
            return False
        if env.sender in self.cpu_keys:
            return True
        return env.data.get("kind") != "catch" and self.host.seat_of(env.sender) != seat

    def _release(self, now: float) -> None:
        """Held moves go in once the window has closed or run out, if they still fit."""
        while self.held and not self._must_wait(self.held[0][1], now):
            conn, env = self.held.pop(0)
            reason = self._admit(env)
            if reason is None:
                self._append(env, now)
            elif conn == 0:
                self.host.refused(reason, now)
                self._pump(now)
            else:
                self.out.append((conn, refusal(env.seq, reason)))

    def _append(self, env: Envelope, now: float) -> None:
        raw = env.raw
        encoded = frame(entry_frame(len(self.log), raw, self.receipt(len(self.log), raw)))
        self.out += [(conn, encoded) for conn, link in self.links.items()
                     if link.key or link.follows]
        if self.host.game is None and not KIND_RULES[env.kind].chat:
            self.lobby_changed = now
        claims = open_claims(self.host)
        self.host.on_log(raw, now, env)
        if moves_on(self.host, claims):  # a chat keeps no step from its timeout
            self.last_progress = now
        self._note_window(now)
        self._pump(now)
        self._release_early(now)
        if self.host.game_over and self.final is None:
            self.final = (len(self.log), now)

    def _admit(self, env: Envelope) -> str | None:
        """The admission's verdict; a deck message of another seat refused for its content is
        shown to the table, with the envelope as evidence (an ``expel``)."""
        reason = self.host.admissible(env)
        if reason is not None:
            notice = expel_notice(self.host, env, reason)
            if notice is not None:
                self.host.notify(EntryKind.EXPEL, notice)
        return reason

    def _relayed(self, raw: bytes, now: float) -> bool:
        """Another seat's envelope a peer hands us (protocol/SPEC.md §7, "Witnesses"): appended
        if it is its author's next and admissible now, as if its author's link had brought it;
        else dropped without a word (the relayer hands it again later if it is still due)."""
        try:
            env = open_envelope(raw)
        except ProtocolError:
            return False
        chain = self.host.chain
        if (chain is None or self.host.seat_of(env.sender) < 0 or self.gather_until >= 0
                or not KIND_RULES[env.kind].relayed  # a hello: said on a connection of its own
                or chain.next_seq(env.sender) != env.seq
                or any(held.raw == raw for _, held in self.held)
                or any(early.raw == raw for _, early, _ in self.early)):
            return False
        if self._admit(env) is not None or self._must_wait(env, now):
            return False
        if KIND_RULES[env.kind].chat and not chat_allowed(  # relayed lines count as said too
                self.relayed_chat.setdefault(env.sender, deque()), now):
            return False
        self._append(env, now)
        if env.kind == EntryKind.BACK:  # it plays through the others: kept unlinked a while
            seat = self.host.seat_of(env.sender)
            self.through_others[seat] = now
            self.away_since.pop(seat, None)  # its return is in: no away is owed any more
        return True

    def _lacks_keys(self, env: Envelope) -> bool:
        """A play or draw of a seat whose cards' keys are not all in the log yet."""
        return (env.kind == EntryKind.MOVE and env.data["kind"] in ("play", "draw")
                and lacks_keys(self.host, self.host.seat_of(env.sender)))

    def _may_hold(self, conn: int, env: Envelope) -> bool:
        """One move held per connection, and only one the chain takes next from its author."""
        chain = self.host.chain
        if chain is None or any(held == conn for held, _, _ in self.early):
            return False
        try:
            chain.check(env.raw, env)
        except ProtocolError:
            return False
        return True

    def _release_early(self, now: float) -> None:
        """Held moves go in once their keys are in the log (or are refused after a while)."""
        if not self.early:
            return
        held, self.early = self.early, []
        for conn, env, since in held:
            link = self.links.get(conn)
            if link is None or link.key != env.sender:
                continue
            waited = now - since
            # a witness round refuses it at once: its author's witness may be due behind it
            if self._lacks_keys(env) and waited < self.step_timeout and not self.host.claims:
                self.early.append((conn, env, since))
                continue
            reason = ("the keys for your cards are not all in the log yet: try again"
                      if self._lacks_keys(env) else self._admit(env))
            if reason is not None:
                self.out.append((conn, refusal(env.seq, reason)))
                if self.host.outbox.notices:
                    self.host.flush(now)
                    self._pump(now)
            elif self._must_wait(env, now):
                self.held.append((conn, env))
            else:
                self._append(env, now)

    def _pump(self, now: float) -> None:
        for raw in self.host.take_outgoing():
            env = open_envelope(raw, own=True)  # our own, just sealed
            reason = self._admit(env)
            if reason is None and self._must_wait(env, now):
                self.held.append((0, env))
            elif reason is None:
                self._append(env, now)
            else:
                self.host.refused(reason, now)

    def local_fault(self, reason: str, now: float, bye: str = "", network: bool = False) -> None:
        """The host's own machine failed (its disk; with ``network``, its network): close the
        table, naming no joiner."""
        self.host.local_fault(reason, now, bye, network)
        self._pump(now)

    def _time_out_or_close(self, waits: list[Owed], now: float) -> None:
        """Time out the first seat the table waits on that may be; if every one is a witness
        that an open claim says is gone already, half the table is silent at once: close it."""
        timed = timeable(self.host, waits)
        if timed:
            self._timeout(timed[0].seat, timed[0].text, now)
            return
        seats = stalemate(self.host)  # none once the game is over: nobody owes anything
        if not seats or self.host.ended:
            return
        names = ", ".join(self.host.names[seat] for seat in seats)
        self.host.notify(EntryKind.BYE, {"reason": (
            f"half the table went silent at once ({names}): the seats left cannot outvote "
            "them, so the table closes and nobody is named")[:200]})
        self.host.flush(now)
        self._pump(now)

    def _timeout(self, seat: int, what: str, now: float) -> None:
        if self.host.game_over:  # nobody owes anything once the game is over
            return
        self.host.notify(EntryKind.TIMEOUT, {"seat": seat, "waited_for": what[:100]})
        self.host.flush(now)
        self._pump(now)
