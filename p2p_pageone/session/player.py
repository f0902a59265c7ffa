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
from typing import Any, Protocol

from ..bots import Bot
from ..crypto.deck import Pass
from ..crypto.identity import Identity
from ..engine.moves import Move
from ..engine.settings import Settings
from ..engine.view import SeatView
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


@dataclass
class Sent:
    """One of our envelopes out, neither logged nor refused yet."""

    raw: bytes
    kind: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    seq: int = -1
    doomed: bool = False  # behind a refused one: its own refusal is due
    closed: bool = False  # nothing more goes behind it (a move behind lost a race; our turn ends)


class PlayerState(TableState):
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
        self.pipe: list[Sent] = []  # ours out, neither logged nor refused, oldest first
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
        # What goes out before any other step, in order: a host's notices (start, expel, away,
        # timeout, takeover) and a peer's bye.
        self.notices: deque[tuple[str, dict[str, Any]]] = deque()
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

    @property
    def in_flight(self) -> bytes:
        """Our oldest envelope out, b"" if none."""
        return self.pipe[0].raw if self.pipe else b""

    @in_flight.setter
    def in_flight(self, raw: bytes) -> None:
        self.pipe = [Sent(raw)] if raw else []

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

    def notify(self, kind: str, data: dict[str, Any]) -> None:
        """Queue a notice (or our bye): it goes out before any other step, in order."""
        self.notices.append((kind, data))

    def expelling(self, seat: int) -> bool:
        """An ``expel`` of ``seat`` is queued: nothing more of that seat goes in first."""
        return any(kind == "expel" and data["seat"] == seat for kind, data in self.notices)

    def advert(self) -> dict[str, Any]:
        """What the host advertises over mDNS."""
        family = self.settings.family if self.settings else ""
        free = len(self.away) if self.game is not None else self.seat_count - len(self.keys)
        return {"name": self.table_name, "rules": family, "taken": len(self.keys),
                "free": max(0, free)}  # in a game: the seats kept for a return
    def host_endpoint(self) -> str:
        """Where the table's host listens, if it is a joiner that took the table over."""
        return self.endpoints.get(self.host_key, "")

    def say(self, text: str) -> None:
        self.chat.append(text[:200])

    def take_outgoing(self) -> list[bytes]:
        out, self.outgoing = self.outgoing, []
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
        secrets, deck = self.secrets, self.crypto
        return secrets is not None and deck is not None and deck.commitments.get(
            secrets.index, secrets.commitment) != secrets.commitment

    def flush(self, now: float) -> None:
        """Seal what is due now (``peer.PeerSession``)."""
        raise NotImplementedError
