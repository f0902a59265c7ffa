"""What a joiner's listener hands its session of a frame a proven peer sent it on the mesh
(protocol/SPEC.md §7, "The log from the others", "Witnesses"), sans-I/O: one rule for the real
listener (``net/standby``) and the in-memory tables, so that what a simulated seat can show
another is what it could show it on the network.

A connection speaks for the key it proved: an envelope under another key, or a sign of life
of another seat's, is dropped unread. An ``entry`` frame is taken within reach of our log's end;
another one for a place we hold one for, or one for a place our log has, with the host's
receipt (it may show the host's fork, ``logsync``), is handed on but counts toward the
connection's flood limit, as do frames dropped.
"""

from __future__ import annotations

from enum import Enum

from ..crypto.envelope import open_envelope
from ..crypto.statements import open_statement
from ..wire.codec import ProtocolError, unpack
from .logsync import entry_in, in_reach, wanted
from .player import PlayerState


class Admit(Enum):
    TAKE = "take"  # handed to the session, and new to it
    HOLD = "hold"  # handed to the session, counted toward the flood limit
    DROP = "drop"  # never handed; counted toward the flood limit


def admit(s: PlayerState, payload: bytes, key: bytes) -> Admit:
    """What becomes of ``payload``, a frame of the proven peer ``key``."""
    try:
        value = unpack(payload)
        if isinstance(value, dict):
            return _entry(s, payload)
        if len(value) == 4:  # a statement: a sign of life (an envelope has another length)
            alive = open_statement(payload, "alive")
            ours = alive.sender == key and alive.data["table"] == s.table_id
        else:
            ours = open_envelope(payload, key).table == s.table_id
    except (ProtocolError, TypeError, KeyError):
        return Admit.DROP
    return Admit.TAKE if ours else Admit.DROP


def _entry(s: PlayerState, payload: bytes) -> Admit:
    entry = entry_in(payload)
    if entry is None:
        return Admit.DROP
    index, raw, receipt = entry
    if index < len(s.log):
        return Admit.HOLD if receipt else Admit.DROP
    if not in_reach(s, index):
        return Admit.DROP
    return Admit.TAKE if wanted(s, index, raw) else Admit.HOLD
