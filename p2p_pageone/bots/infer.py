"""Qdan: what the public record suggests about the other players' hands.

Read from the seat's own view only: the deal's public events (plays, draws and their reasons,
the start card), the public deck positions of each hand, and the cards shown face up; never a
hidden card. The guesses assume a player plays as ``normal`` does: it plays when it can, plays
every card of a kind together, and among its plays takes the one ``normal`` scores best.

Two outputs. ``Record.unlikely``, slot by slot, from single events:

- a player who drew instead of playing (no draw pending) held nothing that could start a play
  on the top card (Q3), and no change-colour card;
- a player who drew a pending Draw 2/3 instead of stacking held no card of that kind;
- a player who played a change-colour card held nothing else that could start a play;
- a player who played cards of a kind (not change-colour) kept none of that kind.

Each concerns the cards the player held at that moment: the slots it still holds whose positions
are below the deck positions opened by then (draws take positions in increasing order). And
``Record.fits``: for a full deal of the hidden cards, whether each player's recent plays are the
ones ``normal`` would have chosen from the hand it then held (its cards still held, and those it
played since that it held then). A search honours both where the cards allow; they are guesses,
not proofs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from ..engine.cards import KIND_CHANGE, KIND_DRAW2, KIND_DRAW3, KIND_SKIP, QDAN_COLOURED, kind_of
from ..engine.deal import UNKNOWN
from ..engine.qdan import leads_on
from ..engine.view import SeatView
from .normal import NormalBot

_ATTACK = NormalBot.attack_bonus
RECENT = 6  # a player's last plays checked by ``fits`` (older ones rarely change the answer;
# ``read_record``'s ``recent`` may ask for more)


@cache
def kind_mask(kind: int) -> int:
    return sum(1 << card for card in range(QDAN_COLOURED) if kind_of(card) == kind)


CHANGE_MASK = sum(1 << card for card in range(QDAN_COLOURED, QDAN_COLOURED + 16))


@cache
def _lead_mask(colour: int, kind: int) -> int:
    """Every coloured card that may start a play on that top."""
    return sum(1 << card for card in range(QDAN_COLOURED) if leads_on(card, colour, kind))


@dataclass
class _Choice:
    """A play to replay: who, when (event index), on what top, and what was played."""

    seat: int
    at: int
    colour: int
    kind: int
    pending_kind: int
    cards: tuple[int, ...]
    chosen: int
    held: list[int] = field(default_factory=list)  # slots still held that it held then
    shown: list[int] = field(default_factory=list)  # cards it held then and played since


@dataclass
class Record:
    unlikely: dict[int, int]  # slot -> mask of cards that slot is guessed not to be
    choices: dict[int, list[_Choice]]  # seat -> its recent plays, to replay

    def fits(self, seat: int, known: list[int]) -> bool:
        """Whether ``seat``'s recent plays are ``normal``'s choices, with the hidden slots as
        in ``known`` (a determinized deal)."""
        for choice in self.choices.get(seat, ()):
            hand = [known[s] for s in choice.held] + choice.shown
            if not _normal_would(choice, hand):
                return False
        return True

    def misfits(self, known: list[int]) -> int:
        """How many of the recorded recent plays (every player's) ``normal`` would not have made
        with the hidden slots as in ``known``."""
        return sum(1 for choices in self.choices.values() for choice in choices
                   if not _normal_would(choice, [known[s] for s in choice.held] + choice.shown))


def read_record(view: SeatView, recent: int = RECENT) -> Record:
    guesses: list[tuple[int, int, int]] = []  # (seat, mask, cards drawn before it)
    draws: list[tuple[int, int, int, int]] = []  # (seat, event index, count, drawn before)
    plays: list[_Choice] = []
    colour = kind = -1
    pending = pending_kind = 0
    drawn = 0
    for index, event in enumerate(view.events()):
        what = event[0]
        if what == "start":
            card = event[1]
            assert isinstance(card, int)
            colour, kind = card // 26, kind_of(card)
        elif what == "play":
            seat, cards, chosen = event[1], event[2], event[3]
            assert isinstance(seat, int) and isinstance(cards, tuple) and isinstance(chosen, int)
            played = kind_of(cards[0])
            if played == KIND_CHANGE:
                guesses.append((seat, _lead_mask(colour, kind), drawn))
            else:
                guesses.append((seat, kind_mask(played), drawn))
            plays.append(_Choice(seat, index, colour, kind, pending_kind if pending else -1,
                                 cards, chosen))
            kind = kind_of(cards[-1])
            colour = chosen if kind == KIND_CHANGE else cards[-1] // 26
            if kind in (KIND_DRAW2, KIND_DRAW3):
                pending += len(cards)
                pending_kind = kind
        elif what == "draw":
            seat, count, why = event[1], event[2], event[3]
            assert isinstance(seat, int) and isinstance(count, int)
            if why == "pass":
                guesses.append((seat, _lead_mask(colour, kind) | CHANGE_MASK, drawn))
            elif why == "pending" and pending:  # the rest of a draw split by a reshuffle: none
                guesses.append((seat, kind_mask(pending_kind), drawn))
                pending = 0
            draws.append((seat, index, count, drawn))
            drawn += count
    opened = view.opened_slots()
    hands = {seat: view.held_slots(seat) for seat in view.players() if seat != view.seat}
    unlikely: dict[int, int] = {}
    for seat, mask, before in guesses:
        if seat not in hands:
            continue
        limit = opened - (drawn - before)  # the first position not yet opened at that moment
        for slot in hands[seat]:
            if slot < limit:
                unlikely[slot] = unlikely.get(slot, 0) | mask
    got: dict[int, int] = {}  # slot -> event index it was drawn at (-1: dealt)
    owner: dict[int, int] = {}
    for seat in hands:
        for slot in view.dealt_slots(seat):
            got[slot], owner[slot] = -1, seat
    for seat, index, count, before in draws:
        first = opened - (drawn - before)
        for slot in range(first, first + count):
            got[slot], owner[slot] = index, seat
    choices = {seat: _recent(view, seat, held, got, owner, plays, recent)
               for seat, held in hands.items() if held}
    return Record(unlikely, {seat: c for seat, c in choices.items() if c})


def _recent(view: SeatView, seat: int, held: list[int], got: dict[int, int],
            owner: dict[int, int], plays: list[_Choice], recent: int) -> list[_Choice]:
    """``seat``'s last plays, each with the hand it held then; none if the record is unclear."""
    mine = [c for c in plays if c.seat == seat]
    gone = {slot: view.shown_card(slot) for slot, who in owner.items()
            if who == seat and slot not in held}
    if UNKNOWN in gone.values():
        return []
    left = dict(gone)
    played_at: dict[int, int] = {}
    for choice in mine:  # which of its positions each play emptied
        for card in choice.cards:
            slot = next((s for s, c in left.items() if c == card and got[s] < choice.at), -1)
            if slot < 0:
                return []
            played_at[slot] = choice.at
            del left[slot]
    out = mine[-recent:]
    for choice in out:
        choice.held = [s for s in held if got.get(s, 1 << 30) < choice.at]
        choice.shown = [gone[s] for s, when in played_at.items()
                        if got[s] < choice.at <= when]
    return out


def _normal_would(choice: _Choice, hand: list[int]) -> bool:
    """Whether ``normal`` could have made ``choice`` from ``hand`` (ties allowed), whether or not
    it thought the next player low (that is not replayed). The scores are ``qdan_score``'s, per
    kind rather than per play, for speed; the tests replay real ``normal`` games to keep the two
    in step."""
    colours = [0, 0, 0, 0]
    groups: dict[int, list[int]] = {}
    for card in hand:
        if card < QDAN_COLOURED:
            colours[card // 26] += 1
        groups.setdefault(kind_of(card), []).append(card)
    played = kind_of(choice.cards[0])
    if played != KIND_CHANGE and len(groups.get(played, ())) != len(choice.cards):
        return False
    if played == KIND_CHANGE:
        mine = -15 + 2 * colours[choice.chosen]
    else:
        last = choice.cards[-1] // 26
        mine = 10 * len(choice.cards) + 2 * (
            colours[last] - sum(1 for c in choice.cards if c // 26 == last))
    best_plain = best_attack = -99
    for kind, cards in groups.items():
        score = _best_score(kind, cards, colours, choice)
        if score is None:
            continue
        best_plain = max(best_plain, score)
        attack = score + (_ATTACK if kind in (KIND_DRAW2, KIND_DRAW3, KIND_SKIP) else 0)
        best_attack = max(best_attack, attack)
    mine_attack = mine + (_ATTACK if played in (KIND_DRAW2, KIND_DRAW3, KIND_SKIP) else 0)
    return mine >= best_plain or mine_attack >= best_attack


def _best_score(kind: int, cards: list[int], colours: list[int], choice: _Choice) -> int | None:
    """``normal``'s score of its best play of all its cards of ``kind`` (None: none plays)."""
    if choice.pending_kind >= 0:
        if kind != choice.pending_kind:
            return None
        firsts = cards
    elif kind == KIND_CHANGE:
        return -15 + 2 * max(colours)
    else:
        firsts = [c for c in cards if leads_on(c, choice.colour, choice.kind)]
        if not firsts:
            return None
    if len(cards) == 1:
        lasts = cards
    elif len(firsts) == 1:
        lasts = [c for c in cards if c != firsts[0]]
    else:
        lasts = cards
    best = max(colours[c // 26] - sum(1 for d in cards if d // 26 == c // 26) for c in lasts)
    return 10 * len(cards) + 2 * best
