"""A seat kept for its return (RULINGS Q14; protocol/SPEC.md §7, "Reconnect").

A connection that drops mid-game is not a leave: the host appends ``away`` (the seat, why, and
the window in seconds it keeps the seat) and the table waits for that seat's steps. The same user
comes back by running the same ``pageone join``: its new connection reads the log, and its first
envelope is ``back``, signed with the identity it sat down with at its next sequence number: that
signature is the proof it is the same player. If the window runs out first, the host appends
``timeout`` and the seat leaves as any leaver does (the hand is void, the game goes on).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..crypto.envelope import Envelope
from ..crypto.identity import fingerprint
from ..wire.codec import ProtocolError
from .common import Event, TableEnded, checked_endpoint

if TYPE_CHECKING:
    from .table import TableState


def away_refusal(s: TableState, kind: str, seat: int) -> str | None:
    """Why an ``away`` for ``seat`` (or a ``back`` from it) cannot be in the log now."""
    game = s.game
    if game is None or s.game_over or seat not in s.active:
        return f"{kind} is for a seat still in a running game"
    if kind == "away" and (seat in s.away or (0 <= seat < len(s.keys)
                           and s.keys[seat] == s.host_key)):
        return "away is for a joiner's seat that is not away already"
    if kind == "back" and seat not in s.away:
        return "back is for a seat kept away for its return"
    return None


def on_away(s: TableState, env: Envelope, seat: int, now: float) -> None:
    if env.sender != s.host_key:
        raise ProtocolError("only the host may send away", fingerprint(env.sender))
    away = env.data["seat"]
    refusal = away_refusal(s, "away", away)
    if refusal is not None:
        raise ProtocolError(refusal, fingerprint(env.sender))
    window = env.data["window"]
    s.away[away] = window
    name = s.names[away]
    s.events.append(Event("away", f"{name} (seat {away}) left ({env.data['why']}): the seat "
                          f"is kept for {window} s for {name} to return; the table waits",
                          {"seat": away, "window": window, "position": len(s.log) - 1}))


def on_back(s: TableState, env: Envelope, seat: int, now: float) -> None:
    refusal = away_refusal(s, "back", seat) if seat >= 0 else "back from someone not seated"
    if refusal is not None:  # its author signed it on the host's word (the welcome): the host
        # let it in, where an honest sequencer refuses it
        raise TableEnded(f"relayed a back the sequencer must refuse ({refusal}): its author "
                         "is not to blame", s.seat_of(s.host_key))
    del s.away[seat]
    s.endpoints[env.sender] = checked_endpoint(env.data["endpoint"])
    s.events.append(Event("back", f"{s.names[seat]} (seat {seat}) returned: the game goes on",
                          {"seat": seat, "position": len(s.log) - 1}))
