"""A host that shows one seat a history of its own: the others serve that seat the entries
where its sign of life parts from their log, with the host's receipt of them, and the seat
leaves naming the host for the fork (protocol/SPEC.md §7, "The log from the others").

The soak's seeds 16255 and 18694 found it: at three seats the host withheld one seat's keys
entries, then showed it a chat line of its own in their place. The seat folded it (an entry of
the host's own in its place is its own receipt), refused the real log that followed, left the
host, came back and left again for good: the table, waiting for its return each time, never
ended."""

from __future__ import annotations

from typing import Any

import pytest

from p2p_pageone.byzantine import runner
from p2p_pageone.byzantine.adversary import Action
from p2p_pageone.byzantine.scenario import make

FORK_AFTER_WITHHELD_KEYS = (Action("withhold", 2, 0, 1, "entry:keys", value=0.5),
                            Action("fork", 96, 0, 1, "entry:shuffle", 40.0, 35.0))


@pytest.fixture
def outcomes(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    kept: list[Any] = []

    class Kept(runner.Outcome):  # type: ignore[misc,name-defined]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            kept.append(self)

    monkeypatch.setattr(runner, "Outcome", Kept)
    return kept


def test_a_seat_shown_a_fork_leaves_naming_the_host_and_the_game_ends(
        outcomes: list[Any]) -> None:
    result = runner.run(make(16255), FORK_AFTER_WITHHELD_KEYS)
    assert [a.kind for a in result.fired] == ["withhold", "fork"]
    assert result.verdicts == [], [v.text for v in result.verdicts]
    victim, others = outcomes[0].sessions[1], outcomes[0].sessions[2]
    assert "two different logs" in victim.ended and "(a fork)" in victim.ended
    assert [e.data["culprit"] for e in victim.events if e.kind == "ended"] == [0]
    assert others.game_over and not others.ended
