"""A seat hands the host another seat's envelopes one per author per relay window, the newest
(review helper-46). A dishonest seat signed many Page One calls the rules refuse at its next
number and showed them to an honest seat, which handed every one to the host at each window
(41 in 30 s from one author here): the host counts each refusal toward the relayer's flood
limit (50 in 5 s), so two such seats that also dropped and came back had it drop the honest
relayer for flooding."""

from __future__ import annotations

from typing import Any

from p2p_pageone.byzantine import memo
from p2p_pageone.byzantine.deeds import sealed_by
from p2p_pageone.byzantine.frames import classify
from p2p_pageone.byzantine.world import Frame, SimTable
from p2p_pageone.engine import make_settings
from p2p_pageone.session.fold.obligations import Duty, owed
from p2p_pageone.session.witnessing import KEPT, RELAY_AFTER

D, H = 1, 2


class _Thinking:
    """H's person thinks over its move the whole time."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def choose(self, view: Any, rng: Any) -> None:
        return None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_many_refused_calls_at_one_number_go_on_one_per_window() -> None:
    relayed: list[float] = []

    def route(fr: Frame, now: float) -> list[tuple[float, bytes]]:
        if fr.src == H and fr.channel == "up" and classify(fr.data, "up") == "relay:move/call":
            relayed.append(now)
        return [(0.0, fr.data)]

    with memo.installed():
        t = SimTable(make_settings("classic", {"deals": 2}), 3, 0, route=route)
        t.corrupt = {D}
        t.connect_honest([0, H])
        host, d = t.sequencer.host, t.sessions[D]
        t.sessions[H].bot = _Thinking(t.sessions[H].bot)  # type: ignore[assignment]
        while not (host.game is not None and len(host.log) > 20 and d.attachment.log_read
                   and [(o.seat, o.duty) for o in owed(host)] == [(H, Duty.MOVE)]):
            t.advance(t.now + 0.1)  # the table waits on H's move: D's next number stays
            assert t.now < 400
        start, numbers = t.now, set()
        while t.now < start + 6 * RELAY_AFTER:
            assert d.chain is not None
            numbers.add(d.chain.next_seq(d.identity.public))
            for n in range(KEPT):  # distinct calls the rules refuse, at D's next number
                env = sealed_by(d, "move", {"kind": "call", "positions": [], "cards": [],
                                            "keys": [], "call": False, "colour": n % 4,
                                            "target": n // 4})
                assert env is not None
                t.send("mesh", D, H, env.raw)
            t.advance(t.now + 1.0)
        flooded = [e.text for e in host.events if "flooded" in e.text]
    # one at once for each of D's numbers (a call goes on at once), and one a window
    assert len(relayed) <= len(numbers) + 7, (len(relayed), len(numbers))
    assert not flooded, flooded
