"""The host's receipts (protocol/SPEC.md §7, "Signed order", "The log from the others").

Every ``entry`` frame of the host's stream carries the host's signed statement ``receipt`` =
{``table``, ``index``: the entries up to and including this one, ``head``: the log head after
them}. A joiner checks it against its own log before it folds the entry, keeps it, and sends it
along with the entry to a seat the host leaves behind: that seat takes the entries from the mesh
as far as a receipt of the host's own says, so no peer, nor any number of them, can show it an
order the host did not sign; and the one seat a host still serves can serve every other.
"""

from __future__ import annotations

from ..crypto.envelope import extend, genesis
from ..crypto.identity import Identity
from ..crypto.statements import open_statement, seal_statement
from ..wire.codec import ProtocolError
from .fold.entrylog import EntryLog

KEPT = 512  # receipts kept by count, here and by a joiner (to serve a seat behind)
SPARSE = 16  # a joiner keeps the receipt of every 16th count besides (fewer than a batch)


def keep_newest(kept: dict[int, bytes], count: int, receipt: bytes) -> None:
    """``receipt`` kept by ``count``, with at most ``KEPT`` kept (the oldest put in goes)."""
    kept[count] = receipt
    while len(kept) > KEPT:
        del kept[next(iter(kept))]


def keep_highest(kept: dict[int, bytes], count: int, receipt: bytes) -> None:
    """``receipt`` kept by ``count``: those of the ``KEPT`` highest counts (once ``KEPT`` are
    kept, none lower comes in), and every ``SPARSE``-th. A joiner's receipts are what it serves
    a seat behind and what shows a fork: a host sending old entries again must not push out
    the receipts of the log's end (review helper-42), nor can a host that logs a flood of lines
    sealed against an old head leave a seat far behind with nothing it can be served (every
    batch it is served holds a receipt; review helper-43)."""
    sparse = count % SPARSE == 0
    dense = [c for c in kept if c % SPARSE]
    if not sparse and len(dense) >= KEPT and count not in kept and count < min(dense):
        return
    kept[count] = receipt
    if not sparse and len(dense) + (count not in dense) > KEPT:
        del kept[min(c for c in kept if c % SPARSE)]


def sign_receipt(identity: Identity, table: bytes, index: int, head: bytes) -> bytes:
    return seal_statement(identity, "receipt", {"table": table, "index": index, "head": head})


def receipted_head(raw: bytes, host: bytes, table: bytes, index: int) -> bytes:
    """The head ``raw``, ``host``'s receipt of this table's first ``index`` entries, names;
    else a ``ProtocolError`` that says why it is none."""
    if not raw:
        raise ProtocolError(f"entry {index - 1} came without the host's receipt")
    try:
        receipt = open_statement(raw, "receipt")
    except ProtocolError as error:
        raise ProtocolError(f"the receipt of entry {index - 1} does not open "
                            f"({error.reason})") from None
    data = receipt.data
    if receipt.sender != host or data["table"] != table or data["index"] != index:
        raise ProtocolError(f"the receipt of entry {index - 1} is not the host's, for this "
                            "table and that entry")
    head: bytes = data["head"]
    return head


def receipt_refusal(raw: bytes, host: bytes, table: bytes, index: int, head: bytes) -> str | None:
    """Why ``raw`` is not ``host``'s receipt of this table's first ``index`` entries ending in
    ``head`` (None: it is)."""
    try:
        named = receipted_head(raw, host, table, index)
    except ProtocolError as error:
        return error.reason
    if named != head:
        return f"the host's receipt of entry {index - 1} names another log than the one it sent"
    return None


class HostReceipts:
    """The host's receipts of its own log, signed as its entries go out: the newest few are
    kept (a log sent again to a seat is signed again as it goes), and one head, so memory
    does not grow with the log."""

    def __init__(self, identity: Identity, table: bytes) -> None:
        self.identity, self.table = identity, table
        self.cursor = (0, genesis(table))  # (entries, the head after them)
        self.signed: dict[int, bytes] = {}

    def of(self, log: EntryLog, index: int, raw: bytes = b"") -> bytes:
        """The receipt of the log's entries 0..``index`` (``raw``: entry ``index`` itself, if
        the log does not hold it yet)."""
        count = index + 1
        if count not in self.signed:
            at, head = self.cursor if self.cursor[0] <= count else (0, genesis(self.table))
            for entry in log[at:min(count, len(log))] + ([raw] if count > len(log) else []):
                head = extend(head, entry)
            self.cursor = (count, head)
            keep_newest(self.signed, count, sign_receipt(self.identity, self.table, count, head))
        return self.signed[count]
