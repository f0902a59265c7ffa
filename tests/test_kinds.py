"""The entry kinds' table (wire/kinds.py): one row per kind, its values the wire strings, and the
rows say what the modules' own sets of kinds used to (the sets are gone; this pins their
meaning)."""

from __future__ import annotations

from p2p_pageone.crypto.envelope import open_envelope, seal
from p2p_pageone.crypto.identity import Identity
from p2p_pageone.session.fold.apply import ENTRIES
from p2p_pageone.wire.kinds import KIND_RULES, EntryKind, Signer, kinds_where
from p2p_pageone.wire.messages import SCHEMAS


def _where(signer: Signer) -> set[str]:
    return {kind.value for kind, row in KIND_RULES.items() if row.signer is signer}


def test_every_kind_has_one_row_and_one_check_and_effect() -> None:
    assert set(KIND_RULES) == set(EntryKind) == set(ENTRIES)
    assert list(SCHEMAS) == [kind.value for kind in EntryKind]


def test_the_rows_say_what_the_old_sets_said() -> None:
    assert _where(Signer.HOST) == {"table", "seat", "start", "timeout", "away", "expel"}
    assert _where(Signer.SEAT) == {"ready", "coin_commit", "coin_reveal", "seed_commit",
                                   "shuffle", "lock", "keys", "move", "seed_reveal", "head",
                                   "bye", "witness"}
    assert _where(Signer.NEWCOMER) == {"hello"} and _where(Signer.SUCCESSOR) == {"takeover"}
    assert {k for k, row in KIND_RULES.items() if not row.logged} == {"open", "heartbeat"}
    assert kinds_where("in_hand") == {"seed_commit", "shuffle", "lock", "keys", "seed_reveal",
                                      "head"}
    assert kinds_where("while_away") == {"back", "bye", "witness"}
    assert kinds_where("during_round") == {"witness", "timeout", "bye", "say", "away", "back"}
    assert kinds_where("opens_connection") == {"hello", "back"}
    assert kinds_where("chat") == {"say"}
    assert kinds_where("deck_step") == {"shuffle", "lock", "keys"}
    assert kinds_where("deck_evidence") == {"shuffle", "lock", "keys", "move"}
    assert kinds_where("pipelined") == {"keys", "move"}
    assert kinds_where("makes_host") == {"table", "takeover"}


def test_an_envelope_kind_is_the_enum_and_its_bytes_the_wire_string() -> None:
    me = Identity(bytes(32))
    as_enum = seal(me, bytes(16), 0, 0, bytes(32), EntryKind.SAY, {"text": "hi"})
    as_text = seal(me, bytes(16), 0, 0, bytes(32), "say", {"text": "hi"})
    assert as_enum == as_text
    env = open_envelope(as_enum)
    assert env.kind is EntryKind.SAY and env.kind == "say" and f"{env.kind}" == "say"
