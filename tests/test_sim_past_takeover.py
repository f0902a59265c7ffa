"""The Byzantine simulator runs on past a takeover (the new host's sequencer, the others
reaching it at its endpoint), and what it found there on its first runs: each seed fails on the
code before its fix."""

from __future__ import annotations

import pytest

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.audit.compare import compare
from p2p_pageone.byzantine.runner import run
from p2p_pageone.byzantine.scenario import make
from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.crypto.statements import open_statement
from p2p_pageone.session.client import CHALLENGE_AGAIN_WITHIN, WELCOME_WITHIN, Client
from p2p_pageone.session.logsync import from_host, next_from_host
from p2p_pageone.wire.codec import frame

from .test_reattach import _mid_hand
from .test_takeover_split import FRIEND, FriendNextInLine

PAST_TAKEOVER = {
    # a seat back on a connection to the old host, which kept it waiting, took the new host's
    # takeover from the others and then the old host's next entry from that connection: the
    # audit named the honest new host for it. It also passed the new host on the clock alone
    # while it was away from it, and the next successor took over too
    "reads-the-old-host": 2,
    # a new host on a slow link (2 s each way): the others gave up on its challenge after the
    # 2 s a known host's machine gets, passed it, and the next successor took over with the
    # first one's own statement; comparing the logs named an honest successor
    "slow-new-host": 181,
    # the old host took the seats back just after they handed their statements over: the new
    # host, which nobody joined, blamed its own network
    "nobody-came": 195,
    # a seat that found the host unanswered and every other seat refused (their pageones gone)
    # blamed its own network, which carried the refusals
    "refused-is-an-answer": 39,
    # once an honest seat took over, the coalition's joiners come to the new host too (the
    # simulator itself fell over adding them mid-tick, first found here)
    "the-coalition-follows": 348,
    # the old host's claim about its successor (a timeout for its shuffle pass) was still open
    # when that successor took over: the witness round went on at the new table, the new host
    # was judged gone on its old host's word and removed itself, and the next takeover's log
    # named it. A takeover now ends the old host's claims (the hand they were about is void)
    "an-old-claim-about-the-new-host": 1499,
}


@pytest.mark.parametrize("name", sorted(PAST_TAKEOVER))
def test_what_the_simulator_found_past_a_takeover_keeps_every_invariant(name: str) -> None:
    result = run(make(PAST_TAKEOVER[name]))
    assert result.verdicts == [], [v.text for v in result.verdicts]


def test_a_takeover_is_run_on_to_the_end_of_the_game() -> None:
    result = run(make(PAST_TAKEOVER["reads-the-old-host"]))
    assert result.taken_over and result.verdicts == []


def test_a_connection_to_the_old_host_is_left_once_the_log_moves_to_a_new_one() -> None:
    t = _mid_hand()
    session = t.sessions[2]
    client = t.clients[1]
    session.host_key = session.keys[1]  # the takeover came from the others, on the mesh
    client.tick(t.now)
    assert "moved to p1" in session.attachment.dropped
    before = len(session.log)
    client._entry(before, session.log[-1], t.now)  # the old host's next entry: not taken
    assert len(session.log) == before


def test_what_a_host_the_log_left_sent_ahead_is_dropped() -> None:
    t = _mid_hand()
    session = t.sessions[2]
    index = len(session.log)
    assert not from_host(session, index + 1, session.log[-1], t.now)  # waits behind a gap
    session.host_key = session.keys[1]
    assert next_from_host(session) == b"" and not session.mesh.host_ahead


def test_a_new_host_gets_as_long_for_its_challenge_as_a_first_host() -> None:
    t = _mid_hand()
    session = t.sessions[2]
    assert Client(session, t.now).challenge_within == CHALLENGE_AGAIN_WITHIN
    session.attachment.via_successor = True
    assert Client(session, t.now).challenge_within == WELCOME_WITHIN


def test_two_takeovers_where_neither_ceded_name_nobody() -> None:
    # two successors each took over on a majority's statements naming it, and neither's own
    # statement for the other stands in the other's takeover (an honest race, SPEC §8): the
    # split names nobody. Built from the friend's two tables, seat 2's takeover signed again
    # without the friend's statement
    table = FriendNextInLine(5, -1.0, {4: 20.0}, fast_host=True)
    table.run(limit=600.0)
    logs = [list(table.s[p].log) for p in (2, 4)]
    at = next(i for i, (a, b) in enumerate(zip(*logs, strict=False)) if a != b)
    env, seat_2 = open_envelope(logs[0][at]), table.s[2]
    friend = table.s[FRIEND].identity.public
    lost = [raw for raw in env.data["lost"] if open_statement(raw, "lost").sender != friend]
    again = seal(seat_2.identity, env.table, env.hand, env.seq, env.prev, "takeover",
                 {**env.data, "lost": lost})
    logs[0] = [*logs[0][:at], again]
    audits = [audit_bytes(b"".join(frame(raw) for raw in log)) for log in logs]
    result = compare(["p2", "p4"], logs, audits)
    assert result.relation == "split" and result.host_seat == -1, result.text
