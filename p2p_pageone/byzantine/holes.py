"""The plants themselves (``plants.PLANTS``): each puts back a rule the protocol once lacked."""

from __future__ import annotations

from typing import Any

from ..crypto.statements import open_statement
from ..session.fold import witness
from ..session.fold.claims import Claim
from ..session.fold.state import PublicState
from ..wire.codec import ProtocolError
from .plants import everywhere, plant


@plant("alive-any-position", "a sign of life disproves a claim whatever entry it was made at "
       "(stale ones included), and whatever the table waited for")
def _alive_any_position() -> list[tuple[Any, str, Any]]:
    original = witness.disproof

    def disproof(s: PublicState, claim: Claim, raw: bytes) -> str:
        try:
            alive = open_statement(raw, "alive")
        except ProtocolError:
            return original(s, claim, raw)
        return "a sign of life" if alive.sender == s.keys[claim.seat] else ""

    return everywhere(original, disproof)
