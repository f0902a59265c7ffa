"""What a new host gathers before its ``takeover`` (protocol/SPEC.md §7, "Failover"): the
entries of the old host's log that a peer has and it lacks, and each gathered peer's ``back``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..crypto.envelope import Envelope, open_envelope
from ..wire.codec import ProtocolError
from ..wire.kinds import EntryKind
from .common import Event
from .fold.lost import listening_seats, needed
from .fold.queries import expected_at_takeover

if TYPE_CHECKING:
    from .peer import PeerSession


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
    reason = ("a takeover comes from the new host" if env.kind == EntryKind.TAKEOVER else
              s.admissible(env))  # what a peer hands over never makes us name anyone
    if reason is not None:
        raise ProtocolError(f"handed over an entry no sequencer appends here ({reason})")
    s.on_log(raw, now, env)
    return True


def back_to_new_host(s: PeerSession, raw: bytes) -> Envelope:
    """A gathered peer's ``back``: held by the new host ``s`` until its takeover is in."""
    env = open_envelope(raw)
    expected = expected_at_takeover(s, s.attachment.taking_over)
    if env.kind != EntryKind.BACK or env.sender not in expected:
        raise ProtocolError("to a new host a peer says back, once it handed over its log")
    return env


def told_lost(s: PeerSession, value: dict[str, Any], key: bytes) -> None:
    """A seat's ``lost`` statement, sent to us, its host, on its way to the successor (``key``:
    the key its connection holds, or b""). Holding them from a majority of the listening
    seats, we stop: the table has moved on without us; we append nothing more."""
    if s.ended or s.game_over or not s.is_host or s.attachment.taking_over >= 0:
        return
    if (key and key != value["from"]) or s.take_lost(value["statement"], anyone=True):
        return  # not its own, or it does not count here: nobody is named for a statement
    lost = s.lost_statements(anyone=True)
    if len(lost) < needed(s):
        return
    s.events.append(Event("moved", f"{len(lost)} of the {len(listening_seats(s))} seats that "
                          "listen signed that this host does not serve the table (it did not "
                          "answer them, or did not take their steps): the table has moved to the "
                          "next seat without this machine"))
    s.network_stop("the table moved on to the next seat: a majority of the seats lost this "
                   "host (most likely this machine's network, or this machine stalled); "
                   "nothing more is logged here, and nobody is to blame")
