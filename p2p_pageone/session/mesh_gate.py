"""What a joiner's listener hands its session of a frame a proven peer sent it on the mesh
(protocol/SPEC.md §7, "The log from the others", "Witnesses"), sans-I/O: one rule for the real
listener (``net/standby``) and the in-memory tables, so that what a simulated seat can show
another is what it could show it on the network.

A connection speaks for the key it proved: an envelope under another key, or a sign of life
of another seat's, is dropped unread. An ``entry`` frame is taken within reach of our log's end;
another one for a place we hold one for, or one for a place our log has, with the host's
receipt (it may show the host's fork, ``logsync``), is handed on but counts toward the
connection's flood limit, as do frames dropped. A copy of an entry our log has, with no
receipt or one that names our own head after it (its signature unread: it could show nothing),
is what an
honest seat serving us sends when the host's stream came first: it is neither handed on nor
counted (else a host that holds our stream back and then lets it through at once could get an
honest server's batches counted until we refuse its key, and with it the signs of life a
witness needs; review helper-42).
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
    KNOWN = "known"  # never handed, never counted: a copy of what we hold, and its receipt


def admit(s: PlayerState, payload: bytes, key: bytes) -> Admit:
    """What becomes of ``payload``, a frame of the proven peer ``key``."""
    try:
        value = unpack(payload)
        if isinstance(value, dict):
            return _entry(s, payload)
        if len(value) == 4 and value[0] == "receipt":  # the host's, handed on alone
            return _receipt(s, payload)
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
        if raw == s.log[index] and (not receipt or _names_our_head(s, index + 1, receipt)):
            return Admit.KNOWN
        return Admit.HOLD if receipt else Admit.DROP
    if not in_reach(s, index):
        return Admit.DROP
    return Admit.TAKE if wanted(s, index, raw) else Admit.HOLD


def _names_our_head(s: PlayerState, count: int, receipt: bytes) -> bool:
    """Does ``receipt`` (unverified) name our head after our first ``count`` entries?"""
    if receipt == s.mesh.receipts.get(count):
        return True
    try:
        _, _, body, _ = unpack(receipt)
        head = unpack(body)["head"]
    except (ProtocolError, TypeError, KeyError, ValueError):
        return False
    return s.chain is not None and head == s.chain.head_at(count)


def _receipt(s: PlayerState, payload: bytes) -> Admit:
    """A receipt of our host's, handed on alone by a seat serving us: taken if it goes further
    than our log and any such before it; the same again is nothing new."""
    receipt = open_statement(payload, "receipt")
    if receipt.sender != s.host_key or receipt.data["table"] != s.table_id:
        return Admit.DROP
    further = receipt.data["index"] > max(len(s.log), s.mesh.read[0])
    return Admit.TAKE if further else Admit.KNOWN
