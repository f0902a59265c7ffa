"""The entry kinds' table (wire/kinds.py): one row per kind, its values the wire strings, and the
rows say what the modules' own sets of kinds used to (the sets are gone; this pins their
meaning)."""

from __future__ import annotations

from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.session.fold.apply import ENTRIES
from p2p_pageone.wire.kinds import KIND_RULES, EntryKind, Signer, kinds_where
from p2p_pageone.wire.messages import SCHEMAS

# The kinds there were when the sets were removed: a kind added since has its own row, and its
# own test, and leaves these alone.
THEN = ("hello", "table", "seat", "start", "ready", "coin_commit", "coin_reveal", "seed_commit",
        "shuffle", "lock", "keys", "open", "seed_reveal", "head", "move", "say", "heartbeat",
        "timeout", "expel", "bye", "away", "back", "takeover", "witness")


def _where(signer: Signer) -> set[str]:
    return {kind for kind in THEN if KIND_RULES[EntryKind(kind)].signer is signer}


def _flagged(name: str) -> set[str]:
    return {kind for kind in THEN if kind in kinds_where(name)}


def test_every_kind_has_one_row_and_one_check_and_effect() -> None:
    assert set(KIND_RULES) == set(EntryKind) == set(ENTRIES)
    assert list(SCHEMAS) == [kind.value for kind in EntryKind]
    assert set(THEN) <= set(EntryKind)


def test_the_rows_say_what_the_old_sets_said() -> None:
    assert _where(Signer.HOST) == {"table", "seat", "start", "timeout", "away", "expel"}
    assert _where(Signer.SEAT) == {"ready", "coin_commit", "coin_reveal", "seed_commit",
                                   "shuffle", "lock", "keys", "move", "seed_reveal", "head",
                                   "bye", "witness"}
    assert _where(Signer.NEWCOMER) == {"hello"} and _where(Signer.SUCCESSOR) == {"takeover"}
    assert {k for k in THEN if not KIND_RULES[EntryKind(k)].logged} == {"open", "heartbeat"}
    assert _flagged("in_hand") == {"seed_commit", "shuffle", "lock", "keys", "seed_reveal",
                                   "head"}
    assert _flagged("while_away") == {"back", "bye", "witness"}
    assert _flagged("during_round") == {"witness", "timeout", "bye", "say", "away", "back"}
    assert _flagged("opens_connection") == {"hello", "back"}
    assert _flagged("chat") == {"say"}
    assert _flagged("deck_step") == {"shuffle", "lock", "keys"}
    assert _flagged("deck_evidence") == {"shuffle", "lock", "keys", "move"}
    assert _flagged("pipelined") == {"keys", "move"}
    assert _flagged("makes_host") == {"table", "takeover"}


def test_an_envelope_kind_is_the_enum_and_its_bytes_the_wire_string() -> None:
    me = Identity(bytes(32))
    as_enum = seal(me, bytes(16), 0, 0, bytes(32), EntryKind.SAY, {"text": "hi"})
    as_text = seal(me, bytes(16), 0, 0, bytes(32), "say", {"text": "hi"})
    assert as_enum == as_text
    env = open_envelope(as_enum)
    assert env.kind is EntryKind.SAY and env.kind == "say" and f"{env.kind}" == "say"
