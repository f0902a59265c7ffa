"""A takeover out of place is judged for its majority first (review helper-38, I2).

A takeover that does not sit right after its ``prev`` ends a seat's table naming nobody
(``fold/presence.check_takeover``); asked before the majority, that let a dishonest old host and
one dishonest seat (any listening seat may sign a takeover) need no majority at all:

4 seats: p0 the host and p3, DISHONEST (2 of 4); p1, p2 honest. The host never stopped.
1. p3 seals a ``takeover`` of p0 against the log's head h_k, carrying only its own ``lost``
   statement (no majority: that alone names p3, ``took the table over without a majority``).
2. p0 appends a ``say`` of its own at k, then streams p3's takeover at k+1 with its receipt.
3. Every honest seat folded the takeover one place after its prev and ended "nobody can be
   named", the host never replaced. Now the majority is judged first: they name p3.

``control``: the same takeover right after its prev: the honest seats name p3 or p0. Since a
peer names a host that receipts another seat's takeover (``logsync.anothers_takeover``: an
honest host never appends one), both now name p0, whose receipt came with the takeover.
"""

from __future__ import annotations

import pytest

from p2p_pageone.byzantine import memo
from p2p_pageone.byzantine.deeds import host_appends
from p2p_pageone.byzantine.invariants import Outcome, removed_honest, watch
from p2p_pageone.byzantine.world import Frame, SimTable
from p2p_pageone.crypto.envelope import extend, seal
from p2p_pageone.crypto.statements import seal_statement
from p2p_pageone.engine import make_settings
from p2p_pageone.session.logsync import entry_frame
from p2p_pageone.session.receipts import sign_receipt
from p2p_pageone.wire.codec import frame as wire_frame

PLAYERS, FRIEND, HONEST = 4, 3, [1, 2]


@pytest.mark.parametrize("mode", ["control", "out_of_place"])
@pytest.mark.parametrize("seed", [0, 1])
def test_a_takeover_without_majority_names_its_signer_wherever_it_sits(seed: int,
                                                                       mode: str) -> None:
    state = {"mute": False}

    def route(fr: Frame, now: float) -> list[tuple[float, bytes]]:
        if state["mute"] and fr.src == 0 and fr.channel == "down":
            return []
        return [(0.0, fr.data)]

    with memo.installed():
        t = SimTable(make_settings("classic", {"deals": 2}), PLAYERS, seed, route=route)
        t.corrupt = {0, FRIEND}
        t.connect_honest(HONEST)
        notes = {p: watch(t.sessions[p]) for p in HONEST}
        host, friend = t.sequencer.host, t.sessions[FRIEND]
        start, done = -1, False
        while t.now < 300:
            t.advance(t.now + 0.25)
            if host.game is None:
                continue
            start = len(host.log) if start < 0 else start
            if done:
                continue
            if (len(host.log) - start < 15 or host.claims or friend.chain is None
                    or any(len(t.sessions[p].log) != len(host.log) for p in (*HONEST, FRIEND))):
                continue
            chain = friend.chain
            index, prev = chain.length, chain.head  # the log's head h_k, as all hold it
            if mode == "out_of_place":
                assert host_appends(t, "say", {"text": "one line first"}, t.now)
                t.step()  # its stream frames go out first
            own = seal_statement(friend.identity, "lost", {
                "table": friend.table_id, "host": friend.host_key, "index": index,
                "head": prev, "why": "nothing", "for": friend.identity.public})
            takeover = seal(friend.identity, friend.table_id, friend.hand,
                            friend.chain.next_seq(friend.identity.public), prev, "takeover",
                            {"seat": friend.host_seat, "window": 60, "lost": [own]})
            assert host.chain is not None
            at = len(host.log)
            receipt = sign_receipt(host.identity, host.table_id, at + 1,
                                   extend(host.chain.head, takeover))
            for p in HONEST:
                t._enqueue("down", 0, p, wire_frame(entry_frame(at, takeover, receipt)), 0.0,
                           t.links.conn_of(p))
            t.step()
            state["mute"] = done = True  # p0 sends nothing more on its stream
            for _ in range(20):
                t.advance(t.now + 0.25)
            break
        assert done
        named = {p: notes[p].named for p in HONEST}
        ended = {p: t.sessions[p].ended for p in HONEST}
        outcome = Outcome(t.sessions, HONEST, notes, {0, FRIEND}, set(), False, 0.0)
        removed = removed_honest(outcome)
        # the host that receipted another seat's takeover is named as it comes (the session),
        # or p3 for a takeover no majority asked for (the fold): a dishonest party either way
        assert all(named[p] and {seat for seat, _ in named[p]} <= {0, FRIEND} for p in HONEST), (
            f"neither p0 nor p3 named: {named}; ended {ended}; "
            f"I2 verdicts {[r.text for r in removed]}")
