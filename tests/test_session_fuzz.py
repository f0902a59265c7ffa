"""A seated peer sending any well-formed but wrong message never crashes the table: the sequencer
refuses it, or every peer ends the table naming that peer."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p_pageone.crypto.envelope import seal
from p2p_pageone.engine import make_settings
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.wire.codec import frame, pack, unpack

B32 = st.binary(min_size=32, max_size=32)
POINT = st.tuples(st.sampled_from([b"\x02", b"\x03", b"\x04"]), B32).map(b"".join)
PASS = st.fixed_dictionaries({"deck": st.sampled_from(["1/main", "1/re1", "x"]),
                              "points": st.lists(POINT, max_size=3),
                              "commits": st.lists(POINT, max_size=1),
                              "proof": st.binary(max_size=100)})
SLOTS = st.lists(st.integers(0, 120), min_size=1, max_size=3)
MESSAGES: dict[str, Any] = {
    "ready": st.just({}),
    "seed_commit": st.fixed_dictionaries({"commit": B32}),
    "seed_reveal": st.fixed_dictionaries({"seed": B32}),
    "coin_reveal": st.fixed_dictionaries({"nonce": B32}),
    "shuffle": PASS,
    "lock": PASS,
    "expel": st.fixed_dictionaries({"seat": st.integers(0, 2), "reason": st.just("x"),
                                    "evidence": st.binary(max_size=40)}),
    "keys": SLOTS.flatmap(lambda s: st.fixed_dictionaries({
        "deck": st.sampled_from(["1/main", "1/re1"]), "positions": st.just(s),
        "keys": st.lists(B32, min_size=len(s), max_size=len(s))})),
    "move": SLOTS.flatmap(lambda s: st.fixed_dictionaries({
        "kind": st.sampled_from(["play", "draw", "call", "catch"]), "positions": st.just(s),
        "cards": st.lists(st.integers(0, 52), min_size=len(s), max_size=len(s)),
        "keys": st.lists(B32, min_size=len(s), max_size=len(s)), "call": st.booleans(),
        "colour": st.just(-1), "target": st.integers(-1, 2)})),
    "seat": st.fixed_dictionaries({"seat": st.integers(0, 2), "key": B32, "name": st.just("x")}),
    "timeout": st.fixed_dictionaries({"seat": st.integers(0, 2), "waited_for": st.just("x")}),
    "bye": st.fixed_dictionaries({"reason": st.just("bye")}),
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 400), st.sampled_from(sorted(MESSAGES)).flatmap(
    lambda k: st.tuples(st.just(k), MESSAGES[k])))
def test_a_wrong_message_is_refused_or_names_its_sender(
    steps: int, message: tuple[str, dict[str, Any]]
) -> None:
    kind, data = message
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=steps % 5)
    for _ in range(steps):
        if not table.step():
            break
    liar = table.sessions[2]
    if liar.chain is None or liar.ended or liar.game_over:
        return
    raw = seal(liar.identity, liar.table_id, liar.hand, liar.chain.next_seq(liar.identity.public),
               liar.chain.head, kind, data)
    table.sequencer.receive(2, frame(raw), table.now)
    refused = [unpack(f[4:]) for conn, f in table.sequencer.out if conn == 2 and
               isinstance(unpack(f[4:]), dict)]
    table.run(limit=table.now + 60)
    for session in table.sessions[:2]:
        assert session.game_over or session.ended
        if session.ended and not refused:
            assert "p2 (seat 2" in session.ended, session.ended


def test_refusal_frames_are_maps() -> None:
    assert unpack(pack({"control": "refused", "seq": 0, "reason": "x"}))["control"] == "refused"
