"""The public table state: one fold of the log, entry by entry (protocol/SPEC.md §7).

``TableState.apply(entry) -> events`` knows only what the log says: seats, settings, the chain,
the deck rounds, the public cards, the moves, the scores. Three users share it:

- a live peer (``peer.PeerSession``) is this fold plus its own seed, cards, intents and outbox;
- ``pageone audit`` is this fold over a log file, with the seeds the log reveals;
- ``pageone replay`` is this fold plus a renderer.

Hooks (``_hello``, ``_hand_started``, ``_open_private``, ``_apply_move``) are where a peer adds
what only it knows; here they add nothing.
"""

from __future__ import annotations

from ..crypto.deck import DeckError
from ..crypto.envelope import BadSignature, ChainVerifier, Envelope
from ..crypto.identity import fingerprint
from ..engine.deal import Deal
from ..engine.game import Game
from ..engine.moves import ChanceError, IllegalMove, Move
from ..engine.settings import SettingError, Settings
from ..wire.codec import ProtocolError
from . import handlers
from .common import Event, TableEnded
from .deckcheck import Unproven
from .entrylog import EntryLog
from .hand import HandDeck
from .records import HandRecord

# Faults of the order of the log (not of a message's content): the relay is to blame, not the
# author, whose own signed ``seq`` and ``prev`` show it.
RELAY_FAULTS = ("BadSignature", "Replayed", "OutOfOrder", "WrongTable", "OldHand",
                "UnknownSender", "BrokenChain")


class TableState:
    """Everything every peer derives from the log alone.

    ``defer_proofs`` (the audit, never a live peer): a pass's proof, and a key's ``u·T = W``,
    are not checked when folded but listed in ``unproven``; a seed reveal that re-derives the
    seat's passes, commitments and keys byte for byte establishes what they would check and
    strikes them off. Whoever folds this way runs what is left (``unproven_hold``), and folds
    again checking everything on receipt if one fails or an entry's meaning was refused while
    checks were deferred, so the first fault is the one a live peer meets.

    ``rederive`` (the audit, either way it folds): at each seed reveal every pass of the seat is
    recomputed from its seed and the cards are read from the permutations. A live peer verified
    every proof on receipt, so it checks the seed against its commitments and opens the cards
    with the seeds' keys instead (SPEC §5.10)."""

    def __init__(self, own_key: bytes = b"", defer_proofs: bool = False,
                 rederive: bool = False) -> None:
        self.own_key = own_key  # the viewer's identity: its seat is ``me`` once seated
        self.defer_proofs = defer_proofs
        self.rederive = rederive or defer_proofs
        self.unproven: list[Unproven] = []
        self.table_name = ""
        self.table_id = b""
        self.host_key = b""
        self.chain: ChainVerifier | None = None
        self.settings: Settings | None = None
        self.seat_count = 0
        self.keys: list[bytes] = []  # public key per seat
        self.names: list[str] = []
        self.endpoints: dict[bytes, str] = {}  # where each joiner listens for a takeover
        self.me = -1
        self.waiting_hellos: list[tuple[bytes, str]] = []
        self.ready: set[int] = set()
        self.coin_commits: dict[int, bytes] = {}
        self.coin_nonces: dict[int, bytes] = {}
        self.game: Game | None = None
        self.active: list[int] = []  # seats still in the game (RULINGS Q14)
        self.away: dict[int, int] = {}  # seats kept for their return: seat -> window in seconds
        self.hand = 0
        self.crypto: HandDeck | None = None
        self.hand_deal: Deal | None = None
        self.seed_reveals: dict[int, bytes] = {}
        # Between two hands: (entries, head) of the log when the hand ended, which every active
        # seat signs in a ``head`` message before the next hand starts; and who has.
        self.hand_end: tuple[int, bytes] | None = None
        self.heads: dict[int, bytes] = {}
        self.log = EntryLog()
        self.events: list[Event] = []
        self.game_over = False
        self.hand_moves: list[tuple[int, Move]] = []  # (log position, move) of this hand
        self.engine_events_seen = 0
        self.author = -1  # the seat that signed the log entry being applied
        self.history: list[HandRecord] = []  # every finished hand, with all its cards

    # --- the fold -------------------------------------------------------------------------------

    def apply(self, raw: bytes, env: Envelope | None = None, now: float = 0.0) -> list[Event]:
        """Fold one log entry; returns the events it caused. A fault raises (see ``blame``)."""
        start = len(self.events)
        self.author = -1
        handlers.apply_entry(self, raw, now, env)
        handlers.advance(self, now)
        return self.events[start:]

    def blame(self, error: Exception) -> tuple[int, str]:
        """The seat a fault raised by ``apply`` names (-1: nobody can be named) and why."""
        if isinstance(error, TableEnded):
            return error.culprit, str(error)
        if isinstance(error, DeckError):
            blamed = self.crypto.seat_at(error.peer) if self.crypto else -1
            return (blamed if blamed >= 0 else self.author), f"{type(error).__name__}: {error}"
        if isinstance(error, ProtocolError) and type(error).__name__ in RELAY_FAULTS:
            return self.seat_of(self.host_key), self.relay_fault(error)
        reason = error.reason if isinstance(error, ProtocolError) else str(error)
        return self.author, f"sent a message this peer cannot accept: {reason}"

    def relay_fault(self, error: ProtocolError) -> str:
        what = ("relayed a message whose signature does not verify (forged or corrupted)"
                if isinstance(error, BadSignature) else
                f"relayed a message out of its place ({type(error).__name__}: {error})")
        return f"{what}: the sequencer must refuse it, and its author is not to blame"

    # --- hooks for what only one peer knows -------------------------------------------------------

    def _hello(self, env: Envelope) -> None:
        """A hello entered the log."""

    def _hand_started(self) -> None:
        """A new hand's deck record exists (``self.crypto``)."""

    def _open_private(self) -> None:
        """Open whatever this viewer alone can open now (a peer: its own cards)."""

    def _left_lobby(self, seat: int, why: str) -> None:
        """``seat`` leaves before the game started; its seat is freed next."""

    def _own_reveal(self, seat: int, seed: bytes) -> bool:
        """True if this viewer made every value of ``seat`` from ``seed`` itself."""
        return False

    def _apply_move(self, game: Game, move: Move) -> None:
        game.apply(move)

    def _after_advance(self, now: float) -> None:
        """Everything this viewer does after an entry was folded (prompts, timers)."""

    # --- queries ----------------------------------------------------------------------------------

    def unproven_hold(self) -> bool:
        """Run the checks no seed reveal established (``defer_proofs``): True if all hold."""
        if not all(item.holds() for item in self.unproven):
            return False
        self.unproven = []
        return True

    def hand_over(self) -> bool:
        return handlers.hand_over(self)

    def successors(self) -> list[int]:
        """The seats that may take over if the host goes, in order: those still in the game,
        but the host's, that listen. The first takes over; if it cannot be reached either, the
        next, and so on (SPEC §7, "Failover")."""
        return [seat for seat in self.active if self.keys[seat] != self.host_key
                and self.endpoints.get(self.keys[seat])]

    def successor(self) -> int:
        """The first of ``successors`` (-1: none)."""
        return next(iter(self.successors()), -1)

    def seat_of(self, key: bytes) -> int:
        return self.keys.index(key) if key in self.keys else -1

    def who(self, seat: int) -> str:
        """``name (seat n, FINGERPRINT)``."""
        if 0 <= seat < len(self.names):
            return f"{self.names[seat]} (seat {seat}, {fingerprint(self.keys[seat])})"
        return "nobody"


FOLD_ERRORS = (TableEnded, DeckError, ProtocolError, IllegalMove, ChanceError, SettingError)
