"""The adversary's one-shot deeds and the honest faults, done on a ``SimTable``.

A dishonest host signs what it likes and appends it (bypassing its own checks); a coalition seat
seals what it likes at its next sequence number. A deed that cannot be made now (no game, a
field the wire refuses) is skipped: it returns False.
"""

from __future__ import annotations

from typing import Any

from ..crypto.envelope import Envelope, extend, open_envelope, seal
from ..crypto.statements import seal_statement
from ..session.client import PING
from ..session.logsync import entry_frame
from ..session.peer import PeerSession
from ..session.receipts import sign_receipt
from ..wire.codec import ProtocolError, frame, pack
from .adversary import HOST_ENTRIES, Action
from .world import HOST, HonestFault, SimTable


def sealed_by(session: PeerSession, kind: str, data: dict[str, Any]) -> Envelope | None:
    chain = session.chain
    if chain is None:
        return None
    try:
        raw = seal(session.identity, session.table_id, session.hand,
                   chain.next_seq(session.identity.public), chain.head, kind, data)
    except ProtocolError:
        return None
    return open_envelope(raw)


def host_appends(table: SimTable, kind: str, data: dict[str, Any], now: float) -> bool:
    env = sealed_by(table.sequencer.host, kind, data)
    if env is None:
        return False
    table.guarded(HOST, lambda: table.sequencer._append(env, now))
    return True


def _victim_envelope(table: SimTable, victim: int) -> bytes:
    host = table.sequencer.host
    key = host.keys[victim] if 0 <= victim < len(host.keys) else b""
    for raw in reversed(list(host.log)):
        if open_envelope(raw).sender == key:
            return raw
    return b""


def _host_entry(table: SimTable, action: Action, now: float) -> bool:
    victim, kind = action.target, action.kind
    if kind == "false_timeout":
        return host_appends(table, "timeout", {"seat": victim, "waited_for": "its keys"}, now)
    if kind == "false_away":
        return host_appends(table, "away", {"seat": victim, "why": "its connection closed",
                                            "window": 60}, now)
    if kind == "false_expel":
        return host_appends(table, "expel", {"seat": victim, "reason": "a bad pass",
                                             "evidence": _victim_envelope(table, victim)}, now)
    if kind == "wrong_moment":
        return host_appends(table, "start", {"seats": len(table.sessions)}, now)
    if kind == "claim_hang_up":
        return _claim_hang_up(table, victim, now)
    return _fork(table, victim)


def _claim_hang_up(table: SimTable, victim: int, now: float) -> bool:
    """The host times ``victim`` out and hangs up on it: it reads the claim, then the end of
    its connection, and comes back (its ``back`` takes its next sequence number)."""
    conn = table.links.conn_of(victim)
    if victim <= 0 or conn not in table.links.host_open:
        return False
    if not host_appends(table, "timeout", {"seat": victim, "waited_for": "its keys"}, now):
        return False
    table.guarded(HOST, lambda: table.sequencer._drop(conn, "disconnected", now,
                                                      may_return=True))
    return True


def _fork(table: SimTable, victim: int) -> bool:
    """The host signs a second entry at its next place, and its receipt there, and shows
    them to ``victim`` alone."""
    host = table.sequencer.host
    env = sealed_by(host, "say", {"text": "only you see this"})
    if env is None or victim <= 0 or host.chain is None:
        return False
    at = len(table.sequencer.log)  # the place the host's next real entry takes
    receipt = sign_receipt(host.identity, host.table_id, at + 1, extend(host.chain.head, env.raw))
    table._enqueue("down", HOST, victim, frame(entry_frame(at, env.raw, receipt)), 0.0,
                   table.links.conn_of(victim))
    return True


def _seat_deed(table: SimTable, action: Action, now: float) -> bool:
    actor = table.sessions[action.actor]
    if action.kind == "catch":
        env = sealed_by(actor, "move", {"kind": "catch", "target": action.target,
                                        "positions": [], "cards": [], "keys": [],
                                        "call": False, "colour": -1})
        if env is None:
            return False
        table.send("up", action.actor, HOST, frame(env.raw))
        return True
    if action.kind == "takeover":
        return _takeover(table, actor, action)
    if action.kind == "flood":
        chat = frame(pack({"control": "chat", "text": "x" * 100}))
        for _ in range(int(action.value) or 200):
            table.send("up", action.actor, HOST, PING)
            table.send("up", action.actor, HOST, chat)
        return True
    return _replay(table, actor, action)


def _takeover(table: SimTable, actor: PeerSession, action: Action) -> bool:
    if actor.chain is None or actor.game is None:
        return False
    own = seal_statement(actor.identity, "lost", {
        "table": actor.table_id, "host": actor.host_key, "index": actor.chain.length,
        "head": actor.chain.head, "why": "the host went silent", "for": actor.identity.public})
    env = sealed_by(actor, "takeover", {"seat": actor.host_seat, "window": 60, "lost": [own]})
    if env is None:
        return False
    table.send("up", action.actor, HOST, frame(env.raw))
    for other in range(1, len(table.sessions)):
        if other != action.actor:
            table.send("mesh", action.actor, other, env.raw)
    return True


def _replay(table: SimTable, actor: PeerSession, action: Action) -> bool:
    """Old statements and envelopes of the target that the actor holds, shown to everyone."""
    key = actor.keys[action.target] if 0 <= action.target < len(actor.keys) else b""
    stale = [env.raw for _, env in actor.mesh.held.get(key, [])]
    alive = actor.mesh.alive.get(key)
    stale += [alive[1]] if alive else []
    stale += [raw for raw in list(actor.log)[-30:] if open_envelope(raw).sender == key]
    if not stale:
        return False
    for other in range(1, len(table.sessions)):
        for raw in stale:
            if other != action.actor:
                table.send("mesh", action.actor, other, raw)
    for raw in stale:
        table.send("up", action.actor, HOST, frame(pack({"control": "relay", "raw": raw})))
    return True


def fake_tail(table: SimTable, action: Action) -> bool:
    """A coalition seat shows the victim a chat line of its own the host never had, sealed
    against the victim's head, and each coalition seat but the host vouches for it in a signed
    sign of life (SPEC §8, "The seats but the host"): only the host's receipt should count."""
    victim, actor = table.sessions[action.target], table.sessions[action.actor]
    chain = victim.chain
    if chain is None or victim.game is None or victim.ended:
        return False
    fake = seal(actor.identity, victim.table_id, victim.hand,
                chain.next_seq(actor.identity.public), chain.head, "say",
                {"text": "a line the host never had"})
    head, length = extend(chain.head, fake), len(victim.log)
    for seat in sorted(table.corrupt - {HOST}):
        table.send("mesh", seat, action.target, seal_statement(
            table.sessions[seat].identity, "alive",
            {"table": victim.table_id, "index": length + 1, "head": head}))
    table.send("mesh", action.actor, action.target, entry_frame(length, fake))
    return True


def misplace(table: SimTable, action: Action) -> bool:
    """A coalition seat serves its victim over the mesh the log from the victim's end, with
    the host's receipts it holds, up to an entry that does not sit right after its ``prev``
    (the window for a call held the host's own move while other entries went in first, or two
    seats sealed against one head), and serves that entry at its ``prev``'s place; ``value``
    1: then the real entry of that place too, with the host's receipt of it (review helper-36).
    False if the victim is not behind such an entry."""
    victim, actor = table.sessions[action.target], table.sessions[action.actor]
    chain, log = actor.chain, list(actor.log)
    if chain is None or victim.chain is None or victim.ended or actor.table_id != victim.table_id:
        return False
    behind = len(victim.log)
    if log[:behind] != list(victim.log):
        return False
    for index in range(behind + 1, len(log)):
        place = chain.position(open_envelope(log[index]).prev)
        if place is None or not behind <= place < index:
            continue
        receipts = actor.mesh.receipts
        frames = [entry_frame(i, log[i], receipts.get(i + 1, b"")) for i in range(behind, place)]
        frames.append(entry_frame(place, log[index]))
        if action.value:
            frames.append(entry_frame(place, log[place], receipts.get(place + 1, b"")))
        for data in frames:
            table.send("mesh", action.actor, action.target, data)
        return True
    return False


def misorder_takeover(table: SimTable, now: float) -> bool:
    """A dishonest old host that still serves some seats appends the new host's ``takeover``
    (its friends pass it the bytes) behind a line of its own, with its receipt, out of place
    (review helper-37). False until an honest seat has taken the table over."""
    host = table.sequencer.host
    if HOST in table.crashed or host.chain is None:
        return False
    taken = [raw for party in sorted(table.links.takeovers) for raw in table.sessions[party].log
             if open_envelope(raw).kind == "takeover"]
    if not taken or taken[-1] in host.log:
        return False
    if not host_appends(table, "say", {"text": "a line before the new host's takeover"}, now):
        return False
    env = open_envelope(taken[-1])
    table.guarded(HOST, lambda: table.sequencer._append(env, now))
    return True


def honest_fault(table: SimTable, action: Action, now: float) -> bool:
    parties = (action.actor,) if action.target < 0 else (action.actor, action.target)
    kind = {"link_stall": "stall"}.get(action.kind, action.kind)
    table.faults.append(HonestFault(kind, parties, now, now + action.span, action.value))
    return True


def do(table: SimTable, action: Action, now: float) -> bool:
    """Do a one-shot deed or start a fault; False if it could not be done now."""
    if action.kind in (*HOST_ENTRIES, "claim_hang_up"):
        return _host_entry(table, action, now)
    if action.kind in ("catch", "takeover", "flood", "replay"):
        if action.actor in table.crashed:
            return False
        try:
            return _seat_deed(table, action, now)
        except (ProtocolError, ValueError, IndexError):
            return False
    return honest_fault(table, action, now)
