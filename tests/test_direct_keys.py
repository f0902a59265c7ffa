"""Keys to their owner, directly (protocol/SPEC.md §7): a joiner's keys envelope for another
joiner's cards goes to that joiner straight away as well as to the host. The owner checks every
key as the fold would and uses it only to open its own cards sooner; the sequencer appends the
owner's next move only once those keys are in the log. The log, and every check of it, is the
same as without."""

from __future__ import annotations

import asyncio
from pathlib import Path

from p2p_pageone.audit.check import audit_bytes
from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.engine import make_settings
from p2p_pageone.engine.deal import UNKNOWN
from p2p_pageone.net.joiner import run_joiner
from p2p_pageone.net.logwriter import LogWriter
from p2p_pageone.net.runner import HostRunner
from p2p_pageone.session.memory import MemoryTable, make_peer
from p2p_pageone.session.peer import PeerSession


def _kinds(session: PeerSession) -> list[str]:
    return [open_envelope(raw).kind for raw in session.log]


def test_owners_open_their_cards_early_and_the_log_is_what_the_fold_accepts() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 2}), 4, seed=5, direct=True)
    held = []
    hold = t.sequencer._submit

    def submit(conn: int, link: object, raw: bytes, now: float) -> bool:
        before = len(t.sequencer.early)
        appended = hold(conn, link, raw, now)  # type: ignore[arg-type]
        held.extend([conn] * (len(t.sequencer.early) - before))
        return appended

    t.sequencer._submit = submit  # type: ignore[method-assign]
    t.run()
    sessions = t.sessions
    assert all(s.game_over and not s.ended for s in sessions), [s.ended for s in sessions]
    assert sum(s.private.opened_early for s in sessions[1:]) > 20  # draws and deals, opened early
    assert held  # a move came before the keys it needs were logged, and waited
    logs = [list(s.log) for s in sessions]
    assert all(log == logs[0] for log in logs)
    assert "expel" not in _kinds(sessions[0])
    report = audit_bytes(b"".join(len(raw).to_bytes(4, "big") + raw for raw in logs[0]))
    assert report.ok, report.fault


def test_a_wrong_key_sent_directly_opens_nothing() -> None:
    t = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=8)
    owner, giver = t.sessions[1], t.sessions[2]
    while not (owner.crypto is not None and owner.game is not None
               and owner.game.deal.hands[owner.me]):
        if not t.step():
            t.advance(t.now + 0.5)
    deck, deal = owner.crypto, owner.game.deal
    assert deck is not None
    slot = next(s for s in deal.hands[owner.me] if deal.known[s] == UNKNOWN
                and not deck.keys_complete(s, but=owner.me))
    label = deck.locate(slot)[0]
    assert giver.chain is not None
    forged = seal(giver.identity, giver.table_id, giver.hand, 99, giver.chain.head, "keys",
                  {"deck": label, "positions": [slot], "keys": [bytes(31) + b"\x07"]})
    owner.direct(forged, t.now)
    assert deal.known[slot] == UNKNOWN and not owner.private.early.keys and not owner.ended
    stranger = make_peer("nobody", "x")
    owner.direct(seal(stranger.identity, owner.table_id, owner.hand, 0, giver.chain.head,
                      "keys", {"deck": label, "positions": [slot], "keys": [bytes(32)]}), t.now)
    # not seated: not even kept
    assert not owner.private.early.pending and not owner.private.early.keys
    t.run()
    assert all(s.game_over and not s.ended for s in t.sessions)


async def _tcp_table(tmp_path: Path) -> list[PeerSession]:
    settings = make_settings("classic", {"deals": 2})
    peers = [make_peer(f"dk/{i}", f"p{i}", host_table=("t", settings, 4) if i == 0 else None)
             for i in range(4)]
    logs = [LogWriter(tmp_path / f"p{i}.log") for i in range(4)]
    runner = HostRunner(peers[0], "127.0.0.1", 0, lambda s, e: None, logs[0])
    port = await runner.start()
    joiners = [asyncio.create_task(run_joiner(peer, "127.0.0.1", port, lambda s, e: None, log,
                                              listen=True))
               for peer, log in zip(peers[1:], logs[1:], strict=True)]
    await runner.run()
    await asyncio.wait_for(asyncio.gather(*joiners), 120)
    for log in logs:
        log.close()
    return peers


def test_over_tcp_joiners_send_each_other_keys_and_every_log_is_the_same(tmp_path: Path) -> None:
    peers = asyncio.run(_tcp_table(tmp_path))
    assert all(s.game_over and not s.ended for s in peers), [s.ended for s in peers]
    assert sum(s.private.opened_early for s in peers[1:]) > 0
    data = [(tmp_path / f"p{i}.log").read_bytes() for i in range(4)]
    assert len(set(data)) == 1
    report = audit_bytes(data[0])
    assert report.ok, report.fault
