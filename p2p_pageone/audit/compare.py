"""Several peers' logs of one table: identical, one a prefix of another, or a fork.

Every honest peer writes the entries in the order the sequencer relayed them, so two logs of one
table agree wherever both go. Two different entries at one position mean the sequencer showed
the peers different tables: shown with both entries, and with what the host signed of each
history (protocol/SPEC.md §9): its receipts, that is an entry of its own whose ``prev`` (or, for
a ``head``, whose signed head) is a head of that log past the fork, or its own two different
entries under one sequence number. The chain makes a head stand for every entry before it, so
two such receipts are the host's signature on two different tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..crypto.envelope import extend, genesis, open_envelope
from ..crypto.identity import fingerprint
from ..crypto.statements import open_statement
from ..wire.codec import ProtocolError
from ..wire.kinds import KIND_RULES, EntryKind
from .check import Audit

RELATIONS = ("identical", "prefix", "split", "fork", "other tables")


@dataclass
class Comparison:
    relation: str  # one of RELATIONS
    text: str
    fork_entry: int = -1
    entries: list[dict[str, Any]] = field(default_factory=list)  # the two entries of a fork
    host_seat: int = -1
    receipts: list[dict[str, Any]] = field(default_factory=list)  # host-signed, per forked log
    signed: bool = False  # the host's own signatures show the fork

    @property
    def ok(self) -> bool:
        return self.relation in ("identical", "prefix", "split")


def describe_entry(raw: bytes, names: dict[bytes, str]) -> dict[str, Any]:
    """Who signed an entry, its type and sequence number: enough to find it in each log."""
    try:
        env = open_envelope(raw)
    except ProtocolError as error:
        return {"type": "?", "author": "", "fingerprint": "", "seq": -1,
                "note": f"unreadable: {error}"}
    return {"type": env.kind.value, "author": names.get(env.sender, ""),
            "fingerprint": fingerprint(env.sender), "seq": env.seq, "hand": env.hand}


def compare(paths: list[str], logs: list[list[bytes]], audits: list[Audit]) -> Comparison:
    longest = max(range(len(logs)), key=lambda i: len(logs[i]))
    base = logs[longest]
    if any(log[:1] != base[:1] for log in logs):
        return Comparison("other tables", "these logs do not start with the same table "
                          "description: they are not of one table")
    state = audits[longest].state
    names = dict(zip(state.keys, state.names, strict=False)) if state else {}
    shorter: list[str] = []
    for path, log in zip(paths, logs, strict=True):
        at = next((i for i, (a, b) in enumerate(zip(log, base, strict=False)) if a != b), -1)
        if at >= 0:
            first, second = describe_entry(base[at], names), describe_entry(log[at], names)
            in_office = _host_at(base, at)
            pair = _takeovers_from(at, [base, log], in_office)
            if pair and (named := _ceded_and_took_over(
                    at, [paths[longest], path], pair, audits[longest], in_office)):
                return named
            if (first["type"] == "takeover") != (second["type"] == "takeover"):
                return _split(at, [(paths[longest], first), (path, second)])
            if first["type"] == second["type"] == "takeover" and (
                    first["fingerprint"] != second["fingerprint"]):
                return _two_takeovers(at, [(paths[longest], first), (path, second)])
            key = _host_at(base, at)  # the sequencer then: a takeover hands the order on
            if first["type"] == second["type"] == "takeover":  # its successor, signing twice
                key = open_envelope(base[at]).sender
            host = state.seat_of(key) if state else -1
            who = state.who(host) if state else "the host"
            receipts = [r for r in (_receipt(paths[longest], base, at, key),
                                    _receipt(path, log, at, key)) if r is not None]
            twice = (first["fingerprint"] == second["fingerprint"] == fingerprint(key)
                     and first["seq"] == second["seq"] >= 0)
            signed = twice or len(receipts) == 2
            return Comparison(
                "fork", f"fork at entry {at}: {paths[longest]} has {_entry_text(first)}, "
                f"{path} has {_entry_text(second)}; the sequencer, host {who}, showed "
                f"the peers two different tables{_evidence_text(twice, receipts)}", at, [
                    {"log": paths[longest], **first}, {"log": path, **second}], host,
                receipts, signed)
        if len(log) < len(base):
            shorter.append(f"{path} stops after {len(log)} entries")
    moves = _moves(base, names)
    if shorter:
        side = _before_move(min(len(log) for log in logs), moves)
        return Comparison("prefix", f"the logs agree; {', '.join(shorter)} of "
                          f"{len(base)} ({side or 'its peer stopped early'})"
                          + "".join(f"; {text}" for _, text in moves))
    return Comparison("identical", f"the {len(logs)} logs are identical ({len(base)} entries)"
                      + "".join(f"; {text}" for _, text in moves))


def _moves(log: list[bytes], names: dict[bytes, str]) -> list[tuple[int, str]]:
    """Each takeover of the log: where, and on whose word the table moved (SPEC §7)."""
    found = []
    for index, raw in enumerate(log):
        try:
            env = open_envelope(raw)
        except ProtocolError:
            continue
        if env.kind == EntryKind.TAKEOVER:
            who = f"{names.get(env.sender, '?')} ({fingerprint(env.sender)})"
            lost = env.data.get("lost", [])
            found.append((index, f"at entry {index} the table moved to {who} " + (
                f"by a majority of the seats ({len(lost)} signed that they lost the host)"
                if lost else "on the host's own word (it handed the table over)")))
    return found


def _before_move(length: int, moves: list[tuple[int, str]]) -> str:
    """A log that ends at or before a takeover of the longer one: the old host's side."""
    later = [index for index, _ in moves if index >= length]
    if not later:
        return ""
    return (f"it ends before the takeover at entry {later[0]}: the old host's side, a prefix "
            "of the table that moved on, not a fork")


def _host_at(log: list[bytes], at: int) -> bytes:
    """The key of the table's sequencer when entry ``at`` was appended."""
    host = b""
    for raw in log[:at]:
        try:
            env = open_envelope(raw)
        except ProtocolError:
            continue
        if KIND_RULES[env.kind].makes_host:
            host = env.sender
    return host


def _split(at: int, forks: list[tuple[str, dict[str, Any]]]) -> Comparison:
    """A takeover where one log goes on without it: the host was cut off from the table (its
    players took the table on with a new host) or the successor from the host. Each side played
    on honestly with whom it could reach: nobody is named (SPEC §7, "Failover")."""
    (took, entry), (stayed, _) = sorted(forks, key=lambda f: f[1]["type"] != "takeover")
    return _split_of(f"there {took} has the table taken over by {_by(entry)} by a majority of "
                     f"the seats, and {stayed} goes on without it, on the old host's side (a host "
                     "cut off from most of its table that did not notice before this entry)",
                     at, forks)


def _takeovers_from(at: int, logs: list[list[bytes]], host: bytes) -> list[bytes]:
    """Each log's first ``takeover`` at or after ``at``, the fork, if both have one, by two
    successors, of the host in office there ([] if not): a successor may put entries of its own
    ahead of its takeover, so the logs part before it."""
    found = []
    for log in logs:
        raw = next((raw for raw in log[at:]
                    if describe_entry(raw, {})["type"] == EntryKind.TAKEOVER), b"")
        found.append(raw)
    if not all(found):
        return []
    one, two = (open_envelope(raw) for raw in found)
    if one.sender == two.sender or host in (one.sender, two.sender):
        return []
    return found


def _ceded_and_took_over(at: int, paths: list[str], raws: list[bytes], audit: Audit,
                         host: bytes) -> Comparison | None:
    """Two takeovers of ``host`` after the fork, one of them carrying the other successor's
    own ``lost`` statement of that host naming it, a successor after the other in line: the
    other ceded the table to it (SPEC §7, "Failover") and took it over all the same. It is
    named (None: neither did)."""
    state = audit.state
    if state is None:
        return None
    names = dict(zip(state.keys, state.names, strict=False))
    envs = [open_envelope(raw) for raw in raws]
    entries = [describe_entry(raw, names) for raw in raws]
    for one, other in ((0, 1), (1, 0)):
        taker, carrier = envs[one].sender, envs[other].sender
        if state.seat_of(taker) >= state.seat_of(carrier):
            continue
        for raw in envs[other].data["lost"]:
            try:
                word = open_statement(raw, "lost")
            except ProtocolError:
                continue
            if (word.sender == taker and word.data["for"] == carrier
                    and word.data["host"] == host and word.data["table"] == envs[one].table):
                seat = state.seat_of(taker)
                return Comparison(
                    "fork", f"fork at entry {at}: {paths[one]} has the table taken over by "
                    f"{_by(entries[one])} and {paths[other]} by {_by(entries[other])}, "
                    f"whose takeover carries {state.who(seat)}'s own signed word that it lost "
                    "the host, naming the other as its successor: it ceded the table and took "
                    "it over all the same", at,
                    [{"log": path, **e} for path, e in zip(paths, entries, strict=True)],
                    seat, [], True)
    return None


def _two_takeovers(at: int, forks: list[tuple[str, dict[str, Any]]]) -> Comparison:
    """Two successors each took the table over at the same place, each on a majority's
    ``lost`` statements naming it (a seat that passed one successor by signs for the next: an
    honest race, SPEC §8, "Open"). Neither ceded to the other: nobody is named."""
    (one, first), (other, second) = forks
    return _split_of(f"there {one} has the table taken over by {_by(first)} and {other} by "
                     f"{_by(second)}, each on the word of a majority of the seats: two tables, "
                     "and neither successor signed both", at, forks)


def _split_of(text: str, at: int, forks: list[tuple[str, dict[str, Any]]]) -> Comparison:
    return Comparison("split", f"the logs agree up to entry {at}; {text}; nobody is to blame",
                      at, [{"log": path, **e} for path, e in forks])


def _by(entry: dict[str, Any]) -> str:
    return f"{entry['author'] or '?'} ({entry['fingerprint']})"


def _entry_text(entry: dict[str, Any]) -> str:
    if entry["type"] == "?":
        return f"an unreadable entry ({entry['note']})"
    return f"{entry['type']} #{entry['seq']} by {entry['author'] or '?'} ({entry['fingerprint']})"


def _receipt(path: str, log: list[bytes], at: int, host_key: bytes) -> dict[str, Any] | None:
    """The host's first signature on this log's history past entry ``at``: an entry of its own
    whose ``prev`` (or signed ``head``) is the head after entry ``at`` or a later one."""
    if not log or not host_key:
        return None
    try:
        head = genesis(open_envelope(log[0]).table)
    except ProtocolError:
        return None
    seen = {head: 0}
    for index, raw in enumerate(log):
        head = extend(head, raw)
        seen[head] = index + 1
        if index < at:
            continue
        try:
            env = open_envelope(raw)
        except ProtocolError:
            continue
        if env.sender != host_key:
            continue
        signs = seen.get(env.data["head"], 0) if env.kind == EntryKind.HEAD else 0
        signs = max(signs, seen.get(env.prev, 0))
        if signs > at:
            return {"log": path, "entry": index, "type": env.kind.value, "seq": env.seq,
                    "hand": env.hand, "covers": signs}
    return None


def _evidence_text(twice: bool, receipts: list[dict[str, Any]]) -> str:
    if twice:
        return ": both entries are its own, signed under one sequence number"
    if len(receipts) == 2:
        one, two = receipts
        return ("; it signed both: " + "; ".join(
            f"{r['log']} entry {r['entry']} ({r['type']} #{r['seq']}) extends its head after "
            f"entry {r['covers'] - 1}" for r in (one, two)))
    return (" (its receipt past the fork is missing from a log: the entries are shown, "
            "unsigned by the host)")
