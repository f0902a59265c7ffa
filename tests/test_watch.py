"""Watchers (protocol/SPEC.md §7, "Watchers"): a watcher folds the whole public log as it comes,
with the same checks as a seated peer; its verdict and final state are the audit's; it gets
nothing but the public log; a cheat is named live exactly as the audit names it; a host takes
no more watchers than it allows, and a watcher that sends anything is dropped."""

from __future__ import annotations

from typing import Any

import pytest

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.audit.compare import compare
from p2p_pageone.audit.live import LiveAudit
from p2p_pageone.audit.logfile import read_frames
from p2p_pageone.crypto.envelope import seal
from p2p_pageone.engine import make_settings
from p2p_pageone.session.common import Event
from p2p_pageone.session.fold.table import TableState
from p2p_pageone.session.logsync import entry_frame
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.session.watch import Watcher
from p2p_pageone.wire.codec import FrameDecoder, frame, unpack

from .cheats import Lenient, RenegeBot, table_with, verdict
from .helpers import forked_frame, host_frame

CONTROLS_TO_A_WATCHER = {"challenge", "watching", "ping", "pong"}


def framed(log: object) -> bytes:
    return b"".join(frame(raw) for raw in log)  # type: ignore[attr-defined]


def watch_live(t: MemoryTable, watcher: Watcher, limit: float) -> tuple[LiveAudit, list[Event]]:
    """Run the table, folding each entry the watcher gets as it comes (after every step)."""
    live, shown = LiveAudit(), []
    while not t.finished() and t.now < limit:
        while t.step():
            for raw in watcher.take_entries():
                shown += live.add(raw)
        t.advance(t.now + 0.5)
        for raw in watcher.take_entries():
            shown += live.add(raw)
    while t.step():
        pass
    for raw in watcher.take_entries():
        shown += live.add(raw)
    return live, shown


def spy_on(watcher: Watcher) -> list[Any]:
    """Every frame the watcher will get, decoded, in order."""
    frames: list[Any] = []
    decoder, receive = FrameDecoder(), watcher.receive

    def spied(data: bytes, now: float) -> None:
        frames.extend(unpack(payload) for payload in decoder.feed(data))
        receive(data, now)

    watcher.receive = spied  # type: ignore[method-assign]
    return frames


def assert_only_the_public_log(watcher: Watcher, frames: list[Any], host: TableState) -> None:
    """Every frame the watcher got is the host's log entry at its place, or a control frame
    that carries nothing of a seat's (no welcome, no refusal, no keys sent to a seat)."""
    entries = 0
    for value in frames:
        assert isinstance(value, dict)
        if value["control"] == "entry":
            assert value["index"] == entries and value["raw"] == host.log[entries]
            entries += 1
        else:
            assert value["control"] in CONTROLS_TO_A_WATCHER, value
    assert entries == len(host.log) and watcher.log == list(host.log)


@pytest.mark.parametrize("rules, options, players", [("classic", {"deals": 2}, 4),
                                                     ("qdan", {}, 6)])
def test_a_watcher_folds_a_whole_game_and_agrees_with_the_audit(
        rules: str, options: dict[str, Any], players: int) -> None:
    t = MemoryTable(make_settings(rules, options), players, seed=5, direct=True)
    watcher = t.watch(b"w" * 32)
    frames = spy_on(watcher)
    live, shown = watch_live(t, watcher, 24 * 3600)
    host = t.sessions[0]
    assert host.game_over and live.state.game_over and live.audit.fault is None
    assert not watcher.ended
    assert_only_the_public_log(watcher, frames, host)
    audit = live.final()
    assert audit.verdict == "OK" and audit_bytes(framed(host.log)).verdict == "OK"
    assert verdict(live.conclude()) == verdict(audit)
    game, seen = host.game, live.state.game
    assert game is not None and seen is not None
    assert seen.totals == game.totals and seen.places == game.places
    assert [h.cards for h in live.state.history] == [h.cards for h in host.history]
    kinds = [e.kind for e in shown]
    assert "game_over" in kinds and "fault" not in kinds


def test_a_renege_is_named_live_by_the_watcher_as_the_audit_names_it() -> None:
    for seed in range(50, 60):
        cheat = RenegeBot()
        t = table_with(make_settings("classic", {"deals": 3}), 3, seed=seed,
                       doubles={2: Lenient}, bots={2: cheat})
        watcher = t.watch(b"w" * 32)
        live, shown = watch_live(t, watcher, 600)
        if cheat.done:
            break
    else:
        raise AssertionError("the cheat never found its chance")
    audit = audit_bytes(framed(watcher.log))
    assert audit.verdict == "FAIL" and audit.fault is not None and audit.fault.seat == 2
    assert live.audit.verdict == "FAIL" and live.audit.fault is not None
    assert (live.audit.fault.entry, live.audit.fault.seat, live.audit.fault.step,
            live.audit.fault.reason) == (audit.fault.entry, 2, audit.fault.step,
                                         audit.fault.reason)
    assert verdict(live.conclude()) == verdict(audit)
    faults = [e.text for e in shown if e.kind == "fault"]
    assert faults == [f"FAIL at entry {audit.fault.entry} ({audit.fault.step}): p2 (seat 2, "
                      f"{audit.fault.fingerprint}) {audit.fault.reason}"]


def test_a_host_takes_no_more_watchers_than_it_allows() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=5)
    t.sequencer.watchers = 2
    first, second, third = (t.watch(bytes([n]) * 32) for n in range(3))
    while t.step():
        pass
    assert first.answered and second.answered and not third.answered
    assert "2 watchers, as many as it takes" in third.ended
    t.sequencer.watchers = 0
    late = t.watch(b"x" * 32)
    while t.step():
        pass
    assert late.ended == "the host would not let us watch: this table takes no watchers"


def test_a_watcher_that_sends_an_envelope_is_dropped_and_the_table_goes_on() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=5)
    watcher = t.watch(b"w" * 32)
    while t.step():
        pass
    conn = next(iter(t.watchers))
    assert conn in t.sequencer.links
    t.sequencer.receive(conn, frame(t.sessions[0].log[0]), t.now)
    assert conn not in t.sequencer.links and watcher.answered
    t.run(limit=3600)
    assert t.sessions[0].game_over


def test_a_watcher_on_a_new_connection_checks_the_log_sent_again() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=5)
    watcher = t.watch(b"w" * 32)
    for _ in range(30):
        t.step()
    held = len(watcher.log)
    assert held > 3
    watcher.reconnect(t.now)
    for index, raw in enumerate(list(t.sessions[0].log)[:held]):
        watcher.receive(frame(entry_frame(index, raw)), t.now)
    assert watcher.checked == held and not watcher.ended
    watcher.reconnect(t.now)
    watcher.receive(frame(entry_frame(0, t.sessions[0].log[1])), t.now)  # another log
    assert "differs" in watcher.ended


def test_a_host_that_shows_its_watcher_another_history_is_named_by_the_comparison() -> None:
    t = MemoryTable(make_settings("qdan"), 3, seed=73)
    watcher = t.watch(b"w" * 32)
    while not (t.sessions[0].game is not None and t.sessions[0].hand_moves):
        if not t.step():
            t.advance(t.now + 0.5)
    host = t.sessions[0]
    assert host.chain is not None
    position = len(host.log)
    other = seal(host.identity, host.table_id, host.hand, host.chain.next_seq(
        host.identity.public), host.chain.head, "say", {"text": "for the watcher"})
    host.say("for the seats")
    host.flush(t.now)
    t.sequencer._pump(t.now)
    said = host_frame(t.sequencer, position, host.log[position])
    instead = forked_frame(host, host.log[:position], other)
    conn = next(iter(t.watchers))
    t.sequencer.out = [(c, instead if c == conn and data == said else data)
                       for c, data in t.sequencer.out]
    live, shown = watch_live(t, watcher, t.now + 3600)
    # live: the seats' next entries extend a head the watcher never saw: the host is named
    assert live.audit.fault is not None and live.audit.fault.seat == 0, live.audit.fault
    assert any(e.kind == "fault" and "p0 (seat 0" in e.text for e in shown)
    seat = framed(t.sessions[1].log)
    watched = framed(watcher.log)
    audits = [audit_bytes(seat), audit_bytes(watched)]
    result = compare(["seat", "watcher"], [read_frames(seat).entries,
                                           read_frames(watched).entries], audits)
    assert result.relation == "fork" and result.fork_entry == position and not result.ok
    assert result.host_seat == 0 and "p0 (seat 0" in result.text


def test_a_watcher_chats_only_if_the_host_allows_it_rate_limited_and_never_in_the_log() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=5)
    watcher = t.watch(b"w" * 32)
    while t.step():
        pass
    log = len(t.sessions[0].log)
    watcher.say("good luck")
    while t.step():
        pass
    assert watcher.take_chat() == ["not said: this table does not take chat from watchers (the "
                                   "host allows it with --watcher-chat)"]
    t.sequencer.watcher_chat = True
    for n in range(6):
        watcher.say(f"line {n}")
    while t.step():
        pass
    # a seat is never shown a watcher's line: it would have only the host's word for it
    assert not [e.text for e in t.sessions[1].take_events() if e.kind == "say"]
    heard = [e.text for e in t.sessions[0].take_events() if e.kind == "say"]  # the host's own
    assert len(heard) == 5 and heard[0].endswith("(watching): line 0"), heard
    said = watcher.take_chat()  # its own lines, as the host took them
    assert said[:5] == [f"you (watching): line {n}" for n in range(5)], said
    assert said[5].startswith("not said: chat is limited")
    assert not any(b"line 0" in raw or b"good luck" in raw  # no chat line is in the log
                   for raw in t.sessions[0].log[log:])
