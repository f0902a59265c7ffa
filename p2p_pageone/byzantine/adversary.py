"""The adversary: a host and/or a coalition of seats (at most half the table, the host counted)
and its actions, each one thing a dishonest party can do (protocol/SPEC.md §8).

Rules on frames (``withhold``, ``delay``, ``duplicate``, ``reorder``, ``ignore``, ``stall``,
``friend_only``, ``lie_witness``, ``hold_in``, ``flap``) last ``span`` seconds from the moment
they fire (``flap``: a coalition seat withholds every frame of its step ``pattern``, an entry
kind, and drops its connection and comes back every ``value`` seconds);
one-shot actions (``false_timeout``, ``false_away``, ``false_expel``, ``wrong_moment``,
``fork``, ``catch``, ``takeover``, ``flood``, ``replay``, ``claim_hang_up``) happen once;
``misplace`` serves the victim an entry at its ``prev``'s place whenever it can; ``misorder``
appends the new host's takeover out of place once there is one.
Honest faults (``stop``, ``link_stall``, ``slow``) strike honest parties. An action fires when
the host's log has grown ``at`` entries past the game's start (or at the end of the run's time,
if it never does).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .frames import classify, matches, without
from .world import HOST, Frame

FRAME_RULES = ("withhold", "delay", "duplicate", "reorder", "ignore", "stall", "friend_only",
               "lie_witness")  # and ``catch``: a rule too, that catches whenever it can
HOST_ENTRIES = ("false_timeout", "false_away", "false_expel", "wrong_moment", "fork")
SEAT_DEEDS = ("catch", "takeover", "flood", "replay")
HONEST_FAULTS = ("stop", "link_stall", "slow")
# only in an aimed plan (``scenario``), drawn apart so that no other seed's plan changes: the
# host claims a seat and hangs up on it at once; the host reads what the targets send it late;
# a coalition seat slow to the host shows the victim a log entry the host never had; a
# coalition seat serves the victim an entry at its ``prev``'s place; a host that keeps serving
# one seat appends the new host's takeover out of place
AIMED = ("claim_hang_up", "hold_in", "flap", "fake_tail", "misplace", "misorder")
KINDS = FRAME_RULES + HOST_ENTRIES + SEAT_DEEDS + HONEST_FAULTS + AIMED


@dataclass(frozen=True)
class Action:
    kind: str
    at: int  # log entries past the game's start
    actor: int  # the corrupt party (0: the host); for an honest fault, the honest party
    target: int = -1  # the victim, a friend, the other end of a link (-1: every other party)
    pattern: str = "*"  # which frames a rule takes (``frames.matches``)
    span: float = 1e9  # seconds a rule or fault lasts
    value: float = 0.0  # a delay in seconds, a count

    def show(self) -> str:
        extra = "" if self.pattern == "*" else f" {self.pattern}"
        span = "" if self.span >= 1e8 else f" for {self.span:g}s"
        value = f" ={self.value:g}" if self.value else ""
        return f"@{self.at} {self.kind} p{self.actor}->{self.target}{extra}{span}{value}"


@dataclass
class Rule:
    action: Action
    start: float

    def live(self, now: float) -> bool:
        return self.start <= now < self.start + self.action.span

    def takes(self, frame: Frame) -> bool:
        a = self.action
        if a.kind == "ignore":  # the host reads nothing of the pattern's from the target (-1:
            # from anyone), each payload of a frame judged alone (``_apply``)
            return a.actor == HOST and frame.dst == HOST and a.target in (-1, frame.src)
        if a.kind == "hold_in":  # the host reads the target's frames (-1: anyone's) late
            return (a.actor == HOST and frame.dst == HOST and a.target in (-1, frame.src)
                    and self._pattern(frame))
        if frame.src != a.actor or a.kind in ("misplace", "misorder"):  # deeds, not rules
            return False
        if a.kind == "fake_tail":  # its frames reach the host late: the host goes quiet
            return frame.dst == HOST
        if a.kind == "friend_only":
            return frame.dst != a.target and self._pattern(frame)
        if a.kind == "flap":  # its step, whichever way it goes (up, on the mesh, relayed)
            cls = classify(frame.data, frame.channel)
            return cls.split(":", 1)[-1].split("/")[0] == a.pattern
        if a.kind in ("stall", "lie_witness"):
            return self._pattern(frame)
        return (a.target < 0 or frame.dst == a.target) and self._pattern(frame)

    def _pattern(self, frame: Frame) -> bool:
        return matches(classify(frame.data, frame.channel), self.action.pattern)


@dataclass
class Adversary:
    """Who is corrupt and the plan; ``rules``: the frame rules fired so far."""

    corrupt: frozenset[int]
    plan: list[Action]
    fired: list[Action] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    rewrite: object = None  # set by the runner: how a lying witness rewrites its entry
    seen: dict[tuple[int, int, int], float] = field(default_factory=dict)  # catch moments

    def route(self, frame: Frame, now: float) -> list[tuple[float, bytes]]:
        if frame.src not in self.corrupt and frame.dst not in self.corrupt:
            return [(0.0, frame.data)]
        out = [(0.0, frame.data)]
        for rule in self.rules:
            if not rule.live(now) or not rule.takes(frame):
                continue
            out = self._apply(rule.action, frame, out)
        return out

    def _apply(self, action: Action, frame: Frame,
               out: list[tuple[float, bytes]]) -> list[tuple[float, bytes]]:
        kind = action.kind
        if kind == "ignore":
            kept = [(extra, without(data, frame.channel, action.pattern)) for extra, data in out]
            return [(extra, data) for extra, data in kept if data]
        if kind in ("withhold", "stall", "friend_only", "flap"):
            return []
        if kind in ("delay", "hold_in", "fake_tail"):
            return [(extra + action.value, data) for extra, data in out]
        if kind == "duplicate":
            return out + out
        if kind == "reorder":
            return [(-max(action.value, 0.001), data) for _, data in out]
        if kind == "lie_witness" and callable(self.rewrite):
            return [(extra, self.rewrite(action, frame, data)) for extra, data in out]
        return out
