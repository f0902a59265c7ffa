"""What a joiner that lost the host and a successor's listener hand each other (protocol/SPEC.md
§7, "Failover"), sans-I/O: our ``lost`` statement on a connection the host left unanswered or to
a successor's challenge, the successor's answer to one, and the start of our takeover."""

from __future__ import annotations

from ..crypto.statements import open_statement, proof_of_key
from ..wire.codec import ProtocolError, unpack
from ..wire.messages import validate_control
from .attachment import lost_frame
from .common import Event
from .fold.lost import listening_seats
from .peer import PeerSession


def unanswered_word(session: PeerSession) -> bytes:
    """A connection ended without the host's answer to our intro (not a successor's): the host
    took it and said nothing, so we sign that we lost it. The frame to write on that same
    connection (a host that still runs reads it once it can), or b"" for none."""
    at = session.attachment
    if not at.dropped or at.answered or at.via_successor:
        return b""
    lost = session.sign_lost(f"{at.dropped}; a new connection was not answered")
    return lost_frame(session, lost) if lost else b""


def offer_lost(session: PeerSession, statement: bytes, challenge: bytes, expect: bytes) -> bytes:
    """The frame that hands our lost ``statement`` to a successor's listener, answering its
    ``challenge`` frame with the proof of our key, or b"" if that is no challenge of the key we
    ``expect`` there (never a proof signed for a relay). A malformed frame raises
    ``ProtocolError``."""
    value = unpack(challenge)
    if (isinstance(value, dict) and validate_control(value, ("challenge",))
            and (not expect or value["from"] == expect)):
        proof = proof_of_key(session.identity, value["nonce"], value["from"], "lost")
        return lost_frame(session, statement, proof)
    return b""


def start_takeover(session: PeerSession) -> None:
    """The host is gone and we are next: the session becomes the table's sequencer, and says
    why."""
    old = session.names[session.seat_of(session.host_key)]
    gone = (f"{old}'s machine (the host) cannot write its log and handed the table over"
            if session.handed_over >= 0 else f"{len(session.lost_statements())} of the "
            f"{len(listening_seats(session))} seats that listen lost {old}'s pageone (the "
            "host), a majority")
    session.take_over()
    session.events.append(Event("takeover", f"{gone}: this pageone takes the table over, "
                                "and the others reconnect to it…"))


def take_lost_statement(session: PeerSession, key: bytes, statement: bytes) -> str:
    """The seat of the proven ``key`` hands our listener its signed ``lost`` statement: kept
    toward a takeover (""), or why not."""
    if session.attachment.answered and not session.attachment.dropped:
        return "the host still answers here"
    try:
        signer = open_statement(statement, "lost").sender
    except ProtocolError as error:
        return error.reason
    if signer != key:
        return "a lost statement is sent by its signer"
    return session.take_lost(statement) or ""
