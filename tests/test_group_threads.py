"""The deck's multiplications spread over worker threads give exactly what one thread gives,
and a bad value is reported as it is on one thread."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from p2p_pageone.crypto import group
from p2p_pageone.crypto.group import N, PointError


@pytest.fixture(params=[0, 1, 3])
def workers(request: pytest.FixtureRequest) -> Iterator[int]:
    previous = group.set_workers(request.param)
    yield request.param
    group.set_workers(previous)


def _points(rng: random.Random, count: int) -> list[group.Point]:
    return [group.base(rng.randrange(1, N)) for _ in range(count)]


@pytest.mark.parametrize("count", [1, 15, 16, 17, 53, 108])
def test_spread_multiplications_match_one_thread(workers: int, count: int) -> None:
    rng = random.Random(count)
    points, scalars = _points(rng, count), [rng.randrange(1, N) for _ in range(count)]
    pairs = list(zip(points, scalars, strict=True))
    assert group.mul_each(points, scalars) == [group.mul(p, k) for p, k in pairs]
    assert group.base_each(scalars) == [group.base(k) for k in scalars]
    assert group.add_base_each(points, scalars) == [group.add_base(p, k)
                                                     for p, k in pairs]
    encodings = [p.encode() for p in points]
    assert [p.encode() for p in group.decode_each(encodings)] == encodings
    expected = group.add([group.mul(p, k) for p, k in pairs])
    assert group.lincomb(scalars, points) == expected


def test_the_first_bad_value_in_order_is_reported(workers: int) -> None:
    rng = random.Random(7)
    encodings = [p.encode() for p in _points(rng, 60)]
    not_on_curve = bytes([2]) + (7).to_bytes(32, "big")  # x = 7: x³ + 7 is not a square mod P
    with pytest.raises(PointError, match="not a point"):
        group.decode(not_on_curve)
    broken = [*encodings[:40], b"\x05" + encodings[40][1:], *encodings[41:50], not_on_curve]
    with pytest.raises(PointError, match="33 bytes"):
        group.decode_each(broken)
    points = group.decode_each(encodings)
    with pytest.raises(PointError, match="between 1 and the group order"):
        group.mul_each(points, [1] * 59 + [N])


def test_negative_worker_count_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        group.set_workers(-1)
