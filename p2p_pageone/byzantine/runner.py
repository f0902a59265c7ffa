"""Run a scenario, check the invariants, shrink a plan that breaks one."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, replace

from ..crypto.envelope import open_envelope, seal
from ..engine.moves import Call, IllegalMove
from ..session.fold.obligations import BOUNDS
from ..session.peer import PeerSession
from ..wire.codec import FrameDecoder, ProtocolError, frame
from ..wire.kinds import EntryKind
from . import memo
from .adversary import FRAME_RULES, Action, Adversary, Rule
from .deeds import do, fake_tail, misorder_takeover, misplace
from .frames import matches
from .invariants import STUCK, Outcome, Verdict, Watchful, check, stalled_by_a_move, watch
from .rejoin import SILENT_AFTER
from .scenario import Scenario
from .world import Frame, SimTable

DT = 0.5
LIMIT = 3600.0  # simulated seconds a run may take at most
CALL_WINDOW = 4.0  # the Page One window of a run aimed at a call (a friend catches within it)


@dataclass
class Result:
    scenario: Scenario
    verdicts: list[Verdict]
    fired: list[Action] = field(default_factory=list)
    seconds: float = 0.0  # simulated
    entries: int = 0
    crashed: str = ""  # an honest party's exception
    stalled: str = ""  # out of scope: the table waits for a dishonest seat's move
    taken_over: bool = False  # an honest seat took the table over


def _lying_witness(table: SimTable) -> object:
    """How a lying coalition witness rewrites its ``witness`` entry: it withholds what it holds
    (``value`` 0) or presents a stale statement instead (``value`` 1)."""

    def rewrite(action: Action, frame_: Frame, data: bytes) -> bytes:
        try:
            payloads = FrameDecoder().feed(data)
        except ProtocolError:
            return data
        session = table.sessions[action.actor]
        out = []
        for payload in payloads:
            env = open_envelope(payload)
            if env.kind == "witness":
                heard = b"" if not action.value else _stale(session, env.data["seat"])
                payload = seal(session.identity, env.table, env.hand, env.seq, env.prev,
                               "witness", {**env.data, "heard": heard})
            out.append(frame(payload))
        return b"".join(out)

    return rewrite


def _stale(session: PeerSession, seat: int) -> bytes:
    """The seat's oldest entry in the log: a statement of it, long out of date."""
    key = session.keys[seat] if 0 <= seat < len(session.keys) else b""
    return next((raw for raw in session.log if open_envelope(raw).sender == key), b"")


def run(scenario: Scenario, plan: tuple[Action, ...] | None = None) -> Result:
    with memo.installed():
        return _run(scenario, scenario.plan if plan is None else plan)


def _run(scenario: Scenario, plan: tuple[Action, ...]) -> Result:
    adversary = Adversary(scenario.corrupt, list(plan))
    table = SimTable(scenario.settings(), scenario.players, scenario.table_seed,
                     route=adversary.route, window=_window(scenario, plan))
    table.corrupt = set(scenario.corrupt)
    adversary.rewrite = _lying_witness(table)
    honest = [p for p in range(scenario.players) if p not in scenario.corrupt]
    table.connect_honest(honest)
    notes = {p: watch(table.sessions[p]) for p in honest}
    crashed, start, grown_at, length = "", -1, 0.0, 0
    played_at, steps = 0.0, Played(table.sessions[honest[0]])
    played = steps.count()
    tried: set[tuple[int, int, int]] = set()
    flapped: dict[int, float] = {}  # a flapping seat: when it last dropped its connection
    pending = list(plan)
    try:
        while table.now < LIMIT:
            host = table.sequencer.host
            if start < 0 and host.game is not None:
                start = len(host.log)
            _deeds_when_due(table, adversary, tried, flapped)
            _call_late(table, honest + _misplacing(plan), tried)
            for action in [a for a in pending if start >= 0 and len(host.log) - start >= a.at]:
                pending.remove(action)
                if action.kind in FRAME_RULES or action.kind in ("catch", "hold_in", "flap",
                                                                 "fake_tail", "misplace",
                                                                 "misorder"):
                    adversary.rules.append(Rule(action, table.now))
                elif not do(table, action, table.now):
                    continue
                adversary.fired.append(action)
            grown = sum(len(table.sessions[p].log) for p in honest)
            if grown != length:
                grown_at, length = table.now, grown
            if (counted := steps.count()) != played:
                played_at, played = table.now, counted
            if _all_done(table, honest, notes) or table.now - grown_at > STUCK:
                break
            table.advance(table.now + DT)
            for party in honest:  # it came back: it did not leave the table after all
                if notes[party].left_host and table.links.back_in(party):
                    notes[party].left_host = ""
    except Exception as error:  # an honest party fell over: a finding in itself
        crashed = f"{type(error).__name__}: {error}"
    outcome = Outcome(table.sessions, honest, notes, _corrupt_seats(table, scenario),
                      _faulted(plan), _all_done(table, honest, notes), table.now - grown_at,
                      played_for=table.now - played_at,
                      calls=table.calls, catches=_catches_that_stood(table, honest),
                      host_gone=(0 in scenario.corrupt and table.gone(0))
                      or table.stopped(0, table.now),
                      taken_over=bool(table.links.takeovers),
                      retrying={p for p in honest if not table.links.done(p)},
                      moves_withheld=_moves_withheld(table, scenario, adversary.fired))
    verdicts = check(outcome) if not crashed else [Verdict("crash", crashed)]
    stalled = stalled_by_a_move(outcome) if not (crashed or outcome.finished) else ""
    return Result(scenario, verdicts, adversary.fired, table.now, len(table.sessions[0].log),
                  crashed, stalled, outcome.taken_over)


def _catches_that_stood(table: SimTable, honest: list[int]) -> list[tuple[float, int,
                                                                           tuple[int, int]]]:
    """The catches the game took: not one whose witnesses held the call first (that call
    counted instead, in every honest fold)."""
    void = {raw for party in honest for raw in table.sessions[party].void_catches}
    return [catch for raw, catch in table.catches.items() if raw not in void]


def _deeds_when_due(table: SimTable, adversary: Adversary, tried: set[tuple[int, int, int]],
                    flapped: dict[int, float]) -> None:
    """The live rules that do something when the moment comes (not rules on frames)."""
    _catch_when_owed(table, adversary, tried)
    _flap_when_due(table, adversary, flapped)
    _forge_when_quiet(table, adversary, tried)
    _misplace_when_behind(table, adversary, tried)
    _misorder_when_taken_over(table, adversary, tried)


def _catch_when_owed(table: SimTable, adversary: Adversary,
                     tried: set[tuple[int, int, int]]) -> None:
    """A live ``catch`` rule: the coalition seat catches its target each time the target owes
    a Page One call (the host, if corrupt too, may be holding that call)."""
    game = table.sequencer.host.game
    if game is None:
        return
    for rule in adversary.rules:
        action = rule.action
        moment = (table.sequencer.host.hand, game.deal.moves, action.target)
        if (action.kind != "catch" or not rule.live(table.now) or moment in tried
                or game.deal.open_miss != action.target):
            continue
        seen = adversary.seen.setdefault(moment, table.now)
        if table.now - seen >= action.value:  # it waits, so a held call looks forgotten
            tried.add(moment)
            do(table, action, table.now)


def _flap_when_due(table: SimTable, adversary: Adversary, flapped: dict[int, float]) -> None:
    """A live ``flap`` rule: its seat, back at the table, drops its connection again once
    ``value`` seconds have passed since it last did."""
    for rule in adversary.rules:
        seat = rule.action.actor
        if (rule.action.kind == "flap" and rule.live(table.now) and not table.gone(seat)
                and table.now - flapped.get(seat, -1e9) >= rule.action.value
                and (seat not in table.links.lines or table.links.back_in(seat))):
            flapped[seat] = table.now
            table.links.flap(seat)


def _forge_when_quiet(table: SimTable, adversary: Adversary,
                      tried: set[tuple[int, int, int]]) -> None:
    """A live ``fake_tail`` rule: once its victim has had nothing from the host for the time
    after which the mesh's word once sufficed, the coalition shows it an entry (once a place)."""
    for rule in adversary.rules:
        action = rule.action
        victim = table.sessions[action.target] if action.kind == "fake_tail" else None
        if victim is None or not rule.live(table.now) or victim.ended:
            continue
        moment = (victim.hand, len(victim.log), -100 - action.target)
        if (table.now - victim.mesh.host_entry_at > BOUNDS.relay_after + 0.5
                and moment not in tried):
            tried.add(moment)
            fake_tail(table, action)


def _misplace_when_behind(table: SimTable, adversary: Adversary,
                          tried: set[tuple[int, int, int]]) -> None:
    """A live ``misplace`` rule: while its victim is behind an entry that does not sit right
    after its ``prev``, the coalition seat serves it that entry at its ``prev``'s place (once
    for each length of the victim's log)."""
    for rule in adversary.rules:
        action = rule.action
        victim = table.sessions[action.target] if action.kind == "misplace" else None
        if victim is None or not rule.live(table.now) or victim.ended:
            continue
        moment = (victim.hand, len(victim.log), -200 - action.target)
        if moment not in tried and misplace(table, action):
            tried.add(moment)


def _misorder_when_taken_over(table: SimTable, adversary: Adversary,
                              tried: set[tuple[int, int, int]]) -> None:
    """A live ``misorder`` rule: once an honest seat has taken the table over, the old host
    appends its takeover out of place (once)."""
    for rule in adversary.rules:
        moment = (-1, -1, -300)
        if (rule.action.kind == "misorder" and moment not in tried
                and misorder_takeover(table, table.now)):
            tried.add(moment)


def _window(scenario: Scenario, plan: tuple[Action, ...]) -> float:
    """The Page One window the host keeps: in a run aimed at a call, and in one where a seat
    serves entries out of place (the window holds moves while other entries go in first)."""
    aimed = scenario.strategy == "call" or any(a.kind == "misplace" for a in plan)
    return CALL_WINDOW if aimed else 0.0


def _misplacing(plan: tuple[Action, ...]) -> list[int]:
    """Coalition seats that serve entries out of place: they make a call they forgot late, so
    that the window for it holds the next move while the call goes in first."""
    return sorted({a.actor for a in plan if a.kind == "misplace"})


def _call_late(table: SimTable, honest: list[int], tried: set[tuple[int, int, int]]) -> None:
    """An honest player who forgot its Page One call makes it late, as a person would type
    ``pageone`` (a CPU player never does): a call the host can hold until a catch."""
    for party in honest:
        session = table.sessions[party]
        game = session.game
        moment = (session.hand, game.deal.moves if game else -1, -1 - party)
        if (game is None or session.ended or session.game_over or moment in tried
                or game.deal.open_miss != session.me):
            continue
        tried.add(moment)
        with contextlib.suppress(IllegalMove):
            session.request(Call(session.me))


NOT_PLAY = frozenset({EntryKind.SAY, EntryKind.HEARTBEAT, EntryKind.TIMEOUT, EntryKind.AWAY,
                      EntryKind.BACK, EntryKind.WITNESS})  # claims, presence, chat


class Played:
    """How far the game has got in an honest log: its entries that are steps of the game (a
    table whose claims keep falling grows, but not by these)."""

    def __init__(self, session: PeerSession) -> None:
        self.session, self.read, self.steps = session, 0, 0

    def count(self) -> int:
        log = self.session.log
        for index in range(self.read, len(log)):
            self.steps += open_envelope(log[index]).kind not in NOT_PLAY
        self.read = len(log)
        return self.steps


def _all_done(table: SimTable, honest: list[int], notes: dict[int, Watchful]) -> bool:
    """Every honest peer's game is over, or it ended, or it left the host and stopped trying
    (a new host's own session included: the run goes on past a takeover)."""
    return all(table.sessions[p].game_over or table.sessions[p].ended or table.stopped(p, table.now)
               or (notes[p].left_host and table.links.done(p)) for p in honest)


def _corrupt_seats(table: SimTable, scenario: Scenario) -> set[int]:
    ref = next(s for i, s in enumerate(table.sessions) if i not in scenario.corrupt)
    return {ref.seat_of(table.sessions[p].identity.public) for p in scenario.corrupt}


def _moves_withheld(table: SimTable, scenario: Scenario, fired: list[Action]) -> set[int]:
    """The dishonest seats an action that fired keeps a move of from some peer. A delay longer
    than the host waits on a silent seat keeps the move back too: the frames behind it on the
    stream wait with it, the host drops the seat before the move arrives, and the seat's return
    sends it again behind the same delay (seed 20536)."""
    ref = next(s for i, s in enumerate(table.sessions) if i not in scenario.corrupt)
    return {ref.seat_of(table.sessions[a.actor].identity.public) for a in fired
            if (a.kind in ("withhold", "stall", "friend_only")
                or (a.kind == "delay" and a.value >= SILENT_AFTER))
            and any(matches(cls, a.pattern) for cls in ("entry:move", "relay:move", "mesh:move"))}


def _faulted(plan: tuple[Action, ...]) -> set[int]:
    hit: set[int] = set()
    for action in plan:
        if action.kind in ("stop", "link_stall", "slow"):
            hit.add(action.actor)
            if action.target >= 0:
                hit.add(action.target)
    return hit


def shrink(scenario: Scenario, result: Result, budget: int = 40) -> tuple[Action, ...]:
    """The smallest plan (of those fired) that still breaks the same invariant."""
    wanted = {v.invariant for v in result.verdicts}
    plan = tuple(result.fired) or scenario.plan
    tries = 0
    changed = True
    while changed and tries < budget:
        changed = False
        for index in range(len(plan)):
            candidate = plan[:index] + plan[index + 1:]
            tries += 1
            if _breaks(scenario, candidate, wanted):
                plan, changed = candidate, True
                break
    for index, action in enumerate(plan):
        if action.span < 1e8 or tries >= budget:
            continue
        shorter = (*plan[:index], replace(action, span=40.0), *plan[index + 1:])
        tries += 1
        if _breaks(scenario, shorter, wanted):
            plan = shorter
    return plan


def _breaks(scenario: Scenario, plan: tuple[Action, ...], wanted: set[str]) -> bool:
    return any(v.invariant in wanted for v in run(scenario, plan).verdicts)
