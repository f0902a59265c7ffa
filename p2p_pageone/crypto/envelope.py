"""Signed, hash-chained envelopes (protocol/SPEC.md §3).

On the wire an envelope is ``msgpack([from, body, signature])``: ``body`` is the msgpack encoding
of the header and message, and ``signature`` is Ed25519 over ``pageone/v1/envelope`` and the
**exact** body bytes received. The outer ``from`` only picks the key: the signature is verified
with it before a byte of ``body`` is decoded, and the body's own signed ``from`` must then name
the same key. Nothing is re-encoded before it is verified.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..wire.codec import ProtocolError, pack, unpack
from ..wire.kinds import EntryKind
from ..wire.messages import shown, validate
from .identity import Identity, fingerprint, verify_signature, weak_public_key
from .kdf import label, tagged_hash

VERSION = 5
SIGNING_TAG = label("envelope")
HEADER_FIELDS = ("v", "table", "hand", "from", "seq", "prev", "type", "data")


NEVER_SAW = "extends a log head this peer never saw"  # a refusal for it begins so


def refused_as_broken_chain(reason: str) -> bool:
    """A sequencer's refusal (text on the wire) that is a ``BrokenChain``: the envelope extends
    a head the sequencer never saw, though it sent that head itself (a fork)."""
    return reason.startswith(NEVER_SAW)


class OrderFault(ProtocolError):
    """A fault of the log's order, not of a message's content: whoever relayed the message is
    to blame, not its author, whose own signed ``seq`` and ``prev`` show it."""


class BadSignature(OrderFault):
    """The signature does not verify for the claimed sender: forged or corrupted."""


class Replayed(OrderFault):
    """A sequence number the sender has used already."""


class OutOfOrder(OrderFault):
    """A sequence number beyond the next one: a message of this sender is missing."""


class WrongTable(OrderFault):
    """A message signed for another table."""


class OldHand(OrderFault):
    """A message signed for an earlier (or later) hand than the current one."""


class UnknownSender(OrderFault):
    """A signer who is not seated at this table."""


class BrokenChain(OrderFault):
    """A message extending a log head this peer never saw: dropped, reordered or forked."""


@dataclass(frozen=True, slots=True)
class Envelope:
    raw: bytes
    sender: bytes
    table: bytes
    hand: int
    seq: int
    prev: bytes
    kind: EntryKind
    data: dict[str, Any]


def seal(
    identity: Identity, table: bytes, hand: int, seq: int, prev: bytes, kind: str,
    data: dict[str, Any],
) -> bytes:
    """Sign and encode one message; the result is a frame payload."""
    validate(kind, data)
    body = pack({"v": VERSION, "table": table, "hand": hand, "from": identity.public,
                 "seq": seq, "prev": prev, "type": EntryKind(kind).value, "data": data})
    return pack([identity.public, body, identity.sign(SIGNING_TAG + body)])


def signer(raw: bytes) -> tuple[bytes, bytes, bytes]:
    """The unsigned outer layer: ``(from, body, signature)``, nothing signed decoded yet."""
    outer = unpack(raw)  # an array of three byte strings: no signed value is read here
    if type(outer) is list and len(outer) == 2:
        raise ProtocolError("an envelope of protocol version 2 or older: use the same pageone "
                            "version as the rest of the table")
    if (type(outer) is not list or len(outer) != 3 or type(outer[0]) is not bytes
            or len(outer[0]) != 32 or type(outer[1]) is not bytes or type(outer[2]) is not bytes
            or len(outer[2]) != 64):
        raise ProtocolError("an envelope is [32-byte sender key, body, 64-byte signature]")
    if pack(outer) != raw:
        raise ProtocolError("an envelope not in canonical encoding (a length not in its "
                            "shortest form)", fingerprint(outer[0]))
    sender, body, signature = outer
    return sender, body, signature


def open_envelope(raw: bytes, seated: bytes = b"", own: bool = False) -> Envelope:
    """Check one envelope on its own: the key, then the signature over the exact body bytes,
    and only then decode the body and check every field. ``seated``: the key this connection
    sat down with, if it has; an envelope under any other key is refused unverified. ``own``:
    these are the very bytes this peer just sealed, so its own signature is not verified again
    (every other check is made)."""
    sender, body, signature = signer(raw)
    who = fingerprint(sender)
    if seated and sender != seated:
        raise ProtocolError("sent a message under another identity: one connection speaks for "
                            "one identity", fingerprint(seated))
    weakness = weak_public_key(sender)
    if weakness:
        raise ProtocolError(f"the sender's key is {weakness}: refused", who)
    if not own and not verify_signature(sender, signature, SIGNING_TAG + body):
        raise BadSignature("the signature does not match: forged or corrupted message", who)
    try:
        return _decode_body(raw, sender, body)
    except ProtocolError as error:
        raise type(error)(error.reason, who) from None


def _decode_body(raw: bytes, sender: bytes, body: bytes) -> Envelope:
    """The signed body, once its signature is known good. Errors are named by the caller."""
    header = unpack(body)
    if type(header) is not dict or set(header) != set(HEADER_FIELDS):
        raise ProtocolError("an envelope body has exactly the fields " + ", ".join(HEADER_FIELDS))
    if pack(header) != body:
        raise ProtocolError("not in canonical encoding (a number or length not in its shortest "
                            "form)")
    if header["from"] != sender:
        raise ProtocolError("the signed sender differs from the envelope's: refused")
    if type(header["v"]) is not int or header["v"] != VERSION:
        raise ProtocolError(f"protocol version {shown(header['v'])}; this client speaks "
                            f"{VERSION}: use the same pageone version as the rest of the table")
    for name, size in (("table", 16), ("prev", 32)):
        if type(header[name]) is not bytes or len(header[name]) != size:
            raise ProtocolError(f"the {name} field must be {size} bytes, not "
                                f"{shown(header[name])}")
    for name in ("hand", "seq"):
        if type(header[name]) is not int or not 0 <= header[name] < 2**32:
            raise ProtocolError(f"the {name} field must be an integer 0 to 2^32-1, not "
                                f"{shown(header[name])}")
    data = validate(header["type"], header["data"])
    return Envelope(raw, sender, header["table"], header["hand"], header["seq"], header["prev"],
                    EntryKind(header["type"]), data)


def genesis(table: bytes) -> bytes:
    return tagged_hash(label("genesis"), table)


def extend(head: bytes, raw: bytes) -> bytes:
    """The log head after appending the envelope ``raw``."""
    return tagged_hash(label("chain"), head, raw)


class ChainVerifier:
    """Checks each envelope of one table in log order: sender, table, hand, sequence, chain."""

    def __init__(self, table: bytes, members: list[bytes]) -> None:
        self.table = table
        self.members = set(members)
        self.hand = 0
        self.head = genesis(table)
        self._heads: dict[bytes, int] = {self.head: 0}
        self._next_seq = dict.fromkeys(members, 0)
        self._last_prev = dict.fromkeys(members, 0)
        self._last_entry: dict[bytes, int] = {}
        self.length = 0

    def admit(self, member: bytes) -> None:
        self.members.add(member)
        self._next_seq.setdefault(member, 0)
        self._last_prev.setdefault(member, 0)

    def leave(self, member: bytes) -> None:
        """``member`` speaks no more; its counters stay, so if it comes back its messages go on
        from where they stopped and none of its old ones can be replayed."""
        self.members.discard(member)

    def start_hand(self, hand: int) -> None:
        self.hand = hand

    def check(self, raw: bytes, env: Envelope | None = None) -> tuple[Envelope, int]:
        """Every check of ``accept`` without changing anything; returns the envelope and the
        log position of the head it extends."""
        env = env or open_envelope(raw)
        who = fingerprint(env.sender)
        if env.sender not in self.members:
            raise UnknownSender("is not seated at this table", who)
        if env.table != self.table:
            raise WrongTable("signed this message for another table", who)
        if env.hand != self.hand:
            raise OldHand(f"signed this message for hand {env.hand}; this is hand {self.hand}",
                          who)
        expected = self._next_seq[env.sender]
        if env.seq < expected:
            raise Replayed(f"sequence number {env.seq} was used already (next is {expected})",
                           who)
        if env.seq > expected:
            raise OutOfOrder(f"sequence number {env.seq} skips {expected}: a message is missing",
                             who)
        at = self._heads.get(env.prev)
        if at is None or at < self._last_prev[env.sender]:
            raise BrokenChain(f"{NEVER_SAW}: the host dropped or reordered messages, or the "
                              "log forked", who)
        return env, at

    def accept(self, raw: bytes, env: Envelope | None = None) -> Envelope:
        """Open, check and append; raises a ``ProtocolError`` subclass naming the sender."""
        env, at = self.check(raw, env)
        self._next_seq[env.sender] += 1
        self._last_prev[env.sender] = at
        self._last_entry[env.sender] = self.length
        self.head = extend(self.head, raw)
        self.length += 1
        self._heads[self.head] = self.length
        return env

    def forget_before(self, length: int) -> None:
        """Heads before the first ``length`` entries are no longer extended by anyone (each
        author's last ``prev`` is past them): let them go, so the heads kept stay few."""
        self._heads = {head: at for head, at in self._heads.items() if at >= length}

    def earliest_head(self, member: bytes) -> bytes:
        """The oldest head ``member``'s next envelope may extend (its last ``prev``)."""
        floor = self._last_prev.get(member, 0)
        return min(((at, head) for head, at in self._heads.items() if at >= floor),
                   default=(self.length, self.head))[1]

    def position(self, head: bytes) -> int | None:
        """How many entries the log had when its head was ``head`` (None: never this log's)."""
        return self._heads.get(head)

    def head_at(self, length: int) -> bytes | None:
        """The head after the log's first ``length`` entries (None: beyond it, or forgotten)."""
        return next((head for head, at in self._heads.items() if at == length), None)

    def last_entry(self, member: bytes) -> int:
        """The log position of ``member``'s last envelope (-1: none)."""
        return self._last_entry.get(member, -1)

    def next_seq(self, member: bytes) -> int:
        return self._next_seq.get(member, 0)

    def last_prev(self, member: bytes) -> int:
        """The log position ``member``'s last envelope was sealed at (0: none yet)."""
        return self._last_prev.get(member, 0)
