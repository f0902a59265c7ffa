"""Takeover by majority (protocol/SPEC.md §7, "Failover"): who counts, and which ``lost``
statements a takeover may rest on.

The *listening seats* are the seats still in the game whose endpoint is not "" (they can follow
a new host), plus the host's own seat. A successor takes the table over only with ``lost``
statements (crypto/statements) from a majority of them: the host never signs one, so a host
that still reaches half the table or more can never be replaced. A cut link alone, or a peer's
word that it lost the host, is never enough.
"""

from __future__ import annotations

from ...crypto.statements import Statement, open_statement
from ...wire.codec import ProtocolError
from .state import PublicState

# A host that cannot write its log says so in its bye, and that bye is its own signed word that
# it is gone: the successor takes over without a majority (SPEC §7, "Failover").
HANDOVER = "hands the table over: its machine cannot write its log"


def may_hand_over(s: PublicState) -> bool:
    """A takeover could go on with the game: two seats or more can follow a new host."""
    return s.game is not None and not s.game_over and len(s.successors()) >= 2


def listening_seats(s: PublicState) -> list[int]:
    """The seats still in the game that can follow a new host, and the host's own."""
    return [seat for seat in s.active if s.keys[seat] == s.host_key
            or s.endpoints.get(s.keys[seat])]


def needed(s: PublicState, length: int = -1) -> int:
    """How many ``lost`` statements make a majority of the listening seats (when the log had
    its first ``length`` entries; -1: now)."""
    return len(listening_at(s, length)) // 2 + 1


KEPT_CHANGES = 8  # who listened before each of the last changes, for a takeover out of place


def note_listening(s: PublicState) -> None:
    """The entry being folded changes who listens: who did before it, kept (a takeover is
    judged against the table as it was at its ``prev``, which a host may have put entries
    after)."""
    if s.chain is not None and s.game is not None:
        s.listening_before.append((s.chain.length - 1, listening_seats(s)))
        for index, _ in s.listening_before[:-KEPT_CHANGES]:
            s.listening_dropped = max(s.listening_dropped, index)
        del s.listening_before[:-KEPT_CHANGES]


def known_at(s: PublicState, length: int) -> bool:
    """Can this fold still tell the table as it was at its first ``length`` entries: the same
    host, no handover since, and who listened then kept?"""
    return s.host_since < length and s.handed_over < length and s.listening_dropped < length


def listening_at(s: PublicState, length: int) -> list[int]:
    """The listening seats when the log had its first ``length`` entries (-1: now)."""
    if length >= 0:
        for index, before in s.listening_before:
            if index >= length:
                return before
    return listening_seats(s)


def lost_refusal(s: PublicState, statement: Statement, taker: bytes | None,
                 length: int = -1, lenient: bool = False) -> str | None:
    """Why ``statement`` (an opened ``lost``) is not a listening seat's word that it lost this
    table's present host, at a position of this log or ahead of it, counting for the successor
    ``taker`` (None: whoever it names, as the old host counts them) (None: it is). ``length``:
    the log's length it is judged against (-1: the whole log; a takeover's statements are
    judged against the log before it, as its sequencer judged them). ``lenient``: a signer's
    entries from ``length`` on do not make its statement older than its last entry (the log at
    ``length`` may not have had them)."""
    data, seat = statement.data, s.seat_of(statement.sender)
    if data["table"] != s.table_id or data["host"] != s.host_key:
        return "a lost statement is for this table and its present host"
    if taker is not None and data["for"] != taker:
        return "a lost statement counts only for the successor it names"
    if seat < 0 or seat not in listening_at(s, length) or statement.sender == s.host_key:
        return "a lost statement comes from a seat in the game that listens, not the host's"
    chain, index = s.chain, data["index"]
    if chain is None:
        return "a lost statement is for a running game"
    length = chain.length if length < 0 else length
    if index <= length and chain.position(data["head"]) != index:
        return "a lost statement names a position that is not this log's"
    if index < chain.last_prev(statement.sender) and not (
            lenient and chain.last_entry(statement.sender) >= length):
        return "a lost statement older than its signer's last entry in the log"
    return None


def open_lost(s: PublicState, raw: bytes, taker: bytes | None, length: int = -1,
              lenient: bool = False) -> Statement:
    """A ``lost`` statement that counts toward a takeover of ``s`` by ``taker`` (None: by the
    successor it names; ``lost_refusal``); else a ``ProtocolError``."""
    statement = open_statement(raw, "lost")
    refusal = lost_refusal(s, statement, taker, length, lenient)
    if refusal is not None:
        raise ProtocolError(refusal)
    return statement


def majority_refusal(s: PublicState, lost: list[bytes], taker: bytes,
                     length: int = -1, lenient: bool = False) -> str | None:
    """Why the statements ``lost`` are not a majority of the listening seats that lost the
    host, each naming ``taker`` as its successor (None: they are, or the host handed the table
    over in its own signed bye), judged against the log's first ``length`` entries (-1: all of
    it)."""
    if s.handed_over >= 0:
        return None
    signers: set[bytes] = set()
    for raw in lost:
        try:
            signers.add(open_lost(s, raw, taker, length, lenient).sender)
        except ProtocolError as error:
            return f"it carries a lost statement that does not count ({error.reason})"
    if len(signers) != len(lost):
        return "it carries two lost statements of one seat"
    if len(signers) < needed(s, length):
        return (f"it carries lost statements of {len(signers)} seats; a takeover needs "
                f"{needed(s, length)} of the {len(listening_at(s, length))} listening seats")
    return None
