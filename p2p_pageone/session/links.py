"""The sequencer's view of one connection: what it said, when, and how much (protocol/SPEC.md
§7, "Strangers and floods")."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ..crypto.identity import Identity, fingerprint
from ..crypto.statements import check_proof, proof_of_key
from ..wire.codec import FrameDecoder, ProtocolError, frame, pack
from .common import PROTOCOL_VERSION, Refusal
from .fold.duties import BOUNDS
from .rtt import RoundTrip

# Bounds on strangers and floods (protocol/SPEC.md §7, "Strangers and floods").
SIT_WITHIN = 10.0  # seconds a connection has to say hello and be seated
MAX_UNSEATED = 8  # connections waiting to be seated at one time
MAKE_ROOM_AFTER = 2.0  # past this, the oldest waiting connection makes room for a new one
UNSEATED_FRAME = 4096  # the largest frame before a connection is seated (a hello is ~200 bytes)
FLOOD_WINDOW = 5.0
IDLE_FRAMES = 50  # pings and refused envelopes per window from one connection (a peer pings once
# a second and is refused now and then; envelopes that enter the log are paced by the protocol)
CHAT_WINDOW = 10.0
CHAT_LINES = 5  # chat lines per window from one seat; more are refused
LOBBY_TIMEOUT = 600.0  # a lobby where nobody sits down or leaves for this long is closed
START_AFTER = 30.0  # with min_players: start with those seated once the lobby is this still
AFTER_STALL = 3.0  # after a stall, how long the connections found closed wait for the rest
NOTICE_STALL = 5.0  # a stall of this machine this long is told to the player
RECONNECT_WINDOW = BOUNDS.return_window  # a seat whose connection dropped mid-game is kept
LOST_ALL = 3  # every remote player silent this many silence thresholds: our network is down
LINGER = 10.0  # after the game, how long the host waits for every peer's ``done``
GATHER = 8.0  # a new host waits this long at most for the others to hand over their logs
WATCHERS = 4  # watchers a host takes by default (``--watchers``)
NONCE = 16  # bytes of a listener's challenge
MAX_UNPROVEN = 4  # unproven connections from one source address at once (every listener)
PROVE_WITHIN = 1.0  # past this, the oldest unproven connection of an address makes room


def challenge(nonce: bytes, listener: bytes) -> bytes:
    """A listener's first frame on every connection: what a claiming frame proves against."""
    return frame(pack({"control": "challenge", "nonce": nonce, "from": listener}))


def claim_refusal(value: dict[str, Any], nonce: bytes, listener: bytes) -> str | None:
    """Why the claiming frame ``value`` (intro, watch, direct, lost) does not prove that its
    connection holds the key it names, against the challenge it was sent; None: it does."""
    role = value["control"]
    if "proof" not in value:
        return (f"this {role} carries no proof of its key: the other side runs an older pageone "
                f"than this one (protocol {PROTOCOL_VERSION}); use the same pageone version")
    why = check_proof(value["proof"], value["from"], nonce, listener, role)
    if why is not None:
        return f"this {role} could not prove it holds that key ({why})"
    return None


def answer_challenge(value: dict[str, Any], identity: Identity, claim: dict[str, Any],
                     expect: bytes = b"") -> bytes:
    """The framed claiming frame ``claim`` (its ``control`` is the role) with our proof, for a
    listener's ``challenge``. ``expect``: the key that listens there, if we know it; a challenge
    from any other key is not answered (we never sign for a relay): a ``ProtocolError``."""
    if expect and value["from"] != expect:
        raise ProtocolError(f"the listener answered as {fingerprint(value['from'])}, but "
                            f"{fingerprint(expect)} listens there: our key is not proven to it")
    proof = proof_of_key(identity, value["nonce"], value["from"], claim["control"])
    return frame(pack({**claim, "from": identity.public, "proof": proof}))


def refusal(seq: int, reason: str) -> bytes:
    """The ``refused`` frame, with the code its receiver acts on (``Refusal``)."""
    return frame(pack({"control": "refused", "seq": seq, "reason": reason[:1000],
                       "code": int(Refusal.of(reason))}))


@dataclass
class Link:
    opened: float
    last_seen: float
    decoder: FrameDecoder = field(default_factory=lambda: FrameDecoder(UNSEATED_FRAME))
    key: bytes = b""
    nonce: bytes = b""  # the challenge it was sent
    source: str = ""  # its source address (the net layer's; "" in memory)
    proven: bytes = b""  # the key its intro or watch proved it holds
    introduced: bool = False
    done: int = -1  # the log length it said it has folded, after the game (``done``)
    keeps: bool = False  # its intro named a key that holds a seat in the running game
    watcher: bool = False  # it watches: it gets the log, and says nothing to it
    follows: bool = False  # a watcher sent the log so far: every entry after goes to it too
    watcher_key: bytes = b""  # the key a watcher said it watches with
    window_start: float = 0.0
    frames: int = 0
    chat: deque[float] = field(default_factory=deque)
    rtt: RoundTrip = field(default_factory=RoundTrip)  # its silence threshold adapts to it

    def count_idle(self, now: float) -> bool:
        """Count a frame that moved nothing on; False once this connection floods the table."""
        if now - self.window_start >= FLOOD_WINDOW:
            self.window_start, self.frames = now, 0
        self.frames += 1
        return self.frames <= IDLE_FRAMES

    def chat_allowed(self, now: float) -> bool:
        return chat_allowed(self.chat, now)


def chat_allowed(said: deque[float], now: float) -> bool:
    """One more chat line now, by the times of those ``said`` before (kept here)? At most
    ``CHAT_LINES`` in any ``CHAT_WINDOW`` seconds."""
    while said and now - said[0] >= CHAT_WINDOW:
        said.popleft()
    if len(said) >= CHAT_LINES:
        return False
    said.append(now)
    return True
