"""The public table state: everything every peer derives from the log alone (SPEC.md §7).

It knows no role. The entry modules beside it (``lobby``, ``dealing``, ``leaving``,
``presence``) check and fold each kind of entry into it; ``table.TableState`` adds ``apply``.
The hooks are where a viewer adds what only it knows (a peer: its own cards); here they add
nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from ...crypto.envelope import ChainVerifier, Envelope
from ...crypto.identity import fingerprint
from ...engine.deal import Deal
from ...engine.game import Game
from ...engine.moves import Move
from ...engine.settings import Settings
from ...wire.kinds import KIND_RULES, EntryKind
from ..common import Event
from ..deckcheck import Unproven
from ..hand import HandDeck
from .claims import Claim
from .entrylog import EntryLog
from .records import HandRecord

# Entries that do not move the game (chat lines, away, back) a running game's log may hold in
# a row (SPEC §7, "Strangers and floods"): past it, a chat line or an away names the host. A
# flood of them is what a seat the host cut off would have to be served before it could read a
# claim about it, and its witnesses wait only so long. A back is never refused for it: only a
# seat the log keeps away sends one, so at most one per seat comes past the limit. Nor is the
# first ``AWAYS_PAST_RUN`` aways of each seat past it: a seat whose link blips while the run is
# full must be kept away to come back (a return the log refuses is no return), and the host's
# away and back of a connected seat so add at most a few entries per seat.
IDLE_RUN = 60
AWAYS_PAST_RUN = 2


class PublicState:
    """Seats, settings, the chain, the deck rounds, the public cards, the moves, the scores.

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
        # (the entry's position, the listening seats before it) for the last entries that
        # changed who listens (``lost.note_listening``)
        self.listening_before: list[tuple[int, list[int]]] = []
        self.listening_dropped = -1  # the newest such entry no longer kept
        self.host_since = -1  # the position of the takeover that made the present host
        self.handed_over = -1  # the log position of the host's bye handing the table over
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
        self.claims: list[Claim] = []  # the host's claims waiting for witnesses (fold/witness)
        self.refuted: list[int] = []  # the seats of the host's claims the witnesses disproved
        self.void_catches: list[bytes] = []  # catches whose caught seat's call counted instead
        self.folded_kind: EntryKind | None = None  # the kind of the entry folded last
        # seat -> what the table owed when it came back owing a step (``obligations``)
        self.returned: dict[int, tuple[object, ...]] = {}
        self.presence_moves_on = True  # the ``away`` or ``back`` folded last moves clocks on
        self.reveals_due_at = -1  # the entry that ended the hand in play: its seeds due after it
        # the last entry that changed the game (a move, a card opened, a new hand): a move
        # sealed before it was judged by the rules against another game than the one it meets
        self.game_moved_at = -1
        self.last_entry_at: dict[int, int] = {}  # seat -> where its newest entry is in the log
        self.game_seen: tuple[int, int, int] = (0, 0, 0)
        self.idle_in_a_row = 0  # entries since the log's last one that moved the game
        self.aways_past_run: dict[int, int] = {}  # seat -> aways logged past the full run

    # --- hooks for what only one viewer knows -----------------------------------------------------

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
        self._move_logged(move)

    def _after_advance(self, now: float) -> None:
        """Everything this viewer does after an entry was folded (prompts, timers)."""

    def _move_logged(self, move: Move) -> None:
        """A move is in the log: the game took it, or (a catch) it waits for its witnesses."""

    def _claimed(self, claim: Claim, now: float) -> None:
        """The host made a claim about a seat, which the other peers witness (a peer notes what
        it holds of that seat now)."""

    def _own_disproof(self, claim: Claim) -> str:
        """Why this viewer, the seat the claim is about, knows it false ("": it does not)."""
        return ""

    def step_refusal(self, env: Envelope) -> str | None:
        """Why the log would refuse ``env``, a seat's step, by its kind's own check at this
        point (None: it would take it); the fold that knows every kind says (``TableState``)."""
        return None

    def idle_run_full(self) -> bool:
        """Is the run of entries that do not move the game at ``IDLE_RUN``, in a running game?"""
        return self.idle_in_a_row >= IDLE_RUN and self.game is not None and not self.game_over

    def away_past_run_refused(self, seat: int) -> bool:
        """With the run full, has ``seat`` had all the aways it may have until the game moves?"""
        return self.idle_run_full() and self.aways_past_run.get(seat, 0) >= AWAYS_PAST_RUN

    def count_idle(self, kind: EntryKind) -> None:
        """The entry just folded, of ``kind``, goes on the run of idle entries or ends it."""
        if KIND_RULES[kind].chat or kind in (EntryKind.AWAY, EntryKind.BACK):
            self.idle_in_a_row += 1
        else:
            self.idle_in_a_row = 0
            self.aways_past_run.clear()

    # --- queries on the seats ---------------------------------------------------------------------

    def unproven_hold(self) -> bool:
        """Run the checks no seed reveal established (``defer_proofs``): True if all hold."""
        if not all(item.holds() for item in self.unproven):
            return False
        self.unproven = []
        return True

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

    @property
    def host_seat(self) -> int:
        return self.seat_of(self.host_key)

    def who(self, seat: int) -> str:
        """``name (seat n, FINGERPRINT)``."""
        if 0 <= seat < len(self.names):
            return f"{self.names[seat]} (seat {seat}, {fingerprint(self.keys[seat])})"
        return "nobody"


Check = Callable[[PublicState, Envelope, int], None]  # raises, changes nothing
Effect = Callable[[PublicState, Envelope, int, float], None]
Entries = dict[EntryKind, tuple[Check, Effect]]  # each entry module's kinds: check, effect


def nothing(s: PublicState, env: Envelope, seat: int) -> None:
    """Nothing to check beyond what every entry is checked for."""


def no_effect(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    """No effect."""
