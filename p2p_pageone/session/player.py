"""What a player holds besides the public fold: its configuration, secrets, outbox, its
attachment to a host and its turn clock (the state of ``peer.PeerSession``), with the queries
and the outbox's plain operations. The protocol's steps are in ``peer``, ``attachment``,
``intents`` and ``pipeline``, which all read and write this state.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..bots import Bot
from ..crypto.deck import Pass
from ..crypto.envelope import Envelope, open_envelope
from ..crypto.identity import Identity
from ..engine.moves import Move
from ..engine.settings import Settings
from ..engine.view import SeatView
from ..wire.kinds import EntryKind
from .common import Event
from .early import EarlyKeys
from .fold.table import TableState
from .hand import HandSecrets


class SeedStore(Protocol):
    """Where a joiner keeps its hand seeds for the life of the table, so that the same user
    running the same ``pageone join`` again can open its cards and reveal (SPEC §7, "Reconnect")."""

    def load(self, table: bytes, hand: int) -> bytes | None:
        """The seed kept for this table's hand, if any."""

    def save(self, table: bytes, hand: int, seed: bytes) -> str:
        """Keep it before it is used; "" if kept, else why it could not be."""


SEAT_GIVEN_UP = ("this user's seat was given up (it did not come back in time): the game went "
                 "on without it")


@runtime_checkable
class Paced(Protocol):
    """A CPU player that answers after a while (it thinks): when its answer is ready."""

    def ready_at(self) -> float | None:
        """The clock time its pending answer is ready at; None if none is pending."""


@dataclass
class Sent:
    """One of our envelopes out, neither logged nor refused yet."""

    raw: bytes
    kind: EntryKind | None = None  # None: a hello or a back, sealed on a connection's welcome
    data: dict[str, Any] = field(default_factory=dict)
    seq: int = -1
    doomed: bool = False  # behind a refused one: its own refusal is due
    closed: bool = False  # nothing more goes behind it (a move behind lost a race; our turn ends)

    @property
    def number(self) -> int:
        """Its sequence number (opened from its bytes if it was sealed on a welcome)."""
        return self.seq if self.seq >= 0 else open_envelope(self.raw, own=True).seq


@dataclass
class PrivateHand:
    """What only this peer knows of the hand: its seed and what it derives, kept or lost."""

    secrets: HandSecrets | None = None  # this hand's seed and what it derives
    pass_cache: tuple[str, str, Pass] | None = None
    my_coin: bytes = b""
    lost_secrets: int = 0  # a hand whose seed is not the one this seat committed to
    early: EarlyKeys = field(default_factory=EarlyKeys)  # keys for our cards sent us directly
    opened_early: int = 0  # cards we opened with such keys, before the log had them


@dataclass
class Outbox:
    """What this peer says, in order: notices first, then the next step; what is out."""

    outgoing: list[bytes] = field(default_factory=list)  # sealed, for the transport to send
    pipe: list[Sent] = field(default_factory=list)  # ours out, neither logged nor refused
    # What goes out before any other step, in order: a host's notices (start, expel, away,
    # timeout, takeover) and a peer's bye.
    notices: deque[tuple[EntryKind, dict[str, Any]]] = field(default_factory=deque)
    chat: list[str] = field(default_factory=list)
    requested: Move | None = None  # the move the player asked for, until logged or refused
    local_bye: str = ""  # said until it is in the log: this machine failed
    direct_out: list[tuple[str, bytes]] = field(default_factory=list)  # (endpoint, keys) to send
    relay_out: list[bytes] = field(default_factory=list)  # others' envelopes, for the host
    # the log's length when the host refused our step because a witness round was open: that
    # step goes to the host again once the log moves on, not in a loop the host counts as a flood
    round_refused_at: int = -1


@dataclass
class Attachment:
    """This peer's attachment to a host: the welcome, a drop and the return, a takeover."""

    log_read: bool = False  # a joiner's own hello is in the part of the log read
    hello_sent: bytes = b""  # our hello as sealed: another with our key is an impostor
    welcome: tuple[bytes, bytes, int] | None = None  # (table, head, seq) for our hello
    back_sent: bytes = b""  # our back on this connection, as sealed
    answered: bool = False  # the host's welcome on this connection came
    returning: bool = False  # this process came back to a seat kept for its return
    dropped: str = ""  # why the connection was lost mid-game: the seat may be kept for us
    may_resume: bool = False  # the transport tries a new connection after a drop
    resuming: bool = False
    known: int = 0  # on a new connection: our entries the host sends again
    checked: int = 0
    endpoint: str = ""  # where this joiner listens for a takeover ("": it does not)
    resend: int = -1  # a new host lacks our log from this entry on: the client sends it
    via_successor: bool = False  # this connection is to the successor, not to the host
    follows: bytes = b""  # on a connection to a successor's listener: the host it says its
    # seat follows now (a successor that joined another's takeover)
    holds: list[bytes] = field(default_factory=list)  # or the lost statements it holds
    taking_over: int = -1  # we are the new sequencer gathering the others: the old host's
    # seat, until our ``takeover`` is sealed
    lost: dict[bytes, bytes] = field(default_factory=dict)  # signer -> its ``lost`` statement
    # of the present host (ours included): a successor's majority, a host's notice to stop
    network: str = ""  # this machine's network, most likely, ended the table for us (exit 5)


@dataclass
class MeshMemory:
    """What this peer holds of the others, from the mesh."""

    alive: dict[bytes, tuple[int, bytes]] = field(default_factory=dict)  # key -> (index, raw)
    alive_head: dict[bytes, bytes] = field(default_factory=dict)  # key -> the head it names
    held: dict[bytes, list[tuple[float, Envelope]]] = field(default_factory=dict)  # opened
    alive_sent: float = -1e9
    read_at: dict[int, float] = field(default_factory=dict)  # claim position -> when we read it
    first_call: dict[int, bytes] = field(default_factory=dict)  # catch position -> call held
    shared: bytes = b""  # our envelope the host has not logged, sent to the others too
    told_at: float = -1e9  # when we last sent it to them, cut off from the host
    stuck_since: tuple[bytes, float] = (b"", 0.0)  # our envelope out, and since when
    relayed: dict[bytes, float] = field(default_factory=dict)  # others' envelopes we handed
    # the host, and when; and the (author, sequence number) of each call we handed it at once
    calls_relayed: set[tuple[bytes, int]] = field(default_factory=set)
    # the log over the mesh (``logsync``): a peer's lagging sign of life (index, since when),
    # when we last served it; entries offered ahead of our log (index -> raw); the entries we
    # took from the mesh that the host's stream has not brought yet; when we last took some
    lag_since: dict[bytes, tuple[int, float]] = field(default_factory=dict)
    served_at: dict[bytes, float] = field(default_factory=dict)
    offered: dict[int, bytes] = field(default_factory=dict)
    offered_by: dict[int, tuple[bytes, bytes]] = field(default_factory=dict)  # (sender, prev)
    # the host's receipts (``receipts``) by the entries they cover: of our log, to serve on;
    # and ahead of it, checked as they came, with the head each names
    receipts: dict[int, bytes] = field(default_factory=dict)
    pending: dict[int, tuple[bytes, bytes]] = field(default_factory=dict)
    host_ahead: dict[int, bytes] = field(default_factory=dict)  # the host's, beyond a gap
    ahead_of: bytes = b""  # the host that sent them
    skip: list[bytes] = field(default_factory=list)
    synced_at: float = -1e9
    host_entry_at: float = -1e9  # when the host's own stream last brought us an entry
    table_moved_at: float = -1e9  # when a host's receipt last showed a log longer than any before
    heard_from: dict[bytes, float] = field(default_factory=dict)  # key -> its last sign of life
    grew_at: dict[bytes, float] = field(default_factory=dict)  # key -> when its sign of life
    # last named a longer log
    read: tuple[int, bytes] = (0, b"")  # the newest (count, head) a receipt of our host's we
    # were handed names, beyond our log: what our signs of life say we read
    longest: int = 0  # the longest log a receipt of the host's showed


@dataclass
class TurnClock:
    """When our turn began, and which prompts were shown for which moment."""

    turn_since: float = -1.0  # when our turn began (-1: not our turn)
    turn_moment: tuple[int, int] = (0, -1)
    prompted: tuple[int, int] = (0, -1)  # (hand, engine move) of the last turn prompt
    catch_hint: tuple[int, int] = (0, -1)


class PlayerState(TableState):
    """The public fold plus this peer's configuration (what it was made with) and its parts:
    ``private`` (its hand secrets), ``outbox``, ``attachment`` (to a host) and ``clock``."""

    def __init__(
        self, identity: Identity, name: str, random_bytes: Callable[[int], bytes],
        bot: Bot | None = None, rng: random.Random | None = None, autoplay: bool = False,
        host_table: tuple[str, Settings, int] | None = None, seeds: SeedStore | None = None,
    ) -> None:
        super().__init__(identity.public)
        self.identity, self.name, self.random_bytes = identity, name, random_bytes
        self.bot, self.rng, self.autoplay = bot, rng or random.Random(0), autoplay
        self.host_table = host_table  # (table name, settings, seats) when this peer hosts
        self.seeds = seeds
        self.table_id = random_bytes(16) if host_table else b""
        self.host_key = identity.public if host_table else b""
        self.private = PrivateHand()
        self.outbox = Outbox()
        self.attachment = Attachment(log_read=bool(host_table))
        self.clock = TurnClock()
        self.mesh = MeshMemory()  # what we hold of the others, from the mesh (witnessing)
        self.ended = ""
        self.local = ""  # this machine failed (its disk, its network): why; nobody is to blame
        self.local_network = False  # and it was this machine's network, not its files
        self.watch_room = (0, 0)  # a host's watchers: (watching now, the most it takes)
        # The transport's hook: the player (or this machine) gave this peer something to say
        # now, between two of the transport's ticks.
        self.on_wake: Callable[[], None] | None = None

    @property
    def in_flight(self) -> bytes:
        """Our oldest envelope out, b"" if none."""
        return self.outbox.pipe[0].raw if self.outbox.pipe else b""

    @in_flight.setter
    def in_flight(self, raw: bytes) -> None:
        self.outbox.pipe = [Sent(raw)] if raw else []

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

    def notify(self, kind: str, data: dict[str, Any]) -> None:  # kind: an ``EntryKind``
        """Queue a notice (or our bye): it goes out before any other step, in order."""
        self.outbox.notices.append((EntryKind(kind), data))
        self.wake()

    def wake(self) -> None:
        """Tell the transport this peer has something to say now."""
        if self.on_wake is not None:
            self.on_wake()

    def expelling(self, seat: int) -> bool:
        """An ``expel`` of ``seat`` is queued: nothing more of that seat goes in first."""
        return any(kind == EntryKind.EXPEL and data["seat"] == seat
                   for kind, data in self.outbox.notices)

    def advert(self) -> dict[str, Any]:
        """What the host advertises over mDNS."""
        family = self.settings.family if self.settings else ""
        free = len(self.away) if self.game is not None else self.seat_count - len(self.keys)
        watching, most = self.watch_room
        return {"name": self.table_name, "rules": family, "taken": len(self.keys),
                "free": max(0, free),  # in a game: the seats kept for a return
                "watch": f"{watching}/{most}"}
    def host_endpoint(self) -> str:
        """Where the table's host listens, if it is a joiner that took the table over."""
        return self.endpoints.get(self.host_key, "")

    def say(self, text: str) -> None:
        self.outbox.chat.append(text[:200])
        self.wake()

    def take_outgoing(self) -> list[bytes]:
        out, self.outbox.outgoing = self.outbox.outgoing, []
        return out

    def take_events(self) -> list[Event]:
        out, self.events = self.events, []
        return out

    def _end(self, reason: str, culprit: int) -> None:
        who = f"{self.who(culprit)} " if 0 <= culprit < len(self.names) else ""
        self.ended = who + reason
        self.events.append(Event("ended", f"the table ended: {self.ended}", {"culprit": culprit}))

    def _seed_lost(self) -> bool:
        """Our seed is not the one our seat committed to in this hand (its file is gone)."""
        secrets, deck = self.private.secrets, self.crypto
        return secrets is not None and deck is not None and deck.commitments.get(
            secrets.index, secrets.commitment) != secrets.commitment

    def flush(self, now: float) -> None:
        """Seal what is due now (``peer.PeerSession``)."""
        raise NotImplementedError
