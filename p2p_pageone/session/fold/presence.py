"""A seat kept for its return, and a new host when the host goes.

Away and back (RULINGS Q14; protocol/SPEC.md §7, "Reconnect"):
A connection that drops mid-game is not a leave: the host appends ``away`` (the seat, why, and
the window in seconds it keeps the seat) and the table waits for that seat's steps. The same user
comes back by running the same ``pageone join``: its new connection reads the log, and its first
envelope is ``back``, signed with the identity it sat down with at its next sequence number: that
signature is the proof it is the same player. If the window runs out first, the host appends
``timeout`` and the seat leaves as any leaver does (the hand is void, the game goes on).

Takeover (SPEC §7, "Failover"):
Every joiner listens, and says where in its ``hello`` (or its ``back``). When the host's pageone
stops, the next seat (the lowest still in the game, after the host's, that listens) becomes the
sequencer: the others connect to it, hand it whatever log entries it lacks, and it appends
``takeover``. In every log that entry does what a leaver does for the old host (and for the seats
that cannot follow it, such as the CPU players the host ran): the hand in play is void, its
secrets died with the host. Every other seat is kept ``away`` for its return to the new host,
which each makes with ``back``, as after any dropped connection.
"""

from __future__ import annotations

from ...crypto.envelope import Envelope
from ...crypto.identity import fingerprint
from ...wire.codec import ProtocolError
from ...wire.kinds import EntryKind
from ..common import Event, TableEnded, checked_endpoint
from .leaving import leave
from .lost import known_at, listening_seats, majority_refusal, note_listening
from .obligations import note_presence
from .queries import reveal_due
from .rounds import heads_agree, start_hand
from .state import AWAYS_PAST_RUN, IDLE_RUN, Entries, PublicState


def away_refusal(s: PublicState, kind: EntryKind, seat: int) -> str | None:
    """Why an ``away`` for ``seat`` (or a ``back`` from it) cannot be in the log now."""
    refusal = seat_refusal(s, kind, seat)
    if refusal is None and kind == EntryKind.AWAY and s.away_past_run_refused(seat):
        return (f"more than {AWAYS_PAST_RUN} aways of one seat after {IDLE_RUN} entries in a "
                "row that did not move the game: the host waits for the seat's step, or its "
                "return")
    return refusal


def seat_refusal(s: PublicState, kind: EntryKind, seat: int) -> str | None:
    """``away_refusal`` but for the run of idle entries (which the game's next step ends)."""
    game = s.game
    if game is None or s.game_over or seat not in s.active:
        return f"{kind} is for a seat still in a running game"
    if kind == EntryKind.AWAY and (seat in s.away or (0 <= seat < len(s.keys)
                                     and s.keys[seat] == s.host_key)):
        return "away is for a joiner's seat that is not away already"
    if kind == EntryKind.BACK and seat not in s.away:
        return "back is for a seat kept away for its return"
    return None


def check_away(s: PublicState, env: Envelope, seat: int) -> None:
    refusal = away_refusal(s, EntryKind.AWAY, env.data["seat"])
    if refusal is not None:
        raise ProtocolError(refusal, fingerprint(env.sender))


def on_away(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    away = env.data["seat"]
    window = env.data["window"]
    note_presence(s, away, back=False)
    s.away[away] = window
    if s.idle_run_full():  # (the run counts this entry only once it is folded)
        s.aways_past_run[away] = s.aways_past_run.get(away, 0) + 1
    name = s.names[away]
    s.events.append(Event("away", f"{name} (seat {away}) left ({env.data['why']}): the seat "
                          f"is kept for {window} s for {name} to return; the table waits",
                          {"seat": away, "window": window, "position": len(s.log) - 1}))
    # a seat kept away still owes its witness (on the host's word alone no witness leaves a
    # round): it answers when it is back, or leaves by a claim of its own that stands


def check_back(s: PublicState, env: Envelope, seat: int) -> None:
    refusal = away_refusal(s, EntryKind.BACK, seat) if seat >= 0 else "back from someone not seated"
    if refusal is not None:  # its author signed it on the host's word (the welcome): the host
        # let it in, where an honest sequencer refuses it
        raise TableEnded(f"relayed a back the sequencer must refuse ({refusal}): its author "
                         "is not to blame", s.host_seat, refusal=refusal)


def on_back(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    note_presence(s, seat, back=True)
    del s.away[seat]
    note_listening(s)
    s.endpoints[env.sender] = checked_endpoint(env.data["endpoint"])
    s.events.append(Event("back", f"{s.names[seat]} (seat {seat}) returned: the game goes on",
                          {"seat": seat, "position": len(s.log) - 1}))


def takeover_refusal(s: PublicState, sender: bytes, old_host: int) -> str | None:
    """Why ``sender`` may not take the table over from the host at ``old_host`` now."""
    if s.game is None or s.game_over:
        return "a takeover is for a running game"
    if not 0 <= old_host < len(s.keys) or s.keys[old_host] != s.host_key:
        return "a takeover names the seat of the table's host"
    if s.seat_of(sender) not in s.successors():
        return ("only a seat still in the game that listens takes over (the first of them that "
                "can be reached)")
    return None


OUT_OF_PLACE = ("the new host's takeover came after entries it was not sealed on (an order no "
                "honest host makes): this log parts from the new host's, and from it alone "
                "nobody can be named")


def check_takeover(s: PublicState, env: Envelope, seat: int) -> None:
    assert s.chain is not None
    before = s.chain.length - 1
    at = s.chain.position(env.prev)  # (a known head: the chain checked it)
    at = before if at is None else at
    placed = at == before
    if not placed and not known_at(s, at):  # its author sealed it on a table this fold can
        raise TableEnded(OUT_OF_PLACE, -1)  # no longer tell (another host, a handover since)
    refusal = takeover_refusal(s, env.sender, env.data["seat"])
    if refusal is not None:
        raise ProtocolError(refusal, fingerprint(env.sender))
    # judged against the log before the takeover, as its sequencer judged them: a statement
    # one entry ahead of it (a seat that had one more of the old host's entries) would else
    # name the takeover's own position, and every fold would refuse an honest takeover
    # out of place, the table is judged as it was at its prev: who listened then, and a
    # signer's entries after it do not count against its statement (a majority short even so
    # was short there)
    short = majority_refusal(s, env.data["lost"], env.sender, at, lenient=not placed)
    if short is not None:  # it signed a takeover no majority of the table asked for
        raise TableEnded(f"took the table over without a majority of the seats having lost "
                         f"the host: {short}", seat, refusal=short)
    if not placed:
        # a new host's first entry is sealed against the log it took over, so it sits right
        # after its prev; elsewhere, a host ordered it so (the old one receipting it, or the
        # new one putting an entry before it), and this log alone cannot tell which
        raise TableEnded(OUT_OF_PLACE, -1)


def on_takeover(s: PublicState, env: Envelope, seat: int, now: float) -> None:
    old, window = env.data["seat"], env.data["window"]
    host_name, name = s.names[old], s.names[seat]
    gone = (f"{host_name}'s machine could not write its log and handed the table over"
            if s.handed_over >= 0 else
            f"{host_name}'s pageone (the host) was lost by {len(env.data['lost'])} of the "
            f"{len(listening_seats(s))} seats that listen, a majority")
    note_listening(s)
    s.host_key, s.handed_over = env.sender, -1
    s.host_since = s.chain.length - 1 if s.chain is not None else -1
    # the old host's open claims end with it: each was about a step of the hand the takeover
    # voids (nothing is owed for it now), and one about the new host itself would have the
    # table judge its new host on its old host's word
    s.claims.clear()
    endpoint = s.endpoints.get(env.sender, "")
    where = (f" (at {endpoint}: to come back, pageone join --connect {endpoint})" if endpoint
             else "")
    s.events.append(Event("takeover", f"{gone}: {name} "
                          f"(seat {seat}) is the table's host now{where}", {
                              "seat": seat, "old": old, "position": len(s.log) - 1,
                              "lost": len(env.data["lost"]), "handed": not env.data["lost"]}))
    stranded = [p for p in s.active if p not in (old, seat) and not s.endpoints.get(s.keys[p])]
    game = s.game
    assert game is not None
    left = "left with its pageone, the host's, which stopped"
    if reveal_due(s, old):  # the hand stays void; the log says what could not be checked
        left += (f" when its hand {s.hand} seed reveal was due: its moves of that hand cannot be "
                 "checked")
    for gone, why in [(old, left),
                      *[(p, "could not follow the table to its new host (it does not listen)")
                        for p in stranded]]:
        leave(s, gone, why, restart=False)  # all of them first: then one next hand
    if s.hand_end is not None:
        heads_agree(s)
    elif not game.over and not s.game_over:
        start_hand(s)
    for p in s.active:
        if p != seat:
            s.away[p] = window
            s.events.append(Event("away", f"{s.names[p]} (seat {p}) is to reconnect to the new "
                                  f"host: the seat is kept for {window} s; the table waits",
                                  {"seat": p, "window": window, "position": len(s.log) - 1}))


ENTRIES: Entries = {
    EntryKind.AWAY: (check_away, on_away),
    EntryKind.BACK: (check_back, on_back),
    EntryKind.TAKEOVER: (check_takeover, on_takeover),
}
