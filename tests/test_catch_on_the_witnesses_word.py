"""A catch is weighed on the witnesses' word that they held the caught seat's call first; that
word names nobody (protocol 17). Up to protocol 16 it named the host: at four seats a catch has
one witness, so the caller and that witness (two seats, the host honest) had every peer and the
audit name the honest host for "holding" a late call the caller had handed to its friend only.
Now the call the witness shows counts instead of the catch, and nobody is named."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from p2p_pageone.bots import make_bot
from p2p_pageone.byzantine.deeds import sealed_by
from p2p_pageone.cli.cpu import cpu_bot
from p2p_pageone.crypto.envelope import open_envelope
from p2p_pageone.engine import make_settings
from p2p_pageone.engine.moves import Call, Catch
from p2p_pageone.session.client import Client
from p2p_pageone.session.memory import MemoryTable
from p2p_pageone.wire.codec import ProtocolError
from tests.cheats import audit_of, table_with
from tests.test_call_to_the_mesh_only import Forgetful
from tests.test_host_cannot_frame import NeverCatches

HOST, CALLER, CATCHER, WITNESS = 0, 1, 2, 3
CAUGHT = 2  # the honest caller of the second test


class NoCatch(Forgetful):
    def choose(self, view: Any, rng: random.Random) -> Any:
        move = self.inner.choose(view, rng)
        return None if isinstance(move, Catch) else move


class Catcher:
    """Honest: catches a missed Page One call a second after it sees it, as a person would."""

    def __init__(self, inner: Any, clock: Any) -> None:
        self.inner, self.name, self.clock = inner, inner.name, clock
        self.seen: dict[str, float] = {}

    def choose(self, view: Any, rng: random.Random) -> Any:
        catch = next((m for m in view.legal_moves() if isinstance(m, Catch)), None)
        if catch is not None:
            first = self.seen.setdefault(repr(view.played_cards()), self.clock())
            if self.clock() - first >= 1.0:
                return catch
        return self.inner.choose(view, rng)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def forgetful_table(seats: int) -> MemoryTable:
    """Seed 3, a four-second window: CPU players that never catch, and a caller (seat 1) that
    never calls with its play (the test has it call late)."""
    table = MemoryTable(make_settings("classic", {"deals": 3}), seats, seed=3, direct=True,
                        catch_window=4.0)
    for seat, session in enumerate(table.sessions):
        session.bot = NoCatch(cpu_bot("normal", lambda: table.now, 3.0, 4.0,
                                      random.Random(seat)))
    table.sessions[CALLER].bot = Forgetful(table.sessions[CALLER].bot)
    return table


def hold_the_calls(table: MemoryTable, held: list[tuple[int, object, bytes]],
                   holding: Callable[[], bool]) -> Callable[..., bool]:
    """While ``holding()``, the host neither logs nor refuses the caller's calls (kept in
    ``held``), nor their relays; its own ``_submit`` is returned, to hand them in later."""
    seq, caller = table.sequencer, table.sessions[CALLER].identity.public
    submit, relayed = seq._submit, seq._relayed

    def a_call(raw: bytes) -> bool:
        env = open_envelope(raw)
        return (holding() and env.sender == caller and env.kind == "move"
                and env.data["kind"] == "call")

    def sequencing(conn: int, link: object, raw: bytes, now: float) -> bool:
        if a_call(raw):
            held.append((conn, link, raw))
            return True
        return submit(conn, link, raw, now)  # type: ignore[arg-type]

    seq._submit = sequencing  # type: ignore[method-assign,assignment]
    seq._relayed = lambda raw, now: False if a_call(raw) else relayed(raw, now)  # type: ignore[method-assign]
    return submit  # type: ignore[return-value]


def _seal_late_call_for_the_friend(table: MemoryTable, calls: dict[int, bytes]) -> None:
    """The caller seals a late call while its miss is open and hands it to its friend only."""
    cheat = table.sessions[CALLER]
    game = cheat.game
    if (game is None or game.deal.open_miss != CALLER or cheat.claims
            or any(at == len(cheat.log) for at in calls)):
        return
    raw = calls[len(cheat.log)] = sealed_by(cheat, "move", {
        "kind": "call", "target": -1, "positions": [], "cards": [], "keys": [], "call": False,
        "colour": -1}).raw
    for at in range(len(cheat.log), len(cheat.log) + 30):  # the friend answers a catch there
        table.sessions[WITNESS].mesh.first_call[at] = raw  # with it, at once


def _friend_answers_with_it(table: MemoryTable, calls: dict[int, bytes]) -> None:
    """The friend, the catch's only witness, says it held that call (it never relayed it)."""
    friend = table.sessions[WITNESS]
    for claim in friend.claims:
        if claim.kind == "catch" and claim.seat == CALLER and WITNESS in claim.due:
            raw = next((r for at, r in sorted(calls.items()) if at <= claim.position), None)
            if raw is not None:
                friend.mesh.first_call[claim.position] = raw


def test_a_caller_and_its_witness_friend_name_nobody_and_the_call_counts() -> None:
    table = MemoryTable(make_settings("classic", {"deals": 3}), 4, seed=3, direct=True,
                        catch_window=2.0)
    sessions = table.sessions
    for seat in (HOST, CATCHER):
        sessions[seat].bot = cpu_bot("normal", lambda: table.now, 3.0, 2.0, random.Random(seat))
    sessions[HOST].bot = NoCatch(sessions[HOST].bot)
    sessions[CATCHER].bot = Catcher(sessions[CATCHER].bot, lambda: table.now)
    sessions[CALLER].bot = Forgetful(sessions[CALLER].bot)
    sessions[WITNESS].bot = NoCatch(sessions[WITNESS].bot)
    calls: dict[int, bytes] = {}
    while table.now < 1500 and not any(s.ended for s in sessions) and not all(
            s.game_over for s in sessions):
        if not table.step():
            table.advance(table.now + 0.25)
        _seal_late_call_for_the_friend(table, calls)
        _friend_answers_with_it(table, calls)
    assert calls, "the caller never missed a call: pick another seed"
    for seat in (HOST, CATCHER):  # the honest seats
        session = sessions[seat]
        assert session.ended == "", session.ended
        assert session.void_catches, "no catch of the caller was weighed"
        audit = audit_of(session)
        assert audit.fault is None, audit.fault


def test_a_held_call_counts_though_its_number_went_to_a_witness_of_another_claim() -> None:
    # A host holds the caller's late call, logs a friend's catch, times the catcher out at once
    # (a claim the caller must witness), then refuses the held call: the caller seals its
    # witness at the call's number. The host keeps the catch's witness out until that witness
    # is in. Up to version 16 the call then no longer counted (it was not the caller's next
    # envelope when the round closed), and an honest caller was caught for a call it had sent
    # 1.5 s before; now what counts is its number when the catch was logged.
    table = table_with(make_settings("classic", {"deals": 3}), 4, seed=5,
                       bots={0: NeverCatches(), CAUGHT: make_bot("normal", 1.0)}, direct=True)
    caller, seq = table.sessions[CAUGHT], table.sequencer
    submit, relayed = seq._submit, seq._relayed
    stash: list[tuple[int, object, bytes]] = []
    kept: list[tuple[int, object, bytes]] = []
    call_at: list[float] = []
    numbers: list[int] = []  # the held call's

    def holding(conn: int, link: object, raw: bytes, now: float) -> bool:
        env = open_envelope(raw)
        if not stash and not (env.kind == "move" and env.data["kind"] == "catch"
                              and env.data["target"] == CAUGHT):
            return submit(conn, link, raw, now)  # type: ignore[arg-type]
        if env.sender == caller.identity.public and env.data.get("kind") == "call":
            call_at.append(now)
            numbers.append(env.seq)
        stash.append((conn, link, raw))
        return True

    def keeping_the_catchs_witness(conn: int, link: object, raw: bytes, now: float) -> bool:
        env = open_envelope(raw)
        if env.kind == "witness" and env.data["seat"] == CAUGHT and not _witnessed(table):
            kept.append((conn, link, raw))
            return True
        done = submit(conn, link, raw, now)  # type: ignore[arg-type]
        if kept and _witnessed(table):
            for held in kept:
                submit(*held, now)  # type: ignore[arg-type]
            kept.clear()
        return done

    seq._submit = holding  # type: ignore[method-assign,assignment]
    seq._relayed = lambda raw, now: False if stash or kept else relayed(raw, now)  # type: ignore[method-assign]
    while not table.finished() and table.now < 3600:
        if call_at and table.now - call_at[0] >= 1.5 and seq._submit is holding:
            seq._submit = keeping_the_catchs_witness  # type: ignore[method-assign,assignment]
            catch = open_envelope(stash[0][2])
            submit(*stash[0], table.now)  # type: ignore[arg-type]
            seq._timeout(seq.host.seat_of(catch.sender), "its move", table.now)
            for held in stash[1:]:  # the call: refused, the round is open
                submit(*held, table.now)  # type: ignore[arg-type]
            stash.clear()
        game = caller.game
        if (stash and not call_at and not caller.in_flight and caller.outbox.requested is None
                and game is not None and game.deal.open_miss == CAUGHT):
            caller.request(Call(CAUGHT))
            table.clients[CAUGHT - 1].collect()
        if not table.step():
            table.advance(table.now + 0.1)
    assert call_at, "nobody caught the caller: pick another seed"
    assert any(env.kind == "witness" and env.sender == caller.identity.public
               and env.seq == numbers[0] for env in map(open_envelope, caller.log))
    for session in table.sessions:
        assert session.ended == "" and session.game_over, session.ended
        assert len(session.void_catches) == 1
        at = list(session.log).index(session.void_catches[0])
        taken = {p: m for record in session.history
                 for p, m in zip(record.positions, record.moves, strict=True)}
        assert taken[at] == Call(CAUGHT)
        assert audit_of(session).fault is None


def _witnessed(table: MemoryTable) -> bool:
    """The caught seat's witness of the catcher's timeout is in the host's log."""
    host = table.sequencer.host
    return any(open_envelope(raw).kind == "witness"
               and open_envelope(raw).sender == host.keys[CAUGHT] for raw in host.log)


def test_a_witness_cut_off_as_the_call_came_still_counts_it() -> None:
    # The host alone: as the caller's miss opens it drops the catch's only witness (which still
    # hears the mesh, and comes back as pageone join does), holds the caller's late call and
    # logs an honest catch 2 s later. The witness could hand the call to nobody while cut off;
    # up to the version-17 review it counted only a call it had relayed, answered empty, and
    # the honest caller was caught. It counts what it received 1 s before the catch now.
    table = forgetful_table(4)
    sessions = table.sessions
    host, witness, seq = sessions[HOST], sessions[WITNESS], table.sequencer
    held: list[tuple[int, object, bytes]] = []
    moments: dict[str, float] = {}
    submit = hold_the_calls(table, held, lambda: "caught" not in moments)
    table._direct = lambda: _mesh_reaches_the_dropped(table)  # type: ignore[method-assign]
    witness.attachment.may_resume = True  # as pageone join sets it: it comes back
    while table.now < 3000 and not table.finished():
        _cut_off_call_and_catch(table, moments)
        if "caught" not in moments and host.claims:
            moments["caught"] = table.now
            for args in held:  # refused: the round is open
                submit(*args, table.now)  # type: ignore[arg-type]
        if "caught" in moments and "back" not in moments and (
                table.now - moments["dropped"] >= 2.5):
            moments["back"] = table.now
            table.dead.discard(WITNESS)
            witness.resume()
            client = Client(witness, table.now, expect=host.identity.public)
            table.clients[WITNESS - 1] = client
            table.by_endpoint[witness.attachment.endpoint] = client
            seq.connect(WITNESS, table.now)
        if not table.step():
            table.advance(table.now + 0.1)
    assert held and "back" in moments
    for session in sessions:
        assert session.ended == "" and session.game_over, session.ended
        assert len(session.void_catches) == 1
        assert audit_of(session).fault is None


def _cut_off_call_and_catch(table: MemoryTable, moments: dict[str, float]) -> None:
    """As the miss opens the host drops the witness and the caller calls at once; 2 s later
    an honest catcher catches."""
    host = table.sessions[HOST]
    if "dropped" not in moments and host.game is not None and (
            host.game.deal.open_miss == CALLER):
        moments["dropped"] = table.now
        table.dead.add(WITNESS)
        table.sequencer.disconnect(WITNESS, table.now)
        table.clients[WITNESS - 1].closed()
    _call_then_catch(table, moments)


def _mesh_reaches_the_dropped(table: MemoryTable) -> bool:
    """The mesh does not go through the host: a seat the host dropped still hears it."""
    moved = False
    for client in table.clients:
        sent, client.session.outbox.direct_out = client.session.outbox.direct_out, []
        for endpoint, raw in sent:
            owner = table.by_endpoint.get(endpoint)
            if owner is not None:
                owner.session.direct(raw, table.now)
                owner.collect()
                moved = True
    return moved


@pytest.mark.parametrize("seats", [4, 6])
def test_the_catcher_witnesses_its_own_catch(seats: int) -> None:
    # The host and its friends (one at four seats, two at six) against an honest caller and an
    # honest catcher: the host holds the late call, a person at another seat sees none and
    # catches 2 s later, and the friends say they held nothing. With the catcher struck from
    # the witnesses (up to the version-17 review) the friends were all or most of them and the
    # caller was caught; the catcher, which held the call on the mesh, witnesses too now.
    friends = [3] if seats == 4 else [3, 4]
    table = forgetful_table(seats)
    sessions, caller = table.sessions, table.sessions[CALLER]
    held: list[tuple[int, object, bytes]] = []
    moments: dict[str, float] = {}
    submit = hold_the_calls(table, held, lambda: "caught" not in moments)
    for friend in friends:  # they never "hold" the caller's call
        sessions[friend].direct = deaf_to_calls(sessions[friend].direct,  # type: ignore[method-assign]
                                                 caller.identity.public)
    while table.now < 3000 and not table.finished():
        _call_then_catch(table, moments)
        if "caught" not in moments and sessions[HOST].claims:
            moments["caught"] = table.now
            for args in held:  # refused: the round is open
                submit(*args, table.now)  # type: ignore[arg-type]
        if not table.step():
            table.advance(table.now + 0.1)
    assert held and "caught" in moments
    for session in sessions:
        assert session.ended == "" and session.game_over, session.ended
        assert len(session.void_catches) == 1
        assert audit_of(session).fault is None


def deaf_to_calls(direct: Any, caller: bytes) -> Any:
    def deaf(raw: bytes, now: float) -> Any:
        try:
            env = open_envelope(raw)
        except ProtocolError:
            return direct(raw, now)
        if env.sender == caller and env.kind == "move" and env.data["kind"] == "call":
            return None
        return direct(raw, now)
    return deaf


def _call_then_catch(table: MemoryTable, moments: dict[str, float]) -> None:
    """The honest caller calls late as its miss opens; an honest catcher catches 2 s later."""
    caller = table.sessions[CALLER]
    if ("called" not in moments and caller.game is not None
            and caller.game.deal.open_miss == CALLER and not caller.claims
            and not caller.in_flight and caller.outbox.requested is None):
        moments["called"] = table.now
        caller.request(Call(CALLER))
        table.clients[CALLER - 1].collect()
    if "called" in moments and "catch" not in moments and table.now - moments["called"] >= 2.0:
        moments["catch"] = table.now
        table.sessions[CATCHER].request(Catch(CATCHER, CALLER))
        table.clients[CATCHER - 1].collect()
