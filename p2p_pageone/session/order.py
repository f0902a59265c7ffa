"""Signed order (protocol/SPEC.md §7, "Signed order"): the head each seat signs at a hand's end.

A ``head`` carries the number of log entries when the hand ended and the log head after them.
Its ``prev`` is a head of this log (the chain checked it), so up to there its signer holds this
very log: a value that differs is a fork the sequencer made if that ``prev`` is older than the
hand's end (the histories differ only where the sequencer ordered them), and else a head its
signer never reached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..crypto.envelope import Envelope
from ..crypto.identity import fingerprint
from ..wire.codec import ProtocolError
from .common import TableEnded

if TYPE_CHECKING:
    from .table import TableState


def check_head(s: TableState, env: Envelope, seat: int) -> None:
    """Raise unless ``env`` (a ``head`` from ``seat``) is due and equals this log's own."""
    if s.hand_end is None or seat in s.heads:
        raise ProtocolError("a log head is signed once, at the end of a hand",
                            fingerprint(env.sender))
    assert s.chain is not None
    index, head = s.hand_end
    if (env.data["index"], env.data["head"]) == (index, head):
        return
    claim = f"entry {env.data['index']}, head {env.data['head'].hex()[:16]}"
    mine = f"entry {index}, head {head.hex()[:16]}"
    seen = s.chain.position(env.prev)
    if seen is not None and seen < index:
        raise TableEnded(f"showed {s.names[seat]} another table: at the end of hand {s.hand} "
                         f"it signed the log head as {claim}, this log's is {mine}; only the "
                         "sequencer orders the log", s.seat_of(s.host_key))
    raise TableEnded(f"signed a log head it never reached at the end of hand {s.hand} "
                     f"({claim}; it had seen this log up to entry {seen}, whose head at the end "
                     f"of the hand is {mine})", seat)
