"""A run's scenario from its seed: the family and size of the table, who is corrupt (the host
and/or seats, at most half the table with the host counted), a victim, and the adversary's plan,
random or aimed (at one victim, at the witnesses of a claim about it, or at a Page One call)."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from ..engine import make_settings
from ..engine.settings import Settings
from .adversary import FRAME_RULES, HONEST_FAULTS, HOST_ENTRIES, SEAT_DEEDS, Action

SIZES = (3, 4, 4, 4, 5, 6)
PATTERNS = ("*", "entry:", "entry:move", "entry:move/call", "entry:keys", "entry:witness",
            "entry:seed_reveal", "entry:shuffle", "entry:lock", "entry:timeout",
            "control:ping", "control:pong", "control:relay", "relay:", "alive", "mesh:",
            "mesh:keys", "mesh:seed_reveal", "entry:head", "entry:say")
SPANS = (2.0, 6.0, 12.0, 40.0, 1e9)
TABLES = 8  # deals per family and size the runs play over and over (the plan is what varies)
FAILOVERS = 0.3  # runs in which the host is lost mid-game and the table fails over


@dataclass(frozen=True)
class Scenario:
    seed: int
    family: str
    players: int
    corrupt: frozenset[int]
    victim: int
    strategy: str  # "random", "victim", "witnesses", "call"
    plan: tuple[Action, ...]

    @property
    def table_seed(self) -> int:
        return self.seed % TABLES

    def settings(self) -> Settings:
        if self.family == "classic":
            return make_settings("classic", {"deals": 1})
        return make_settings("qdan", {"start_cards": 4})

    def show(self) -> str:
        who = ",".join(f"p{p}" for p in sorted(self.corrupt))
        return (f"seed {self.seed}: {self.family}, {self.players} seats, corrupt {who}, "
                f"victim p{self.victim}, {self.strategy}")


def coalition(rng: random.Random, players: int) -> frozenset[int]:
    limit = players // 2  # at most half, the host counted
    size = rng.randint(1, limit)
    host = rng.random() < 0.75
    seats = rng.sample(range(1, players), size - 1 if host else size)
    return frozenset(([0] if host else []) + seats)


def make(seed: int) -> Scenario:
    rng = random.Random(f"byzantine/{seed}")
    family = "classic" if seed % 2 == 0 else "qdan"
    players = rng.choice(SIZES)
    corrupt = coalition(rng, players)
    honest = [p for p in range(players) if p not in corrupt]
    victim = rng.choice([p for p in honest if p != 0] or honest)
    strategy = rng.choice(("random", "victim", "witnesses", "victim"))
    aim = random.Random(f"byzantine/{seed}/aimed-call")  # its own draws: other plans unchanged
    if 0 in corrupt and len(corrupt) > 1 and aim.random() < 0.3:
        return Scenario(seed, family, players, corrupt, victim, "call",
                        _held_call(aim, corrupt, victim))
    count = rng.choice((1, 2, 2, 3, 4, 6))
    actions = [_action(rng, players, corrupt, victim, strategy) for _ in range(count)]
    if strategy == "witnesses" and 0 in corrupt:
        actions += _at_the_witnesses(rng, players, corrupt, victim)
    actions += _holding_the_call(actions, corrupt)
    hang = random.Random(f"byzantine/{seed}/hang-up")  # its own draws: other plans unchanged
    if 0 in corrupt and hang.random() < 0.25:
        actions += _claim_and_hang_up(hang, victim)
    flapper = random.Random(f"byzantine/{seed}/flap")  # its own draws: other plans unchanged
    if corrupt - {0} and flapper.random() < 0.2:
        actions.append(_flapping(flapper, corrupt))
    forger = random.Random(f"byzantine/{seed}/fake-tail")  # its own draws, as above
    if corrupt - {0} and 0 not in corrupt and forger.random() < 0.6:
        actions.append(_forging(forger, corrupt, victim))
    served = random.Random(f"byzantine/{seed}/misplace")  # its own draws, as above
    if corrupt - {0} and served.random() < 0.25:
        actions += _misplacing(served, corrupt, victim)
    gone = random.Random(f"byzantine/{seed}/failover")  # its own draws: other plans unchanged
    if gone.random() < FAILOVERS:
        actions += _host_gone(gone, players, corrupt)
        actions = _misordering(random.Random(f"byzantine/{seed}/misorder"), players, corrupt,
                               actions)
    plan = tuple(sorted(actions, key=lambda a: a.at))
    return Scenario(seed, family, players, corrupt, victim, strategy, plan)


def _host_gone(rng: random.Random, players: int, corrupt: frozenset[int]) -> list[Action]:
    """The host is lost mid-game, so that the table fails over and plays on under a new host:
    an honest host's pageone stops for good; a dishonest one goes silent to every seat, or to
    all but a friend. Now and then an honest seat's link is slow too, or a seat stops soon
    after (the new host, maybe)."""
    at = rng.choice((2, 8, 16, 32, 48, 64))
    if 0 not in corrupt:
        out = [Action("stop", at, 0, -1, span=1e9)]
    else:
        friends = sorted(corrupt - {0})
        target = rng.choice(friends) if friends and rng.random() < 0.4 else -1
        kind = "friend_only" if target >= 0 else "withhold"
        out = [Action(kind, at, 0, target, "*", 1e9)]
    honest = [p for p in range(1, players) if p not in corrupt]
    if honest and rng.random() < 0.4:
        out.append(Action(rng.choice(("slow", "stop")), at + rng.choice((0, 4, 8)),
                          rng.choice(honest), -1, span=rng.choice((5.0, 20.0, 40.0)),
                          value=rng.choice((0.5, 2.0))))
    return out


def _misordering(rng: random.Random, players: int, corrupt: frozenset[int],
                 actions: list[Action]) -> list[Action]:
    """Now and then a dishonest host that goes silent keeps serving one honest seat (it talks
    to no other, and reads nothing the kept seat relays), and once another has taken the table
    over, appends that takeover out of place behind a line of its own
    (``deeds.misorder_takeover``) for the seat it kept."""
    silent = [a for a in actions if a.kind == "withhold" and a.actor == 0 and a.target < 0
              and a.pattern == "*" and a.span >= 1e8]
    honest = [p for p in range(1, players) if p not in corrupt]
    if 0 not in corrupt or not silent or len(honest) < 3 or rng.random() >= 0.5:
        return actions
    at, kept = silent[0].at, rng.choice(honest)
    cut = [Action(kind, at, 0, seat, "*", 1e9) for seat in range(1, players) if seat != kept
           for kind in ("withhold", "ignore")]
    return [a for a in actions if a is not silent[0]] + cut + [
        Action("ignore", at, 0, kept, "relay:", 1e9), Action("misorder", at, 0, kept)]


def _at_the_witnesses(rng: random.Random, players: int, corrupt: frozenset[int],
                      victim: int) -> list[Action]:
    """A dishonest host's claim about the victim, and at once something against each of its
    witnesses: said away, timed out too, or sent nothing."""
    at = rng.choice((4, 8, 16, 24, 32, 48))
    out = [Action("false_timeout", at, 0, victim)]
    for witness in range(1, players):
        if witness != victim and witness not in corrupt:
            kind = rng.choice(("false_away", "false_timeout", "withhold"))
            out.append(Action(kind, at, 0, witness, "*",
                              rng.choice(SPANS) if kind == "withhold" else 1e9))
    return out


def _claim_and_hang_up(rng: random.Random, victim: int) -> tuple[Action, ...]:
    """The host claims the victim and hangs up on it at once, and reads the witnesses' entries
    late: the victim's ``back`` may then be logged before them (what they hold of it was sealed
    before its ``back`` took that sequence number)."""
    at = rng.choice((0, 2, 4, 8, 16, 24, 32, 48, 64))
    return (Action("claim_hang_up", at, 0, victim),
            Action("hold_in", at, 0, -1, "entry:witness", rng.choice((3.0, 9.0)),
                   rng.choice((2.0, 5.0))))


def _flapping(rng: random.Random, corrupt: frozenset[int]) -> Action:
    """A coalition seat that withholds a step of the hand and drops its connection and comes
    back every few seconds: each ``away`` and ``back`` is an entry in the log."""
    return Action("flap", rng.choice((4, 8, 16, 24)), rng.choice(sorted(corrupt - {0})), -1,
                  rng.choice(("keys", "shuffle", "lock", "seed_reveal")),
                  1e9, rng.choice((10.0, 20.0, 28.0)))


def _forging(rng: random.Random, corrupt: frozenset[int], victim: int) -> Action:
    """With the host honest, a coalition seat whose frames reach the host ``value`` s late
    (the host goes quiet waiting for its step) shows the victim an entry the host never had,
    that the whole coalition vouches for (``deeds.fake_tail``)."""
    return Action("fake_tail", rng.choice((0, 4, 8, 16, 32)), rng.choice(sorted(corrupt - {0})),
                  victim, "*", 1e9, rng.choice((7.0, 9.0)))


def _misplacing(rng: random.Random, corrupt: frozenset[int], victim: int) -> list[Action]:
    """A coalition seat serves the victim, whose link to the host is slow (nobody's fault), an
    entry at its ``prev``'s place where that is not its own (``deeds.misplace``). The run has
    a window for a call, and the seat makes a call it forgot late, as a person would: the
    window holds the next move, the host's own maybe, while the call goes in first."""
    at, friend = rng.choice((0, 4, 8, 16)), rng.choice(sorted(corrupt - {0}))
    return [Action("misplace", at, friend, victim, "*", 1e9, rng.choice((0.0, 1.0))),
            Action("slow", at, victim, 0, span=1e9, value=rng.choice((1.5, 3.0)))]


def _held_call(rng: random.Random, corrupt: frozenset[int], victim: int) -> tuple[Action, ...]:
    """Aimed at a call: a friend catches the victim whenever it owes a Page One call, after a
    wait, while the host reads no call from it (the victim, a person, forgets now and then and
    calls late): only the witnesses who hold the call can show the catch was not earned."""
    at = rng.choice((0, 4, 8, 16))
    friend = rng.choice(sorted(corrupt - {0}))
    return (Action("catch", at, friend, victim, "*", 1e9, rng.choice((2.5, 3.0))),
            Action("ignore", at, 0, victim, "entry:move/call", 1e9),
            Action("ignore", at, 0, -1, "relay:move/call", 1e9))  # the witnesses hand it on


def _holding_the_call(actions: list[Action], corrupt: frozenset[int]) -> list[Action]:
    """A friend's catch, and a dishonest host that holds its target's Page One calls (reads
    none from it) so that the catch looks earned: what only the witnesses can disprove. The
    pair lasts the whole run, so a call the target forgets and makes late is there to hold."""
    if 0 not in corrupt:
        return []
    held = []
    for index, action in enumerate(actions):
        if action.kind == "catch":
            actions[index] = replace(action, span=1e9)
            held.append(Action("ignore", action.at, 0, action.target, "entry:move/call", 1e9))
    return held


def _target(rng: random.Random, players: int, corrupt: frozenset[int], victim: int,
            strategy: str) -> int:
    honest = [p for p in range(players) if p not in corrupt]
    witnesses = [p for p in honest if p not in (0, victim)]
    if strategy == "victim" or (strategy == "witnesses" and rng.random() < 0.4):
        return victim
    if strategy == "witnesses" and witnesses:
        return rng.choice(witnesses)
    choice: int = rng.choice([-1, *range(players)])
    return choice


def _action(rng: random.Random, players: int, corrupt: frozenset[int], victim: int,
            strategy: str) -> Action:
    kinds: list[str] = list(FRAME_RULES)
    if 0 in corrupt:
        kinds += list(HOST_ENTRIES) * 2
    if corrupt - {0}:
        kinds += list(SEAT_DEEDS)
    if rng.random() < 0.1:
        kinds = list(HONEST_FAULTS)
    kind = rng.choice(kinds)
    at = rng.choice((0, 1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96))
    target = _target(rng, players, corrupt, victim, strategy)
    if kind in HONEST_FAULTS:
        honest = [p for p in range(players) if p not in corrupt]
        actor = rng.choice(honest)
        other = rng.choice([p for p in range(players) if p != actor])
        return Action(kind, at, actor, other if kind != "stop" else -1,
                      span=rng.choice((1.0, 3.0, 5.0)), value=rng.choice((0.2, 1.0)))
    seats = sorted(corrupt - {0})
    if kind in HOST_ENTRIES:
        actor = 0
    elif kind in SEAT_DEEDS or kind in ("friend_only", "lie_witness", "stall"):
        if not seats:
            kind, seats = "withhold", [0]
        actor = rng.choice(seats)
    else:
        actor = rng.choice(sorted(corrupt))
    if kind == "catch":  # it waits ``value`` s once the victim owes a call, then catches
        return Action(kind, at, rng.choice(seats), victim, "*", rng.choice(SPANS),
                      rng.choice((0.0, 2.0, 3.0)))
    if kind == "friend_only":
        target = rng.choice(sorted(corrupt - {actor}) or [0])
    if kind == "lie_witness":
        return Action(kind, at, actor, target, "entry:witness", 1e9, rng.choice((0.0, 1.0)))
    return Action(kind, at, actor, target, rng.choice(PATTERNS), rng.choice(SPANS),
                  rng.choice((0.5, 3.0, 9.0, 35.0)))
