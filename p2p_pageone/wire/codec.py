"""Frames and strict msgpack: whatever bytes arrive, the only error raised is ``ProtocolError``.

A frame is a 4-byte big-endian length followed by that many bytes of msgpack (protocol/SPEC.md §2).
"""

from __future__ import annotations

from typing import Any

import msgpack

MAX_FRAME = 256 * 1024
HEADER = 4


class ProtocolError(Exception):
    """Malformed or illegal input from a peer. ``peer`` names who sent it, when known."""

    def __init__(self, message: str, peer: str = "") -> None:
        super().__init__(f"{peer}: {message}" if peer else message)
        self.reason = message
        self.peer = peer


def frame(payload: bytes) -> bytes:
    if len(payload) > MAX_FRAME:
        raise ProtocolError(f"a frame may hold at most {MAX_FRAME} bytes (this one {len(payload)})")
    return len(payload).to_bytes(HEADER, "big") + payload


class FrameDecoder:
    """Feed bytes as they arrive; complete frame payloads come out in order."""

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._buffer = bytearray()
        self.max_frame = max_frame

    def feed(self, data: bytes) -> list[bytes]:
        buffer = self._buffer
        buffer += data
        out: list[bytes] = []
        at, end = 0, len(buffer)
        while end - at >= HEADER:  # one pass: the buffer is cut once, not once per frame
            size = int.from_bytes(buffer[at : at + HEADER], "big")
            if size > self.max_frame:
                buffer.clear()
                raise ProtocolError(
                    f"a frame of {size} bytes is over the {self.max_frame}-byte limit")
            if end - at < HEADER + size:
                break
            out.append(bytes(buffer[at + HEADER : at + HEADER + size]))
            at += HEADER + size
        del buffer[:at]
        return out

    @property
    def pending(self) -> int:
        """Bytes held back, waiting for the rest of a frame."""
        return len(self._buffer)


def pack(value: Any) -> bytes:
    """Canonical encoding: the same value always gives the same bytes."""
    data: bytes = msgpack.packb(value, use_bin_type=True)
    return data


def _no_ext(code: int, data: bytes) -> Any:
    raise ProtocolError(f"msgpack extension type {code} is not allowed")


def _kind(value: Any) -> str:
    """How a decoded value is named in an error: its msgpack type."""
    names = {bool: "a boolean", int: "an integer", float: "a float", str: "a string",
             bytes: "a byte string", list: "an array", dict: "a map", type(None): "nil"}
    return names.get(type(value), type(value).__name__)


def _strict_map(pairs: list[tuple[Any, Any]]) -> dict[str, Any]:
    """Map keys are strings, each once: a parser keeping the first of two equal keys would read
    another message than one keeping the last."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        if type(key) is not str:
            raise ProtocolError(f"a map key is {_kind(key)}; map keys are strings")
        if key in result:
            raise ProtocolError(f"the map key {key[:32]!r} appears twice")
        result[key] = value
    return result


def unpack(data: bytes) -> Any:
    """Decode exactly one msgpack value; anything else is a ``ProtocolError``."""
    try:
        return msgpack.unpackb(
            data, raw=False, strict_map_key=False, use_list=True, ext_hook=_no_ext,
            object_pairs_hook=_strict_map, max_str_len=MAX_FRAME, max_bin_len=MAX_FRAME,
            max_array_len=4096, max_map_len=64,
        )
    except ProtocolError:
        raise
    except msgpack.ExtraData:
        raise ProtocolError("trailing bytes after the message") from None
    except (ValueError, TypeError, msgpack.UnpackException, RecursionError) as error:
        raise ProtocolError(f"not valid msgpack ({type(error).__name__})") from None
