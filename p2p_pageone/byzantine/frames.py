"""What a frame is, read the way the adversary picks what to tamper with: ``entry:<kind>`` (a
log entry, or an envelope sent up), ``control:<kind>`` (pings, relays, lost…), ``alive`` (a sign
of life), ``mesh:<kind>`` (an envelope on the mesh)."""

from __future__ import annotations

from ..crypto.envelope import Envelope, open_envelope
from ..wire.codec import FrameDecoder, ProtocolError, frame, unpack


def payloads(data: bytes, channel: str) -> list[bytes]:
    if channel == "mesh":
        return [data]
    try:
        return FrameDecoder().feed(data)
    except ProtocolError:
        return []


def envelope_in(payload: bytes) -> Envelope | None:
    try:
        return open_envelope(payload)
    except (ProtocolError, ValueError, TypeError):
        return None


def logged(payload: bytes) -> bytes:
    """The envelope a host's ``entry`` frame carries (b"" if it is no such frame)."""
    try:
        value = unpack(payload)
    except ProtocolError:
        return b""
    if isinstance(value, dict) and value.get("control") == "entry":
        raw = value.get("raw", b"")
        return raw if isinstance(raw, bytes) else b""
    return b""


def classify(data: bytes, channel: str) -> str:
    """The class of the first payload in ``data`` ("?" if it reads as nothing)."""
    for payload in payloads(data, channel):
        try:
            value = unpack(payload)
        except ProtocolError:
            return "?"
        if channel == "down" and logged(payload):  # the host's log entry, numbered
            return _envelope_class(envelope_in(logged(payload)), "entry")
        if isinstance(value, dict):
            control = value.get("control", "?")
            if control == "relay":
                return _envelope_class(envelope_in(value.get("raw", b"")), "relay")
            return f"control:{control}"
        if isinstance(value, list) and len(value) == 4:
            return "alive"
        return _envelope_class(envelope_in(payload), "mesh" if channel == "mesh" else "entry")
    return "?"


def _envelope_class(env: Envelope | None, prefix: str) -> str:
    if env is None:
        return "?"
    detail = env.data.get("kind", "") if env.kind == "move" else ""
    return f"{prefix}:{env.kind}" + (f"/{detail}" if detail else "")


def matches(cls: str, pattern: str) -> bool:
    """``pattern``: ``*`` (anything), an exact class, or a prefix ending in ``:`` or ``/``."""
    return pattern == "*" or cls == pattern or (pattern.endswith((":", "/"))
                                                 and cls.startswith(pattern)) or (
        cls.startswith(pattern + "/"))


def without(data: bytes, channel: str, pattern: str) -> bytes:
    """``data`` with every payload of the class ``pattern`` taken out (a frame may carry
    several: a relay behind a ping is still a relay)."""
    if channel == "mesh":
        return b"" if matches(classify(data, channel), pattern) else data
    return b"".join(frame(payload) for payload in payloads(data, channel)
                    if not matches(classify(frame(payload), channel), pattern))
