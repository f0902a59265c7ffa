"""A takeover's `lost` statements are judged against the log before it, as its sequencer judged
them (review helper-24): a statement one entry ahead of the new host's log named the takeover's
own position once the takeover was folded, and every fold, the new host's own included, refused
an honest takeover and named the new host."""

from __future__ import annotations

import os
from typing import Any

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.crypto.statements import seal_statement
from p2p_pageone.session.handover import take_lost_statement
from p2p_pageone.wire.codec import frame

from .test_late_takeover import LateTakeover
from .test_takeover_split import FRIEND, NEVER, FriendNextInLine

AHEAD = 4


class OneEntryAhead(LateTakeover):
    """Seat 4 alone got the old host's last entry (its machine went off mid-broadcast), hands
    its statement, one entry ahead of the others' logs, to the first successor, and stops."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.one_more_entry_for(AHEAD)


class AheadFromAFriend(FriendNextInLine):
    """The host's friend next in line hands seat 2 a statement one entry ahead of its log,
    with a head nobody's log has."""

    def before(self, now: float) -> None:
        friend, two = self.s[FRIEND], self.s[2]
        if not self.gave and two.attachment.dropped and two.chain is not None:
            word = seal_statement(friend.identity, "lost", {
                "table": two.table_id, "host": two.host_key, "index": two.chain.length + 1,
                "head": os.urandom(32), "why": "the host went silent",
                "for": two.identity.public})
            self.gave = not take_lost_statement(two, friend.identity.public, word)


def _clean(table: LateTakeover, seats: tuple[int, ...]) -> None:
    for p in seats:
        session = table.s[p]
        assert not session.ended, (p, session.ended)
        assert audit_bytes(b"".join(frame(raw) for raw in session.log)).fault is None


def test_a_statement_one_entry_ahead_from_an_honest_seat_names_nobody() -> None:
    table = OneEntryAhead(5, {2: 25.0, 3: 25.0}, stop={AHEAD: 20.0})
    assert len(table.s[AHEAD].log) == len(table.s[1].log) + 1
    table.run(limit=600.0)
    assert table.host == 1
    _clean(table, (1, 2, 3))
    assert all(table.s[p].game_over for p in (1, 2, 3))


def test_a_statement_one_entry_ahead_from_a_friend_names_nobody() -> None:
    table = AheadFromAFriend(5, NEVER, fast_host=True)
    table.run(limit=600.0)
    assert table.gave and 2 in table.seqs
    _clean(table, (2, 3, 4))
