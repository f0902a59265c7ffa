"""The batch multiplier (``crypto/_batch.c``, on every core) gives exactly what one
multiplication at a time gives, and refuses what ``mul`` refuses."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from p2p_pageone.crypto import group
from p2p_pageone.crypto.group import N, PointError


@pytest.fixture(params=["python", "batch-1", "batch-2", "batch-4"])
def threads(request: pytest.FixtureRequest) -> Iterator[str]:
    kind = request.param
    if kind != "python" and group._batch is None:
        pytest.skip("the batch multiplier was not compiled (no C compiler at install)")
    previous = group.set_threads(0 if kind == "python" else int(kind[-1]))
    yield kind
    group.set_threads(previous)


@pytest.mark.parametrize("count", [1, 7, 8, 9, 53, 108])
def test_a_batch_matches_one_multiplication_at_a_time(threads: str, count: int) -> None:
    rng = random.Random(count)
    points = [group.base(rng.randrange(1, N)) for _ in range(count)]
    scalars = [rng.randrange(1, N) for _ in range(count)]
    pairs = list(zip(points, scalars, strict=True))
    assert group.mul_each(points, scalars) == [group.mul(p, k) for p, k in pairs]
    assert group.lincomb(scalars, points) == group.add([group.mul(p, k) for p, k in pairs])


def test_a_batch_refuses_a_scalar_out_of_range_and_a_short_list(threads: str) -> None:
    points = [group.base(k) for k in range(2, 22)]
    with pytest.raises(PointError, match="between 1 and the group order"):
        group.mul_each(points, [1] * 19 + [N])
    with pytest.raises(PointError, match="between 1 and the group order"):
        group.mul_each(points, [0] * 20)
    with pytest.raises(ValueError, match="one scalar for each point"):
        group.mul_each(points, [1] * 19)


def test_without_the_compiled_module_the_deck_still_multiplies(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(group, "_batch", None)
    points = [group.base(k) for k in range(2, 30)]
    assert group.mul_each(points, [5] * 28) == [group.base(5 * k) for k in range(2, 30)]


def test_a_negative_thread_count_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        group.set_threads(-1)


@pytest.mark.parametrize("count", [3, 8, 53])
def test_a_batch_of_generator_multiplications_matches_one_at_a_time(threads: str,
                                                                    count: int) -> None:
    scalars = [random.Random(count).randrange(1, N) for _ in range(count)]
    assert group.base_each(scalars) == [group.base(k) for k in scalars]
    with pytest.raises(PointError, match="between 1 and the group order"):
        group.base_each([*scalars, N])
