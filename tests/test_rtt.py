"""The silence threshold adapts to each link's measured round trip (protocol/SPEC.md §7,
"Timeouts and leavers"; session/rtt.py): a slow or lossy link is not taken for a dead one, and a
dead peer is still noticed within the cap."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.engine import make_settings
from p2p_pageone.net.proxy import Link
from p2p_pageone.session import rtt
from p2p_pageone.session.memory import MemoryTable, SlowLinkTable
from p2p_pageone.session.rtt import SILENT_CAP, SILENT_FACTOR, RoundTrip, ping, pong
from p2p_pageone.wire.codec import ProtocolError
from p2p_pageone.wire.messages import validate_control

from .test_liveness import until_playing

samples = st.lists(st.floats(0, 120, allow_nan=False), min_size=1, max_size=60)


@given(samples, st.floats(0.5, 100))
def test_the_estimate_stays_within_the_samples_and_the_threshold_within_its_bounds(
        rtts: list[float], floor: float) -> None:
    link = RoundTrip()
    assert link.silent_after(floor) == floor  # no sample yet: the floor alone
    for sample in rtts:
        link.sample(sample)
        assert link.srtt is not None
        assert min(rtts) - 1e-9 <= link.srtt <= max(rtts) + 1e-9
        assert 0 <= link.rttvar <= max(rtts[0] / 2, max(rtts) - min(rtts)) + 1e-9
        limit = link.silent_after(floor)
        assert floor <= limit <= max(floor, SILENT_CAP)
        assert limit >= min(SILENT_CAP, SILENT_FACTOR * link.srtt) - 1e-9


@given(st.floats(0.001, 5), st.integers(40, 80))
def test_a_steady_link_converges_to_its_round_trip(rtt_s: float, count: int) -> None:
    link = RoundTrip()
    for _ in range(count):
        link.sample(rtt_s)
    assert link.srtt == pytest.approx(rtt_s)
    assert link.rttvar < rtt_s / 2 * 0.75 ** (count - 1) + 1e-12  # the variance dies away
    expected = max(10, min(SILENT_CAP, SILENT_FACTOR * link.timeout()))
    assert link.silent_after(10) == pytest.approx(expected)


@given(st.lists(st.floats(0.01, 0.05), min_size=20, max_size=20), st.floats(2, 30))
def test_a_late_echo_raises_the_threshold_at_once(quick: list[float], late: float) -> None:
    """One round trip that took a back-off is enough to widen the threshold."""
    link = RoundTrip()
    for sample in quick:
        link.sample(sample)
    link.sample(late)  # SRTT gains late/8, RTTVAR at least (late - 0.05)/4
    assert link.silent_after(1.0) >= min(SILENT_CAP, SILENT_FACTOR * (1.125 * late - 0.05))


def test_one_echo_is_awaited_at_a_time_and_a_stall_forgets_it() -> None:
    link = RoundTrip()
    first = link.probe(0.0)
    assert first == 0 and link.probe(1.0) is None  # still awaited: the next ping is plain
    link.echoed(7, 1.5)  # an echo of nothing asked is ignored
    assert link.samples == 0
    link.echoed(first, 2.0)
    assert link.samples == 1 and link.srtt == 2.0
    second = link.probe(3.0)
    assert second == 1
    link.forget_probe()  # this process stalled: the echo would time the stall
    link.echoed(second, 40.0)
    assert link.samples == 1 and link.probe(41.0) == 2


@given(st.sampled_from(["ping", "pong"]), st.dictionaries(
    st.sampled_from(["n", "extra"]),
    st.one_of(st.booleans(), st.integers(-5, 2**33), st.floats(allow_nan=False)),
    max_size=2))
def test_an_echo_carries_exactly_one_number(kind: str, fields: dict[str, Any]) -> None:
    value = {"control": kind, **fields}
    number = type(fields.get("n")) is int and 0 <= fields["n"] < 2**32
    good = set(fields) <= {"n"} and ("n" not in fields or number) and (
        kind == "ping" or "n" in fields)
    if good:
        assert validate_control(value, ("ping", "pong")) == kind
    else:
        with pytest.raises(ProtocolError):
            validate_control(value, ("ping", "pong"))


# --- a whole table over a slow, lossy link --------------------------------------------------------

LOSSY = Link(delay=0.05, loss=0.3)  # 50 ms one way, 30 % of first transmissions lost
SEED = 5  # its draws include back-offs of 12.6 s (a burst lost six times running)



def lossy_table(seed: int, link: Link = LOSSY, deals: int = 3) -> SlowLinkTable:
    """Three peers; both joiners' links go through the proxy's model of ``link``."""
    rng = random.Random(seed)
    return SlowLinkTable(make_settings("classic", {"deals": deals}), 3, seed, {1, 2},
                         link.delay, lambda: link.retransmission_wait(rng), step_timeout=60.0)


def lost_or_away(t: MemoryTable) -> list[str]:
    """Every sign that a live, honest link was taken for a dead one."""
    host = t.sessions[0]
    signs = [f"{open_envelope(raw).kind}: {open_envelope(raw).data}" for raw in host.log
             if open_envelope(raw).kind in ("away", "timeout")]
    signs += [f"joiner {i}: {s.attachment.dropped or s.ended}"
              for i, s in enumerate(t.sessions[1:], 1)
              if s.attachment.dropped or s.ended]
    return signs



def test_a_lossy_link_once_dropped_at_the_fixed_threshold_now_plays_through(
        monkeypatch: pytest.MonkeyPatch) -> None:
    t = lossy_table(SEED)
    t.run(limit=3600, dt=0.1)
    assert t.longest > 10.0  # the link went silent for longer than the floor
    assert lost_or_away(t) == []
    assert all(s.game_over and not s.ended for s in t.sessions), [s.ended for s in t.sessions]
    assert all(s.log == t.sessions[0].log for s in t.sessions)
    assert t.clients[0].rtt.samples > 10 and t.sequencer.links[1].rtt.samples > 10
    assert t.clients[0].rtt.silent_after(10.0) > 10.0  # measured: the threshold grew

    monkeypatch.setattr(rtt, "SILENT_FACTOR", 0.0)  # as before: the fixed 10 s
    fixed = lossy_table(SEED)
    fixed.run(limit=3600, dt=0.1)
    assert lost_or_away(fixed), "the same link was not dropped at the fixed threshold"


def test_a_dead_host_is_still_noticed_within_the_cap() -> None:
    t = lossy_table(SEED)
    host = t.sessions[0]
    while not (host.game is not None and host.game.deal.moves > 3):
        t.advance(t.now + 0.1)
    widest = max(c.rtt.silent_after(10.0) for c in t.clients)
    assert widest > 10.0  # the joiners wait longer than the floor on this link
    t.sequencer.tick = lambda now: None  # type: ignore[method-assign]  # the host dies:
    t.sequencer.receive = lambda conn, data, now: None  # type: ignore[method-assign]
    for queue in t.queues.values():
        queue.clear()
    died = t.now
    while not all(s.attachment.dropped or s.ended for s in t.sessions[1:]):
        t.advance(t.now + 0.1)
        assert t.now - died <= SILENT_CAP + 0.5, "a dead host went unnoticed past the cap"
    for joiner in t.sessions[1:]:  # its silence, or a step of its it never took (45 s)
        assert "the host" in (joiner.attachment.dropped or joiner.ended)
    assert t.now - died > 10.0  # not at the floor: the link had shown longer silences


def test_the_silence_threshold_is_capped_however_slow_the_link_seemed() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=6)
    until_playing(t)
    client = t.clients[0]
    client.step_limit = 1e9  # only the silence can tell
    for _ in range(5):
        client.rtt.sample(40.0)  # round trips of 40 s: 32 of them would be 21 min
    assert client.rtt.silent_after(10.0) == SILENT_CAP
    t.kill(1)  # nothing reaches it from now on
    heard = client.last_seen
    while not client.session.ended and t.now - heard < 2 * SILENT_CAP:
        t.now += 0.1
        client.tick(t.now)
    assert SILENT_CAP < t.now - heard <= SILENT_CAP + 0.2
    assert f"the host sent nothing for {SILENT_CAP:.0f} s" in client.session.ended


def test_each_side_echoes_the_others_ping_at_once() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=3)
    for _ in range(30):  # the lobby and the first hand, 0.1 s at a time
        t.advance(t.now + 0.1)
    assert all(c.rtt.samples > 0 for c in t.clients)
    assert all(link.rtt.samples > 0 for link in t.sequencer.links.values())
    assert all(c.rtt.srtt == 0.0 for c in t.clients)  # instant links: round trips of nothing
    client = t.clients[0]
    client.out.clear()
    client.receive(ping(77), t.now)
    assert pong(77) in client.out
    t.sequencer.out.clear()
    t.sequencer.receive(1, ping(78), t.now)
    assert t.sequencer.out == [(1, pong(78))]


def test_was_it_me_still_holds_when_the_links_thresholds_differ() -> None:
    """The host's own network goes down while one player is on a slow link: the players on fast
    links pass their threshold first, but all are silent at once, so nobody is dropped; the
    table closes naming nobody once every link is past its own threshold."""
    t = MemoryTable(make_settings("classic", {"deals": 1}), 4, seed=45)
    until_playing(t)
    slow = t.sequencer.links[1]
    slow.rtt.srtt, slow.rtt.rttvar = 1.25, 0.0  # as measured on a slow link
    assert t.sequencer.silent_after_for(slow) == pytest.approx(40.0)
    assert t.sequencer.silent_after_for(t.sequencer.links[2]) == 10.0
    host = t.sessions[0]
    host.take_events()
    for _ in range(70):  # 35 s: every link is down at the host's end; only the host runs
        t.now += 0.5
        t.sequencer.tick(t.now)
    kinds = [open_envelope(raw).kind for raw in host.log]
    assert "timeout" not in kinds and "away" not in kinds and not host.ended
    assert any("no player has been heard for 1" in e.text for e in host.take_events())
    for _ in range(12):  # past 40 s: the slow link too is past its own threshold
        t.now += 0.5
        t.sequencer.tick(t.now)
    assert "this machine's network is most likely down" in host.local
    assert "timeout" not in [open_envelope(raw).kind for raw in host.log]


def test_a_silent_player_is_still_dropped_while_a_slow_one_is_heard() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 4, seed=45)
    until_playing(t)
    slow = t.sequencer.links[1].rtt
    slow.srtt, slow.rttvar = 1.25, 0.0  # a slow link, heard
    t.kill(2)  # a fast link that died
    host = t.sessions[0]
    while 2 not in host.away and t.now < 60:
        t.advance(t.now + 0.5)
    away = [open_envelope(raw).data for raw in host.log if open_envelope(raw).kind == "away"]
    assert away and away[0]["seat"] == 2 and away[0]["why"] == "sent nothing for 10 s"


def test_the_floor_is_a_visible_option_of_host_and_join(capsys: pytest.CaptureFixture[str]) -> None:
    from p2p_pageone.cli.main import build_parser

    parser = build_parser()
    for command in ("host", "join"):
        assert parser.parse_args([command, "--silent-after", "25"]).silent_after == 25.0
        assert parser.parse_args([command]).silent_after == 10.0
        with pytest.raises(SystemExit):
            parser.parse_args([command, "--silent-after", "0.5"])
        assert "at least 2 seconds" in capsys.readouterr().err
        with pytest.raises(SystemExit):
            parser.parse_args([command, "--help"])
        assert "--silent-after S" in capsys.readouterr().out
