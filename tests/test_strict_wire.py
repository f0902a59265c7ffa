"""A strict wire (protocol/SPEC.md §2, §3): the signature is checked before anything signed is
decoded; weak keys, duplicate or non-string map keys, non-canonical encodings and wrong types are
refused with errors naming the sender."""

from __future__ import annotations

import hashlib
from typing import Any

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p_pageone.crypto.envelope import (
    SIGNING_TAG,
    VERSION,
    BadSignature,
    open_envelope,
    seal,
)
from p2p_pageone.crypto.identity import Identity, verify_signature, weak_public_key
from p2p_pageone.engine import make_settings
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.wire.codec import ProtocolError, frame, pack, unpack

from .helpers import challenge_to

ALICE = Identity(hashlib.sha256(b"alice").digest())
MALLORY = Identity(hashlib.sha256(b"mallory").digest())
TABLE = b"T" * 16
P = 2**255 - 19
NEUTRAL = bytes([1]) + bytes(31)  # the neutral point: [S]B = R + [k]A holds with R = B*S for any k
SMALL_ORDER = [
    NEUTRAL, bytes(32), (P - 1).to_bytes(32, "little"),
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),
]


def header(sender: bytes, kind: str, data: Any, **changes: Any) -> dict[str, Any]:
    return {"v": VERSION, "table": TABLE, "hand": 0, "from": sender, "seq": 0,
            "prev": bytes(32), "type": kind, "data": data, **changes}


def signed(identity: Identity, body: bytes, outer: bytes | None = None) -> bytes:
    """An envelope around ``body`` exactly as given, signed by ``identity`` (nothing checked)."""
    key = identity.public if outer is None else outer
    return pack([key, body, identity.sign(SIGNING_TAG + body)])


class Encoded(bytes):
    """A value already in msgpack, to be put into a map as it is."""


def raw_map(pairs: list[tuple[Any, Any]]) -> bytes:
    """A msgpack map of these pairs in this order, duplicates and odd keys included."""
    packer = msgpack.Packer(use_bin_type=True)
    return packer.pack_map_header(len(pairs)) + b"".join(
        packer.pack(k) + (v if isinstance(v, Encoded) else packer.pack(v)) for k, v in pairs)


# --- weak keys ---------------------------------------------------------------------------------


@pytest.mark.parametrize("key", SMALL_ORDER)
def test_small_order_keys_are_weak(key: bytes) -> None:
    assert "small-order" in weak_public_key(key)


def test_non_canonical_key_encodings_are_weak() -> None:
    assert "canonical" in weak_public_key((P + 1).to_bytes(32, "little"))


@given(st.binary(min_size=32, max_size=32))
def test_real_keys_are_not_weak(secret: bytes) -> None:
    assert weak_public_key(Identity(secret).public) == ""


def test_a_signature_under_the_neutral_key_verifies_nothing() -> None:
    forged = NEUTRAL + bytes(32)  # R = neutral, S = 0: Ed25519 alone accepts it for any message
    assert not verify_signature(NEUTRAL, forged, SIGNING_TAG + b"anything")
    raw = pack([NEUTRAL, pack(header(NEUTRAL, "say", {"text": "hi"})), forged])
    with pytest.raises(ProtocolError, match="small-order"):
        open_envelope(raw)


def test_the_table_refuses_to_seat_a_small_order_key() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=3)
    host = table.sessions[0]  # the table is open, no joiner has sat down yet
    assert host.chain is not None
    body = pack(header(NEUTRAL, "hello", {"name": "mallory", "proto": VERSION, "client": "x",
                                           "endpoint": ""},
                       table=host.table_id, prev=host.chain.head))
    table.sequencer.connect(77, table.now)
    table.kill(77)
    challenge = challenge_to(table.sequencer, 77)
    proof = pack(["proof", NEUTRAL, pack({"nonce": challenge["nonce"], "to": challenge["from"],
                                          "role": "intro"}), NEUTRAL + bytes(32)])
    intro = {"control": "intro", "from": NEUTRAL, "proof": proof}  # it cannot prove that key
    table.sequencer.receive(77, frame(pack(intro)), table.now)
    replies = [unpack(data[4:]) for conn, data in table.sequencer.out if conn == 77]
    assert replies and "small-order" in str(replies[-1]["reason"])
    table.sequencer.receive(77, frame(pack([NEUTRAL, body, NEUTRAL + bytes(32)])), table.now)
    assert all(link.key != NEUTRAL for link in table.sequencer.links.values())
    table.run(limit=600)
    assert all(session.game_over for session in table.sessions), [s.ended for s in table.sessions]


# --- the signature before the body ---------------------------------------------------------------


@pytest.mark.parametrize("body", [b"\xc1\xc1\xc1", b"\x81\x01\x02", raw_map([("a", 1), ("a", 2)]),
                                  pack(header(ALICE.public, "say", {"text": "hi"}))])
def test_a_bad_signature_is_found_before_the_body_is_read(body: bytes) -> None:
    """Whatever the body holds (garbage, a non-string key, a duplicate key, a good message), a
    signature that does not verify is all that is reported: nothing signed was decoded."""
    raw = pack([ALICE.public, body, MALLORY.sign(SIGNING_TAG + body)])
    with pytest.raises(BadSignature) as error:
        open_envelope(raw)
    assert error.value.peer == ALICE.fingerprint


def test_a_well_signed_body_that_is_not_msgpack_names_its_signer() -> None:
    with pytest.raises(ProtocolError, match="not valid msgpack") as error:
        open_envelope(signed(ALICE, b"\xc1"))
    assert error.value.peer == ALICE.fingerprint


def test_the_outer_key_only_picks_the_key_the_body_must_name() -> None:
    body = pack(header(ALICE.public, "say", {"text": "hi"}))
    with pytest.raises(BadSignature):  # Mallory's key cannot verify Alice's signature
        open_envelope(signed(ALICE, body, outer=MALLORY.public))
    claimed = pack(header(ALICE.public, "say", {"text": "hi"}))
    with pytest.raises(ProtocolError, match="signed sender differs") as error:
        open_envelope(signed(MALLORY, claimed))  # Mallory signs a body that names Alice
    assert error.value.peer == MALLORY.fingerprint


def test_a_seated_connection_is_held_to_its_key_before_anything_is_verified() -> None:
    raw = seal(MALLORY, TABLE, 0, 0, bytes(32), "say", {"text": "hi"})
    with pytest.raises(ProtocolError, match="one connection speaks for one identity") as error:
        open_envelope(raw, seated=ALICE.public)
    assert error.value.peer == ALICE.fingerprint
    assert open_envelope(raw, seated=MALLORY.public).data == {"text": "hi"}


def test_a_seated_joiner_cannot_speak_for_another_identity() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 1}), 3, seed=5)
    for _ in range(20):
        table.step()
    host = table.sessions[0]
    assert host.chain is not None and len(host.keys) == 3
    other = table.sessions[2].identity  # its signature is real, but connection 1 is p1's
    raw = seal(other, host.table_id, host.hand, host.chain.next_seq(other.public),
               host.chain.head, "say", {"text": "hi"})
    table.sequencer.out.clear()
    table.sequencer.receive(1, frame(raw), table.now)
    replies = [unpack(data[4:]) for conn, data in table.sequencer.out if conn == 1]
    assert any("one connection speaks for one identity" in str(r.get("reason")) for r in replies)
    assert raw not in host.log


def test_an_older_protocol_envelope_gets_a_clear_answer() -> None:
    body = pack(header(ALICE.public, "say", {"text": "hi"}, v=2))
    with pytest.raises(ProtocolError, match="version 2 or older"):
        open_envelope(pack([body, ALICE.sign(SIGNING_TAG + body)]))


# --- duplicate keys, non-string keys, long forms, wrong types -----------------------------------


def test_duplicate_keys_and_long_forms_are_refused() -> None:
    good = seal(ALICE, TABLE, 0, 0, bytes(32), "say", {"text": "hi"})
    _, body, _ = unpack(good)
    fields = unpack(body)
    # the same header with "type" twice: a parser that keeps the first would read another message
    twice = raw_map([*fields.items(), ("type", "bye")])
    with pytest.raises(ProtocolError, match="'type' appears twice") as error:
        open_envelope(signed(ALICE, twice))
    assert error.value.peer == ALICE.fingerprint
    long_form = body.replace(b"\xa4hand\x00", b"\xa4hand\xcc\x00")
    assert long_form != body
    with pytest.raises(ProtocolError, match="canonical") as error:
        open_envelope(signed(ALICE, long_form))
    assert error.value.peer == ALICE.fingerprint
    assert open_envelope(good).data == {"text": "hi"}


@pytest.mark.parametrize("key", [b"text", 7, True, None, 1.5])
def test_a_non_string_key_in_a_message_names_its_sender(key: Any) -> None:
    data = Encoded(raw_map([(key, "hi")]))
    body = raw_map([*header(ALICE.public, "say", data).items()])
    with pytest.raises(ProtocolError, match="map keys are strings") as error:
        open_envelope(signed(ALICE, body))
    assert error.value.peer == ALICE.fingerprint


@pytest.mark.parametrize(("field", "value", "expected"), [
    ("hand", True, "hand field must be an integer"),
    ("seq", 1.0, "seq field must be an integer"),
    ("v", float(VERSION), "protocol version a float"),
    ("v", True, "protocol version a boolean"),
    ("table", "T" * 16, "table field must be 16 bytes"),
])
def test_a_header_field_of_the_wrong_type_is_refused(field: str, value: Any,
                                                      expected: str) -> None:
    body = pack(header(ALICE.public, "say", {"text": "hi"}, **{field: value}))
    with pytest.raises(ProtocolError, match=expected) as error:
        open_envelope(signed(ALICE, body))
    assert error.value.peer == ALICE.fingerprint


INT_FIELDS = [
    ("timeout", {"seat": 1, "waited_for": "x"}, "seat"),
    ("hello", {"name": "a", "proto": VERSION, "client": "c", "endpoint": ""}, "proto"),
    ("seat", {"seat": 1, "key": bytes(32), "name": "a"}, "seat"),
    ("table", {"name": "t", "rules": "classic", "options": {}, "seats": 3}, "seats"),
    ("move", {"kind": "draw", "positions": [], "cards": [], "keys": [], "call": False,
              "colour": 0, "target": 1}, "colour"),
    ("move", {"kind": "draw", "positions": [], "cards": [], "keys": [], "call": False,
              "colour": 0, "target": 1}, "target"),
]


@given(st.sampled_from(INT_FIELDS),
       st.one_of(st.booleans(), st.floats(allow_nan=False), st.text(max_size=3),
                 st.binary(max_size=3), st.none()))
def test_a_message_field_that_is_not_an_integer_is_refused(case: tuple[str, dict[str, Any], str],
                                                           value: Any) -> None:
    kind, data, field = case
    body = pack(header(ALICE.public, kind, {**data, field: value}))
    with pytest.raises(ProtocolError, match=f"field '{field}' of a {kind} message must be an "
                       "integer") as error:
        open_envelope(signed(ALICE, body))
    assert error.value.peer == ALICE.fingerprint
    assert open_envelope(signed(ALICE, pack(header(ALICE.public, kind, data)))).kind == kind


# --- the codec, by property ---------------------------------------------------------------------

SCALARS = (st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1)
           | st.floats(allow_nan=False) | st.text(max_size=20) | st.binary(max_size=20))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=5)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=5), max_leaves=20)


@given(VALUES)
def test_every_value_round_trips_in_one_canonical_encoding(value: Any) -> None:
    data = pack(value)
    assert unpack(data) == value
    assert pack(unpack(data)) == data


@given(st.binary(max_size=200))
def test_any_bytes_decode_or_raise_protocol_error_only(data: bytes) -> None:
    try:
        unpack(data)
    except ProtocolError as error:
        assert error.reason


@given(st.dictionaries(st.text(max_size=8), SCALARS, min_size=1, max_size=6), st.data())
def test_a_map_with_a_repeated_key_is_refused_wherever_it_is(fields: dict[str, Any],
                                                             draw: st.DataObject) -> None:
    pairs = list(fields.items())
    key = draw.draw(st.sampled_from(list(fields)))
    at = draw.draw(st.integers(0, len(pairs)))
    pairs.insert(at, (key, draw.draw(SCALARS)))
    nested = draw.draw(st.booleans())
    data = b"\x92\x01" + raw_map(pairs) if nested else raw_map(pairs)  # [1, {…}] or {…}
    with pytest.raises(ProtocolError, match="appears twice"):
        unpack(data)


@given(st.one_of(st.integers(), st.binary(max_size=4), st.booleans(), st.none(),
                 st.floats(allow_nan=False)), SCALARS)
def test_a_map_key_that_is_not_a_string_is_refused(key: Any, value: Any) -> None:
    with pytest.raises(ProtocolError, match="map keys are strings"):
        unpack(raw_map([("ok", 1), (key, value)]))


@given(st.integers(0, 10_000), st.integers(1, 255))
def test_no_single_byte_change_to_an_envelope_is_accepted(where: int, flip: int) -> None:
    raw = seal(ALICE, TABLE, 1, 2, bytes(32), "say", {"text": "a message of some length"})
    where %= len(raw)
    changed = raw[:where] + bytes([raw[where] ^ flip]) + raw[where + 1:]
    with pytest.raises(ProtocolError):
        open_envelope(changed)


@given(st.sampled_from(["ping", "refused"]), st.dictionaries(
    st.sampled_from(["seq", "reason", "code", "extra"]),
    st.one_of(st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False), st.text(max_size=3)),
    max_size=4))
def test_control_frames_have_exact_fields_and_types(kind: str, fields: dict[str, Any]) -> None:
    from p2p_pageone.wire.messages import validate_control

    value = {"control": kind, **fields}
    good = (fields == {} if kind == "ping" else set(fields) == {"seq", "reason", "code"}
            and type(fields["seq"]) is int and type(fields["reason"]) is str
            and type(fields["code"]) is int and fields["code"] >= 0)
    if good:
        assert validate_control(value, ("ping", "refused")) == kind
    else:
        with pytest.raises(ProtocolError):
            validate_control(value, ("ping", "refused"))


@pytest.mark.parametrize(("option", "value"), [("hand_size", "5"), ("hand_size", 5.0),
                                               ("reverse_lead", 0), ("deals", True)])
def test_table_settings_travel_in_their_own_types(option: str, value: Any) -> None:
    from dataclasses import asdict

    from p2p_pageone.crypto.envelope import genesis
    from p2p_pageone.session.fold.table import FOLD_ERRORS, TableState

    settings = make_settings("classic", {"deals": 1})
    options = {**asdict(settings), option: value}
    data = {"name": "t", "rules": "classic", "options": options, "seats": 3}
    raw = signed(ALICE, pack(header(ALICE.public, "table", data, prev=genesis(TABLE))))
    with pytest.raises(FOLD_ERRORS) as error:
        TableState().apply(raw)
    assert ALICE.fingerprint in str(error.value), error.value
    good = seal(ALICE, TABLE, 0, 0, genesis(TABLE), "table",
                {"name": "t", "rules": "classic", "options": asdict(settings), "seats": 3})
    assert TableState().apply(good)[0].kind == "table"


def loose_pack(value: Any, choose: st.DataObject) -> bytes:
    """``value`` in msgpack with each length and number in a form ``choose`` picks: the shortest
    one (what ``pack`` writes) or a longer one that decodes to the same value."""
    def pick(forms: list[bytes]) -> bytes:
        return forms[0] if len(forms) == 1 else choose.draw(st.sampled_from(forms))

    def sized(n: int, fix: tuple[int, int] | None, wide: list[tuple[int, int]]) -> bytes:
        forms = [bytes([fix[0] | n])] if fix is not None and n < fix[1] else []
        forms += [bytes([code]) + n.to_bytes(width, "big") for code, width in wide
                  if n < 256 ** width]
        return pick(forms)

    if value is None or type(value) is bool:
        return pack(value)
    if type(value) is int:
        forms = [pack(value)]
        for code, width, signed in ((0xcc, 1, False), (0xcd, 2, False), (0xce, 4, False),
                                    (0xcf, 8, False), (0xd0, 1, True), (0xd1, 2, True),
                                    (0xd2, 4, True), (0xd3, 8, True)):
            try:
                form = bytes([code]) + value.to_bytes(width, "big", signed=signed)
            except OverflowError:
                continue
            if form not in forms:
                forms.append(form)
        return pick(forms)
    if type(value) is str:
        data = value.encode()
        return sized(len(data), (0xa0, 32), [(0xd9, 1), (0xda, 2), (0xdb, 4)]) + data
    if type(value) is bytes:
        return sized(len(value), None, [(0xc4, 1), (0xc5, 2), (0xc6, 4)]) + value
    if type(value) is list:
        return sized(len(value), (0x90, 16), [(0xdc, 2), (0xdd, 4)]) + b"".join(
            loose_pack(item, choose) for item in value)
    assert type(value) is dict
    return sized(len(value), (0x80, 16), [(0xde, 2), (0xdf, 4)]) + b"".join(
        loose_pack(k, choose) + loose_pack(v, choose) for k, v in value.items())


@given(st.sampled_from([("say", {"text": "hi"}), ("timeout", {"seat": 2, "waited_for": "x"}),
                        ("move", {"kind": "play", "positions": [3, 200], "cards": [7, 52],
                                  "keys": [bytes(32), bytes(range(32))], "call": True,
                                  "colour": -1, "target": 1})]),
       st.integers(0, 2**32 - 1), st.data())
def test_one_message_has_one_encoding(case: tuple[str, dict[str, Any]], seq: int,
                                      choose: st.DataObject) -> None:
    """The same message written with a longer form anywhere (a number, a length) is refused:
    the bytes signed, chained and compared between logs are the one canonical encoding."""
    kind, data = case
    fields = header(ALICE.public, kind, data, seq=seq)
    body = loose_pack(fields, choose)
    assert unpack(body) == fields
    if body == pack(fields):
        assert open_envelope(signed(ALICE, body)).data == data
    else:
        with pytest.raises(ProtocolError, match="canonical") as error:
            open_envelope(signed(ALICE, body))
        assert error.value.peer == ALICE.fingerprint
    good = pack(fields)
    outer = [ALICE.public, good, ALICE.sign(SIGNING_TAG + good)]
    raw = loose_pack(outer, choose)
    if raw == pack(outer):
        assert open_envelope(raw).seq == seq
    else:
        with pytest.raises(ProtocolError, match="canonical"):
            open_envelope(raw)
