"""A new host that takes the old host's last entries from the others (a review found it):
honest faults only. The host's last entry reaches one seat alone before the host's machine goes
off, and that seat's pageone is stopped for a while. The first successor signs its `lost`
statement at its shorter log and takes over once the seat is back and hands the entry over.
Sealed as it was, its own statement was then older than its own last entry in the log (the
takeover itself), and every peer's fold of the takeover named it; with a longer stop, the seats
that took the entry from the others named the honest old host for a fork."""

from __future__ import annotations

import pytest

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.wire.codec import frame

from .test_late_takeover import LateTakeover, Line

HOLDER = 3


class LastEntryWithOneSeat(LateTakeover):
    """Five seats; the host's last entry (its notice that seat 2's connection closed) goes to
    seat 3 alone, whose pageone then runs nothing, on no link, for ``stall`` seconds."""

    def __init__(self, stall: float) -> None:
        self.now = 0.0
        super().__init__(5, {})
        self.stall_until = self.start + stall
        t = self.table
        t.sequencer.disconnect(2, self.start)
        t.sequencer._pump(self.start)
        out, t.sequencer.out = t.sequencer.out, []
        for conn, data in out:
            if conn == HOLDER:
                t.clients[conn - 1].receive(data, self.start)
        client = self.lines[2].client
        assert client is not None
        client.gone = True
        client.closed()

    def before(self, now: float) -> None:
        self.now = now

    def linked(self, a: int, b: int) -> bool:
        return (HOLDER not in (a, b) or self.now >= self.stall_until) and super().linked(a, b)

    def tick(self, p: int, line: Line, now: float) -> None:
        if p != HOLDER or now >= self.stall_until:
            super().tick(p, line, now)


@pytest.mark.parametrize("stall", [12.0, 15.0, 18.0])
def test_a_new_host_that_took_the_last_entries_from_a_peer_signs_its_word_again(
        stall: float) -> None:
    table = LastEntryWithOneSeat(stall)
    table.run(limit=600.0)
    assert table.host == 1 and len(table.seqs) == 1
    for p in range(1, 5):
        session = table.s[p]
        assert session.game_over and not session.ended, (p, session.ended)
        assert audit_bytes(b"".join(frame(raw) for raw in session.log)).fault is None


def test_seats_ahead_of_the_new_host_leave_it_naming_nobody() -> None:
    # stopped longer, seat 3 comes back once seat 1 has taken over without the host's last
    # entry, which seats 2 and 4 took from seat 3 on the mesh: the new host's log is not a
    # part of theirs. They leave it, naming nobody (not the old host: it forked nothing)
    table = LastEntryWithOneSeat(20.0)
    table.run(limit=600.0)
    for p in range(1, 5):
        session = table.s[p]
        assert "fork" not in session.ended, (p, session.ended)
        assert audit_bytes(b"".join(frame(raw) for raw in session.log)).fault is None
