"""A new sequencer when the host goes (protocol/SPEC.md §7, "Failover").

Every joiner listens, and says where in its ``hello`` (or its ``back``). When the host's pageone
stops, the next seat (the lowest still in the game, after the host's, that listens) becomes the
sequencer: the others connect to it, hand it whatever log entries it lacks, and it appends
``takeover``. In every log that entry does what a leaver does for the old host (and for the seats
that cannot follow it, such as the CPU players the host ran): the hand in play is void, its
secrets died with the host. Every other seat is kept ``away`` for its return to the new host,
which each makes with ``back``, as after any dropped connection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..crypto.envelope import Envelope, open_envelope
from ..crypto.identity import fingerprint
from ..wire.codec import ProtocolError
from .common import Event

if TYPE_CHECKING:
    from .peer import PeerSession
    from .table import TableState


def takeover_refusal(s: TableState, sender: bytes, old_host: int) -> str | None:
    """Why ``sender`` may not take the table over from the host at ``old_host`` now."""
    if s.game is None or s.game_over:
        return "a takeover is for a running game"
    if not 0 <= old_host < len(s.keys) or s.keys[old_host] != s.host_key:
        return "a takeover names the seat of the table's host"
    if s.seat_of(sender) not in s.successors():
        return ("only a seat still in the game that listens takes over (the first of them that "
                "can be reached)")
    return None


def expected_at_takeover(s: TableState, old: int) -> set[bytes]:
    """Who is to come to a new host (``s`` its own session; ``old`` the old host's seat): every
    seat still in the game that listens, but the old host and the new."""
    return {s.keys[seat] for seat in s.active if seat not in (old, s.me)
            and s.endpoints.get(s.keys[seat])}


def on_takeover(s: TableState, env: Envelope, seat: int, now: float) -> None:
    from .handlers import _heads_agree, _leave, _reveal_due, start_hand

    old, window = env.data["seat"], env.data["window"]
    refusal = takeover_refusal(s, env.sender, old)
    if refusal is not None:
        raise ProtocolError(refusal, fingerprint(env.sender))
    s.host_key = env.sender
    host_name, name = s.names[old], s.names[seat]
    s.events.append(Event("takeover", f"{host_name}'s pageone (the host) stopped: {name} "
                          f"(seat {seat}) is the table's host now", {
                              "seat": seat, "old": old, "position": len(s.log) - 1}))
    stranded = [p for p in s.active if p not in (old, seat) and not s.endpoints.get(s.keys[p])]
    game = s.game
    assert game is not None
    left = "left with its pageone, the host's, which stopped"
    if _reveal_due(s, old):  # the hand stays void; the log says what could not be checked
        left += (f" when its hand {s.hand} seed reveal was due: its moves of that hand cannot be "
                 "checked")
    for gone, why in [(old, left),
                      *[(p, "could not follow the table to its new host (it does not listen)")
                        for p in stranded]]:
        _leave(s, gone, why, restart=False)  # all of them first: then one next hand
    if s.hand_end is not None:
        _heads_agree(s)
    elif not game.over and not s.game_over:
        start_hand(s)
    for p in s.active:
        if p != seat:
            s.away[p] = window
            s.events.append(Event("away", f"{s.names[p]} (seat {p}) is to reconnect to the new "
                                  f"host: the seat is kept for {window} s; the table waits",
                                  {"seat": p, "window": window, "position": len(s.log) - 1}))


def fold_handed_over(s: PeerSession, index: int, raw: bytes, now: float) -> bool:
    """An entry of the old host's log that a peer has and the new host ``s`` lacks: folded
    (True) only if an honest sequencer would have appended it here, so no one is named for what
    a peer hands over; one that differs from ours at its place is refused like it."""
    if index < len(s.log):
        if raw != s.log[index]:
            raise ProtocolError("handed over an entry that differs from ours at its place")
        return False
    if index > len(s.log):
        return False  # it skipped one: its back says where it stands
    env = open_envelope(raw)
    urgent, s.urgent = s.urgent, None
    reason = ("a takeover comes from the new host" if env.kind == "takeover" else
              s.admissible(env))
    s.urgent = urgent  # what a peer hands over never makes us name anyone
    if reason is not None:
        raise ProtocolError(f"handed over an entry no sequencer appends here ({reason})")
    s.on_log(raw, now, env)
    return True


def back_to_new_host(s: PeerSession, raw: bytes) -> Envelope:
    """A gathered peer's ``back``: held by the new host ``s`` until its takeover is in."""
    env = open_envelope(raw)
    if env.kind != "back" or env.sender not in expected_at_takeover(s, s.taking_over):
        raise ProtocolError("to a new host a peer says back, once it handed over its log")
    return env
