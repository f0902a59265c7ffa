"""Known holes (``--plant NAME``): each puts back, in memory, a rule the protocol once lacked,
and the simulator must then report a violation: it is shown to find what it is for."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from ..crypto.envelope import extend
from ..crypto.statements import open_statement
from ..session import logsync
from ..session.common import TableEnded
from ..session.fold import apply, leaving, presence, witness
from ..session.fold.claims import Claim
from ..session.fold.lost import majority_refusal
from ..session.fold.state import PublicState
from ..session.player import PlayerState
from ..wire.codec import ProtocolError
from ..wire.kinds import EntryKind

Patch = tuple[Any, str, Any]  # (a module or a dict, the name or key, the value to put there)
PLANTS: dict[str, tuple[str, Callable[[], list[Patch]]]] = {}


def plant(name: str, text: str) -> Callable[[Callable[[], list[Patch]]],
                                              Callable[[], list[Patch]]]:
    def register(make: Callable[[], list[Patch]]) -> Callable[[], list[Patch]]:
        PLANTS[name] = (text, make)
        return make
    return register


def everywhere(function: Any, replacement: Any) -> list[Patch]:
    """Every loaded module's name bound to ``function``, to be bound to ``replacement``."""
    found: list[Patch] = []
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("p2p_pageone"):
            found += [(module, attr, replacement) for attr, value in list(vars(module).items())
                      if value is function]
    return found


@plant("away-closes-round", "a seat the host says is away witnesses nothing: the round stops "
       "waiting for it (and a seat a later claim is about witnesses no earlier claim)")
def _away_closes_round() -> list[Patch]:
    check, on_away = apply.ENTRIES[EntryKind.AWAY]

    def away_and_close(s: PublicState, env: Any, seat: int, now: float) -> None:
        on_away(s, env, seat, now)
        for claim in s.claims:
            claim.due.discard(env.data["seat"])
        leaving.close_round(s)

    return [(apply.ENTRIES, EntryKind.AWAY, (check, away_and_close))]


@plant("alive-any-position", "a sign of life disproves a claim whatever entry it was made at "
       "(stale ones included), and whatever the table waited for")
def _alive_any_position() -> list[Patch]:
    original = witness.disproof

    def disproof(s: PublicState, claim: Claim, raw: bytes) -> str:
        try:
            alive = open_statement(raw, "alive")
        except ProtocolError:
            return original(s, claim, raw)
        return "a sign of life" if alive.sender == s.keys[claim.seat] else ""

    return everywhere(original, disproof)


@plant("catch-on-hosts-word", "a catch stands on the host's order alone: the witnesses' held "
       "calls are not weighed, so a host that holds a seat's Page One call until a friend "
       "catches it gets an honest seat caught")
def _catch_on_hosts_word() -> list[Patch]:
    def catch_stands(s: PublicState, claim: Claim) -> None:
        if claim.catch is not None:
            leaving.take_held_move(s, claim, claim.catch)

    return everywhere(leaving.judge_catch, catch_stands)


@plant("others-word-for-the-log", "a seat takes entries from the mesh on the word of more than "
       "half of the other listening seats but the host (their signs of life), as up to "
       "protocol 14: with the host honest, those can all be dishonest")
def _others_word_for_the_log() -> list[Patch]:
    original = logsync.receipted

    def receipted(s: PlayerState) -> list[bytes]:
        taken = original(s)
        if s.chain is None:
            return taken
        run, heads, at = [], [s.chain.head], len(s.log)
        while at in s.mesh.offered:
            run.append(s.mesh.offered[at])
            heads.append(extend(heads[-1], run[-1]))
            at += 1
        others = [seat for seat in s.active if seat != s.me and s.keys[seat] != s.host_key
                  and s.endpoints.get(s.keys[seat])]
        agree = []
        for seat in others:
            index, raw = s.mesh.alive.get(s.keys[seat], (-1, b""))
            if 0 < index - len(s.log) < len(heads) and heads[index - len(s.log)] == \
                    open_statement(raw, "alive").data["head"]:
                agree.append(index - len(s.log))
        needed = len(others) // 2 + 1
        if others and len(agree) >= needed:
            vouched = sorted(agree, reverse=True)[needed - 1]
            return run[:vouched] if vouched > len(taken) else taken
        return taken

    return everywhere(original, receipted)


@plant("own-entry-receipts-itself", "an entry of the host's own whose prev is the head of "
       "the place it is offered at receipts itself, as up to protocol 17: a friend serves a "
       "seat the host's move the window for a call held, at its prev's place")
def _own_entry_receipts_itself() -> list[Patch]:
    original = logsync.receipted

    def receipted(s: PlayerState) -> list[bytes]:
        taken = original(s)
        if s.chain is None:
            return taken
        run, head, at = [], s.chain.head, len(s.log)
        while at in s.mesh.offered:
            sender, prev = s.mesh.offered_by.get(at, (b"", b""))
            if sender != s.host_key or prev != head:
                break
            run.append(s.mesh.offered[at])
            head, at = extend(head, run[-1]), at + 1
        return run if len(run) > len(taken) else taken

    return everywhere(original, receipted)


@plant("takeover-anywhere", "as up to protocol 17, a takeover is folded wherever the log puts "
       "it, judged on the table as it stood right before it, and a host's receipt of a log "
       "holding another seat's takeover counts like any receipt: an old host that still serves "
       "one seat orders the new host's takeover behind a line of its own")
def _takeover_anywhere() -> list[Patch]:
    def check_takeover(s: PublicState, env: Any, seat: int) -> None:
        refusal = presence.takeover_refusal(s, env.sender, env.data["seat"])
        if refusal is not None:
            raise ProtocolError(refusal, "")
        assert s.chain is not None
        short = majority_refusal(s, env.data["lost"], env.sender, s.chain.length - 1)
        if short is not None:
            raise TableEnded(f"took the table over without a majority: {short}", seat,
                                      refusal=short)

    def anothers_takeover(*_: Any) -> bool:
        return False

    return [(apply.ENTRIES, EntryKind.TAKEOVER,
             (check_takeover, apply.ENTRIES[EntryKind.TAKEOVER][1])),
            *everywhere(logsync.anothers_takeover, anothers_takeover)]


_ = presence  # the fold's modules are all loaded before a plant looks for names
