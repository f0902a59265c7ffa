"""Engine moves ↔ ``move`` message fields."""

from __future__ import annotations

from typing import Any

from ..engine.moves import Call, Catch, Draw, Move, Play


def move_data(move: Move, keys: list[bytes]) -> dict[str, Any]:
    base: dict[str, Any] = {"positions": [], "cards": [], "keys": [], "call": False,
                            "colour": -1, "target": -1}
    if isinstance(move, Play):
        return {**base, "kind": "play", "positions": list(move.slots), "cards": list(move.cards),
                "keys": keys, "call": move.call, "colour": move.colour}
    if isinstance(move, Draw):
        return {**base, "kind": "draw"}
    if isinstance(move, Call):
        return {**base, "kind": "call"}
    return {**base, "kind": "catch", "target": move.target}


def move_from(seat: int, data: dict[str, Any]) -> Move:
    kind = data["kind"]
    if kind == "play":
        return Play(seat, tuple(data["positions"]), tuple(data["cards"]), data["call"],
                    data["colour"])
    if kind == "draw":
        return Draw(seat)
    if kind == "call":
        return Call(seat)
    return Catch(seat, data["target"])
