"""Frames, strict msgpack and message schemas: garbage only ever raises ProtocolError."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p_pageone.wire.codec import MAX_FRAME, FrameDecoder, ProtocolError, frame, pack, unpack
from p2p_pageone.wire.messages import SCHEMAS, validate


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2048), st.integers(1, 64))
def test_random_bytes_only_raise_protocol_error(data: bytes, chunk: int) -> None:
    decoder = FrameDecoder()
    try:
        for start in range(0, len(data), chunk):
            for payload in decoder.feed(data[start : start + chunk]):
                message = unpack(payload)
                if isinstance(message, dict):
                    validate(message.get("type"), message.get("data"))
    except ProtocolError:
        pass


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=512))
def test_unpack_of_random_bytes_only_raises_protocol_error(data: bytes) -> None:
    with contextlib.suppress(ProtocolError):
        unpack(data)


@given(st.lists(st.binary(max_size=300), max_size=8), st.integers(1, 50))
def test_frames_round_trip_in_any_chunking(payloads: list[bytes], chunk: int) -> None:
    stream = b"".join(frame(p) for p in payloads)
    decoder = FrameDecoder()
    out: list[bytes] = []
    for start in range(0, len(stream), chunk):
        out += decoder.feed(stream[start : start + chunk])
    assert out == payloads and decoder.pending == 0


def test_oversized_frame_is_refused() -> None:
    with pytest.raises(ProtocolError, match="over the"):
        FrameDecoder().feed((MAX_FRAME + 1).to_bytes(4, "big"))
    with pytest.raises(ProtocolError, match="at most"):
        frame(b"x" * (MAX_FRAME + 1))


def test_unpack_refuses_trailing_bytes_and_extension_types() -> None:
    with pytest.raises(ProtocolError, match="trailing"):
        unpack(pack(1) + pack(2))
    with pytest.raises(ProtocolError, match="extension type 5"):
        unpack(b"\xd4\x05\x00")
    with pytest.raises(ProtocolError):
        unpack(b"\x81\x01\x02")  # a map with an int key


POINTS = st.lists(st.binary(min_size=33, max_size=33), max_size=20)
PROOF = st.binary(max_size=200)
VALID: dict[str, Any] = {
    "hello": st.fixed_dictionaries({"name": st.text("abc ", max_size=32),
                                    "proto": st.integers(0, 9), "client": st.just("pageone"),
                                    "endpoint": st.sampled_from(["", "10.0.0.2:40000"])}),
    "takeover": st.fixed_dictionaries({"seat": st.integers(0, 5),
                                       "window": st.integers(1, 3600),
                                       "lost": st.lists(st.binary(max_size=1024), max_size=6)}),
    "shuffle": st.fixed_dictionaries({"deck": st.just("1/main"), "points": POINTS,
                                      "commits": st.lists(st.binary(min_size=33, max_size=33),
                                                          min_size=1, max_size=1),
                                      "proof": PROOF}),
    "lock": st.fixed_dictionaries({"deck": st.just("2/re1"), "points": POINTS,
                                   "commits": POINTS, "proof": PROOF}),
    "open": st.fixed_dictionaries({"deck": st.just("1/main"), "position": st.integers(0, 107),
                                   "key": st.binary(min_size=32, max_size=32),
                                   "card": st.integers(0, 111)}),
    "move": st.integers(0, 8).flatmap(lambda n: st.fixed_dictionaries({
        "kind": st.sampled_from(["play", "draw", "call", "catch"]),
        "positions": st.lists(st.integers(0, 200), min_size=n, max_size=n),
        "cards": st.lists(st.integers(0, 111), min_size=n, max_size=n),
        "keys": st.lists(st.binary(min_size=32, max_size=32), min_size=n, max_size=n),
        "call": st.booleans(), "colour": st.integers(-1, 3), "target": st.integers(-1, 5)})),
    "ready": st.just({}),
}


@given(st.sampled_from(sorted(VALID)).flatmap(lambda k: st.tuples(st.just(k), VALID[k])))
def test_every_valid_message_round_trips(case: tuple[str, dict[str, Any]]) -> None:
    kind, data = case
    decoded = unpack(pack({"type": kind, "data": data}))
    assert validate(decoded["type"], decoded["data"]) == data


@pytest.mark.parametrize(
    ("kind", "data", "message"),
    [
        ("nope", {}, "unknown message type"),
        ("ready", [], "must carry a map"),
        ("seed_commit", {}, "lacks field 'commit'"),
        ("ready", {"x": 1}, "unknown field 'x'"),
        ("seed_commit", {"commit": b"short"}, "field 'commit'"),
        ("move", {"kind": "fly", "positions": [], "cards": [], "keys": [], "call": False,
                  "colour": -1, "target": -1}, "a move is one of"),
        ("keys", {"deck": "1/main", "positions": [1, 2], "keys": [b"k" * 32]}, "one key per"),
        ("hello", {"name": True, "proto": 1, "client": "x", "endpoint": ""}, "field 'name'"),
    ],
)
def test_bad_messages_name_the_problem(kind: str, data: Any, message: str) -> None:
    with pytest.raises(ProtocolError, match=message):
        validate(kind, data)


def test_every_message_type_has_a_schema_entry_in_the_spec() -> None:
    from pathlib import Path

    spec = (Path(__file__).parent.parent / "protocol" / "SPEC.md").read_text()
    for kind in SCHEMAS:
        assert f"`{kind}`" in spec, f"protocol/SPEC.md does not describe {kind}"
