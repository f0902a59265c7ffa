"""Cheating peers as test doubles: each deviates from the protocol at exactly one step, in an
in-memory table, so the tests can check that live peers and ``pageone audit`` name that seat
at that step, and never an honest one."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

from p2p_pageone.audit.check import Audit, audit_bytes
from p2p_pageone.bots import NormalBot, make_bot
from p2p_pageone.crypto import group
from p2p_pageone.crypto.deck import DeckSecrets, Pass
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.engine import make_settings
from p2p_pageone.engine.cards import JOKER
from p2p_pageone.engine.game import Game
from p2p_pageone.engine.moves import Call, Draw, Move, Play
from p2p_pageone.engine.settings import Settings
from p2p_pageone.engine.view import SeatView
from p2p_pageone.session.hand import HandDeck, HandSecrets
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.peer import PeerSession
from p2p_pageone.wire.codec import frame

PeerFactory = Callable[..., PeerSession]


def log_bytes(session: PeerSession) -> bytes:
    return b"".join(frame(raw) for raw in session.log)


def audit_of(session: PeerSession) -> Audit:
    """The audit of ``session``'s log, checked to say exactly what the audit verifying every
    proof as it comes says: deferring the proofs to the reveal never changes a finding."""
    data = log_bytes(session)
    audit, strict = audit_bytes(data), audit_bytes(data, every_proof=True)
    assert verdict(audit) == verdict(strict)
    return audit


def verdict(audit: Audit) -> tuple[object, ...]:
    fault, early = audit.fault, audit.early
    return (audit.verdict, audit.closed, audit.places, audit.totals,
            None if fault is None else (fault.entry, fault.step, fault.seat, fault.reason),
            None if early is None else (early.entry, early.seat, early.reason),
            [(h.hand, h.status, h.first_entry, h.last_entry, h.text, h.scores)
             for h in audit.hands])


def table_with(settings: Settings, players: int, seed: int,
               doubles: dict[int, PeerFactory] | None = None,
               bots: dict[int, Any] | None = None, direct: bool = False) -> MemoryTable:
    """A ``MemoryTable`` whose peer ``i`` is built by ``doubles[i]`` (default ``PeerSession``),
    with the same identities and randomness as ``memory.make_peer``."""
    doubles, bots = doubles or {}, bots or {}

    def peer(index: int) -> PeerSession:
        rng = random.Random(f"{seed}/{index}")
        host_table = ("memory", settings, players) if index == 0 else None
        return doubles.get(index, PeerSession)(
            Identity(rng.randbytes(32)), f"p{index}", rng.randbytes,
            bot=bots.get(index, make_bot("normal")), rng=random.Random(f"{seed}/{index}/bot"),
            autoplay=True, host_table=host_table)

    return MemoryTable(settings, players, peers=[peer(i) for i in range(players)],
                       direct=direct)


def classic_table_where_cheat_struck(cheat_class: type) -> MemoryTable:
    """A 3-seat classic table (seat 2 the cheater, with its own ``Lenient`` client) from the
    first seed where its cheat found its chance; the table played out."""
    for seed in range(50, 60):
        cheat = cheat_class()
        table = table_with(make_settings("classic", {"deals": 3}), 3, seed=seed,
                           doubles={2: Lenient}, bots={2: cheat})
        table.run(limit=600)
        if cheat.done:
            return table
    raise AssertionError("the cheat never found its chance")


class Lenient(PeerSession):
    """A cheater's own client: it applies its own moves without the rules' check."""

    def _apply_move(self, game: Game, move: Move) -> None:
        if move.seat == self.me:
            deal = game.deal
            deal._listed, deal._listed_version = [move], deal.version  # skips verify
        super()._apply_move(game, move)


# --- deck cheats ------------------------------------------------------------------------------


class _PassCheat(PeerSession):
    """Deviates in its first pass of ``STEP`` in the hand's main deck round."""

    STEP = "shuffle"
    done = False

    def _hand_started(self) -> None:
        super()._hand_started()
        if self.private.secrets is not None and not self.done:
            cheat = self
            original = self.private.secrets.compute_pass

            def compute_pass(deck: HandDeck) -> tuple[str, Pass] | None:
                result = original(deck)
                if result is None or result[0] != cheat.STEP or cheat.done:
                    return result
                cheat.done = True
                sent = result[1]
                return result[0], Pass(cheat.tamper(deck, list(sent.points)), sent.commits,
                                       sent.proof)

            self.private.secrets.compute_pass = compute_pass  # type: ignore[method-assign]

    def tamper(self, deck: HandDeck, points: list[bytes]) -> list[bytes]:
        raise NotImplementedError


class SubstitutingShuffler(_PassCheat):
    """Replaces one card of its shuffle output by a point that is no card."""

    def tamper(self, deck: HandDeck, points: list[bytes]) -> list[bytes]:
        points[3] = group.encode(group.mul(group.decode(points[3]), 7))
        return points


class DuplicatingShuffler(_PassCheat):
    """Puts one card of its shuffle output in a second position."""

    def tamper(self, deck: HandDeck, points: list[bytes]) -> list[bytes]:
        points[3] = points[5]
        return points


class MovingLocker(_PassCheat):
    """Locks position 1's point into position 0 as well, so that position 0 opens to position
    1's card (a victim's card, copied into the cheater's deal)."""

    STEP = "lock"

    def tamper(self, deck: HandDeck, points: list[bytes]) -> list[bytes]:
        assert self.private.secrets is not None
        secrets = self.private.secrets.secrets(deck, deck.pending_round)
        given = deck.record[deck.pending_round].input_for("lock", self.private.secrets.index)
        strip = group.inverse(secrets.shuffle_scalar)
        points[0] = group.encode(group.mul(given[1], strip * secrets.locks[0] % group.N))
        return points


class OffSeedShuffler(PeerSession):
    """Shuffles the hand's main deck in an order its seed does not give (reversed), with a valid
    proof: nothing another peer relies on is wrong, but the log no longer re-derives from the
    seed it reveals."""

    def _hand_started(self) -> None:
        super()._hand_started()
        if self.private.secrets is not None:
            original = self.private.secrets.secrets

            def secrets(deck: HandDeck, label: str) -> DeckSecrets:
                derived = original(deck, label)
                if label != deck.main_label():
                    return derived
                return dataclasses.replace(derived, order=tuple(reversed(derived.order)))

            self.private.secrets.secrets = secrets  # type: ignore[method-assign]


def wrong_key_once(secrets: HandSecrets) -> None:
    original = secrets.keys_for

    def keys_for(deck: HandDeck, slots: list[int]) -> tuple[str, list[int], list[bytes]]:
        label, chosen, keys = original(deck, slots)
        return label, chosen, [group.scalar_bytes(12345), *keys[1:]]

    secrets.keys_for = keys_for  # type: ignore[method-assign]


class WrongKey(PeerSession):
    """Publishes a wrong unlock key for the first card it deals to another seat."""

    def _hand_started(self) -> None:
        super()._hand_started()
        if self.private.secrets is not None and self.hand == 1:
            wrong_key_once(self.private.secrets)


# --- move cheats (a bot that deviates once; its own client lets it) -----------------------------


class RenegeBot(NormalBot):
    """Classic: draws while holding the led suit (a false "cannot follow")."""

    def __init__(self) -> None:
        self.done = False

    def choose(self, view: SeatView, rng: random.Random) -> Move | None:
        led = view.led_suit()
        if not self.done and view.turn == view.seat and led >= 0 and any(
                c < JOKER and c // 13 == led for c in view.hand()):
            self.done = True
            return Draw(view.seat)
        return super().choose(view, rng)


class DrawPastBot(NormalBot):
    """Classic: after drawing a card of the led suit, draws again instead of playing it."""

    def __init__(self) -> None:
        self.done = False
        self.drew = False

    def choose(self, view: SeatView, rng: random.Random) -> Move | None:
        move = super().choose(view, rng)
        if view.turn != view.seat:
            return move
        led = view.led_suit()
        holds = led >= 0 and any(c < JOKER and c // 13 == led for c in view.hand())
        if not self.done and self.drew and holds:
            self.done = True
            move = Draw(view.seat)
        self.drew = isinstance(move, Draw) and not holds
        return move


class FalseCallBot(NormalBot):
    """Qdan: says Page One although no play leaves it one card (its hand shows the lie)."""

    def __init__(self) -> None:
        self.done = False

    def choose(self, view: SeatView, rng: random.Random) -> Move | None:
        if (not self.done and view.turn == view.seat and len(view.hand()) >= 3
                and not any(len(view.hand()) - len(m.slots) == 1 for m in view.legal_moves()
                            if isinstance(m, Play))):
            self.done = True
            return Call(view.seat)
        return super().choose(view, rng)


class DrawAndPassBot(NormalBot):
    """Qdan: draws and passes although it holds a playable card (legal by Q7)."""

    def __init__(self) -> None:
        self.done = False

    def choose(self, view: SeatView, rng: random.Random) -> Move | None:
        move = super().choose(view, rng)
        if not self.done and view.turn == view.seat and move is not None and not isinstance(
                move, Draw | Call):
            self.done = True
            return Draw(view.seat)
        return move


class SilentAtReveal(PeerSession):
    """Plays the hand, then says nothing instead of revealing its seed."""

    def flush(self, now: float) -> None:
        if self.game is not None and self.crypto is not None and self.hand_over():
            return
        super().flush(now)
