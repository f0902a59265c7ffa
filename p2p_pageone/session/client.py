"""A joiner's side of its connection to the sequencer, sans-I/O, with its own timers.

The joiner times what it waits for, the host's own steps included: the host must time a silent
step out after 30 s, so a table that has waited much longer without a new entry has a host that
is not doing its part, and the joiner leaves saying so (its `bye` accuses nobody: it has no
evidence, only a clock). Before it blames anyone it asks "was it me?": a stall of its own
process (a gap between two ticks) resets every timer, and a step that is its own is its own.
"""

from __future__ import annotations

from typing import Any

from ..crypto.envelope import open_envelope
from ..wire.codec import FrameDecoder, ProtocolError, frame, pack, unpack
from ..wire.messages import validate_control
from .attachment import lost_frame
from .common import BUSY, Event, Refusal
from .fold.obligations import (
    BOUNDS,
    came_back_owing,
    joiner_timed,
    open_claims,
    progressed,
    stalemate,
)
from .links import answer_challenge
from .logsync import NotServing, serving
from .peer import PeerSession
from .rtt import PING as PING  # the plain ping, for those that send one by hand
from .rtt import RoundTrip, ping, pong
from .witnessing import censored, witness_owed_since

STALL = 2.0  # seconds between two ticks (at least one every heartbeat) only a stall explains
NOTICE_STALL = 5.0  # a stall this long is told to the player
WELCOME_WITHIN = 10.0  # the host answers an intro at once; the host seats within 10 s too
# Back to a seat mid-game, the challenge (sent at accept) is waited for this long only: a stopped
# host's machine accepts the connection and says nothing (SPEC §7, "Failover")
CHALLENGE_AGAIN_WITHIN = 2.0
STEP_LIMIT = BOUNDS.give_up  # the host times a step out before; a table still waiting is
# not served
CLAIMS_AT_MOST = BOUNDS.claims_at_most  # claims alone hold a table this long at most
DONE_WAIT = 30.0  # after the game, how long a joiner waits for the host to confirm its ``done``


class Client:
    def __init__(self, session: PeerSession, now: float, silent_after: float = 10.0,
                 heartbeat: float = 1.0, step_limit: float = STEP_LIMIT,
                 expect: bytes = b"") -> None:
        self.session = session
        seated = session.game is not None and session.me in session.active
        # a seat back at its host's address, a machine it timed before, is challenged at once
        # (a stopped host's machine that takes the connection and says nothing is told in 2 s);
        # a new host, after a takeover, is a machine whose link it never timed
        self.challenge_within = (CHALLENGE_AGAIN_WITHIN if seated
                                 and not session.attachment.via_successor else WELCOME_WITHIN)
        self.silent_after, self.heartbeat, self.step_limit = silent_after, heartbeat, step_limit
        self.rtt = RoundTrip()  # the link to the host: its silence threshold adapts to it
        self.decoder = FrameDecoder()
        self.last_seen = now
        self.progress = now  # when the log last grew
        self._last_tick = now
        self._last_ping = now
        self.opened = now
        self.out: list[bytes] = []
        self.done_sent = -1  # after the game: the log length we said we have folded, and when
        self.done_at = 0.0
        self.confirmed = False  # the host has our acknowledgement of the game's end
        self.gone = False  # the connection closed
        # The host's first frame is a challenge; our intro (the key we sit with) answers it with
        # a proof, once, and only if the key that challenges is the one we expect there.
        self.expect = expect
        self.host_at_open = session.host_key  # the host our log named when this opened
        self.reading = expect  # the key that answers here (its challenge says, if not known)
        self.introduced = session.is_host
        self.flight = (b"", now)  # our oldest envelope out, and when we saw it go

    def receive(self, data: bytes, now: float) -> None:
        self.last_seen = now
        try:
            for payload in self.decoder.feed(data):
                value: Any = unpack(payload)
                if not isinstance(value, dict):
                    raise ProtocolError("a frame is a control map: the log comes as entry "
                                        "frames, each with its index")
                # a challenge (a joiner's listener, first): nothing to prove here yet
                kind = validate_control(value, ("ping", "pong", "refused", "welcome", "done",
                                                "chat", "challenge", "entry", "follows",
                                                "holds"))
                if kind == "entry":
                    self._entry(value["index"], value["raw"], now, value.get("receipt", b""))
                elif kind == "challenge":
                    self._introduce(value)
                elif kind == "ping" and "n" in value:
                    self.out.append(pong(value["n"]))
                elif kind == "pong":
                    self.rtt.echoed(value["n"], now)
                elif kind == "refused":
                    self.session.refused(value["reason"], now, value["seq"],
                                         code=Refusal.parse(value["code"]))
                elif kind == "welcome":
                    self.session.welcomed(value, now)
                    self._hand_over_log()
                elif kind == "done" and value["index"] == self.done_sent:
                    self.confirmed = True
                elif kind == "follows":  # a successor's listener: whom its seat follows now
                    self.session.attachment.follows = value["host"]
                elif kind == "holds":  # or the statements it holds, in a drop
                    self.session.attachment.holds = list(value["lost"])
                # a "chat" frame (a watcher's line, on the host's word only: no one
                # signed it) is not shown
        except NotServing as error:  # it will not sign its entries' places: as if it stopped
            self._unserved(error.reason, now)  # sending us the log
        except ProtocolError as error:
            self.session.lost_host(f"the host sent malformed data ({error.reason})")
        self.collect()
        self._acknowledge(now)

    def _entry(self, index: int, raw: bytes, now: float, receipt: bytes = b"") -> None:
        if self._moved_away():
            return
        s, claims = self.session, open_claims(self.session)
        refuted = len(s.refuted)
        # an entry that waits behind a gap moves nothing on (yet)
        if (s.from_host(index, raw, now, receipt, self.reading)
                and progressed(s, claims, refuted)):
            self.progress = now

    def _introduce(self, value: dict[str, Any]) -> None:
        """Answer the host's challenge: our intro, with the proof that we hold our key."""
        if self.introduced:
            raise ProtocolError("a second challenge")
        self.introduced, self.reading = True, self.reading or value["from"]
        try:
            self.out.append(answer_challenge(value, self.session.identity, {"control": "intro"},
                                             self.expect))
        except ProtocolError as error:
            self.session.lost_host(f"not the table's host: {error.reason}")

    def _hand_over_log(self) -> None:
        """A new host lacks the old host's last entries that we hold: they go first."""
        s = self.session
        if s.attachment.resend >= 0:
            self.out += [frame(pack({"control": "entry", "index": i, "raw": s.log[i]}))
                         for i in range(s.attachment.resend, len(s.log))]
            s.attachment.resend = -1

    def _moved_away(self) -> bool:
        """Our log took a takeover from the others (the mesh) while this connection reads the
        old host (``reading``: the key that answers here is neither the host our log named when
        it opened nor the one it names now): its entries are no longer our log's, and we leave
        it for the new host (``Reattach``). True if so."""
        s = self.session
        if not self.host_at_open:  # a first connection: the host is the one the log names
            self.host_at_open = s.host_key
        moved = bool(s.host_key and self.reading) and s.host_key not in (self.host_at_open,
                                                                         self.reading)
        if moved and not s.attachment.dropped and not s.ended:
            s.lost_host(f"the table moved to {s.names[s.seat_of(s.host_key)]}, its new host: "
                        "this connection reads the old one")
        return moved

    def tick(self, now: float) -> None:
        if self._moved_away():
            return
        gap, self._last_tick = now - self._last_tick, now
        if gap > STALL:
            self._stalled(gap, now)
        self._heard_through_the_others()
        silent_after = self.rtt.silent_after(self.silent_after)
        if now - self.last_seen > silent_after:
            self.session.lost_host(f"the host sent nothing for {silent_after:.0f} s: it, "
                                   "or the network between us (this machine's included), is "
                                   "down")
        # on a reconnect, a slow link (its round trips measured before) waits as long as before
        within = min(WELCOME_WITHIN, max(self.challenge_within, self.rtt.silent_after(0.0)))
        if not self.introduced and now - self.opened > within:
            self.session.lost_host(f"the host sent no challenge in {within:.0f} s: it "
                                   "is stuck, runs an older pageone than this one (use the same "
                                   "pageone version), or is not a pageone table")
        elif not self.session.attachment.answered and now - self.opened > WELCOME_WITHIN:
            self.session.lost_host(f"the host did not answer our introduction in "
                                   f"{WELCOME_WITHIN:.0f} s: it is stuck, or not a pageone table")
        self._check_steps(now)
        if now - self._last_ping >= self.heartbeat:
            self._last_ping = now  # echoes are asked once seated: an older host that refuses
            # our hello (another protocol version) never sees one
            self.out.append(ping(self.rtt.probe(now) if self.session.attachment.log_read else None))
        self.session.tick(now)
        self.collect()
        self._acknowledge(now)

    def _heard_through_the_others(self) -> None:
        """Entries the host receipted that reached us through the other seats, and their signs
        of life showing the log grow, are the host at work: the table moves, though the host may
        not be sending to us (``logsync``)."""
        mesh = self.session.mesh
        self.progress = max(self.progress, mesh.synced_at)
        self.last_seen = max(self.last_seen, mesh.synced_at, mesh.table_moved_at)

    def next_wake(self, now: float) -> float:
        """When to tick next if nothing arrives: the next ping, or the session's own deadline.
        Timeouts of seconds are checked at each tick, so at most a heartbeat late."""
        return min(self._last_ping + self.heartbeat, self.session.next_wake(now))

    def closed(self) -> None:
        self.gone = True
        if not self.introduced and self.session.me < 0:
            # closed before its challenge: the host's door closes a connection at accept while
            # our address holds as many unproven ones as it takes at once (SPEC §7, "Strangers
            # and floods"; several CPU peers of one machine connect together): busy, try again
            self.session.refused(BUSY, self.last_seen)
            return
        self.session.lost_host("the connection to the host closed")

    def _acknowledge(self, now: float) -> None:
        """After the game: tell the host how much of the log we have folded (again if it
        grew), so it knows the end reached us."""
        s = self.session
        if s.game_over and not s.ended and len(s.log) != self.done_sent:
            self.done_sent, self.done_at, self.confirmed = len(s.log), now, False
            self.out.append(frame(pack({"control": "done", "index": len(s.log)})))

    def finished(self, now: float) -> bool:
        """The table is over for this joiner: ended, or the game over and the host has our
        acknowledgement (or it hung up, or did not confirm within ``DONE_WAIT``)."""
        s = self.session
        if s.ended:
            return True
        if s.game_over and now - self.done_at <= DONE_WAIT and serving(s, now):
            return False  # a seat behind takes the end from us (one the host does not serve)
        if self.gone:
            return True
        if not s.game_over:
            return False
        if self.confirmed:
            return True
        if now - self.done_at > DONE_WAIT:
            s.events.append(Event("unconfirmed", f"the host did not confirm our acknowledgement "
                                  f"of the game's end in {DONE_WAIT:.0f} s; the result stands "
                                  "and this log holds the whole game"))
            return True
        return False

    def collect(self) -> None:
        self.out += [frame(raw) for raw in self.session.take_outgoing()]
        relays, self.session.outbox.relay_out = self.session.outbox.relay_out, []
        self.out += [frame(pack({"control": "relay", "raw": raw})) for raw in relays]

    def _stalled(self, gap: float, now: float) -> None:
        """This process did not run: the host's silence meanwhile is not the host's fault."""
        self.last_seen = max(self.last_seen, now)
        self.progress = max(self.progress, now)
        self.opened += gap
        self.rtt.forget_probe()
        if gap >= NOTICE_STALL:
            self.session.events.append(Event("stall", f"this machine stalled for {gap:.0f} s "
                                             "(pageone did not run): nobody is blamed for it"))

    def _check_steps(self, now: float) -> None:
        s = self.session
        if s.in_flight != self.flight[0]:  # our oldest envelope out, and since when
            self.flight = (s.in_flight, now)
        waited = now - self.progress
        if s.ended or s.game_over or waited <= self.step_limit or s.attachment.dropped:
            return
        ignored = censored(s, now, self.step_limit)
        if ignored:  # a seat's word we hold and handed over: the host does not take it
            self._unserved(f"has not put {ignored} in the log for {self.step_limit:.0f} s, "
                           "though we hold it signed and handed it over: the host is not "
                           "serving the table", now)
            return
        ahead = [index for index in s.mesh.host_ahead if index > len(s.log)]
        if ahead:  # the host's own stream went on past an entry it never sent us
            self._unserved(f"sent us entry {max(ahead)} of its log but not entry {len(s.log)} "
                           f"in {waited:.0f} s, and no other seat had it: the host is not "
                           "serving this seat", now)
            return
        if s.mesh.longest > len(s.log):  # the host receipted a longer log, and we cannot fold it
            self._unserved(f"has not let us have for {waited:.0f} s entries it signed receipts "
                           "for (neither it nor the other seats sent us all of them): the host "
                           "is not serving this seat", now)
            return
        if s.in_flight:  # ours, a move included: neither in the log nor refused, timed from
            flown = now - max(self.progress, self.flight[1])  # when we sent it
            if flown > self.step_limit:
                kind = open_envelope(s.in_flight).kind
                self._unserved(f"has neither put our {kind} message in the log nor refused it "
                               f"for {flown:.0f} s: the host is unresponsive", now)
            return
        self._check_waits(waited, now)

    def _check_waits(self, waited: float, now: float) -> None:
        """The table waits on a seat's step (``waited`` s since it last moved on): did the host
        time that seat out, or close a table half of which is claimed silent, in time?"""
        s = self.session
        waits = [(o.seat, o.text) for o in joiner_timed(s)]
        if not waits:
            return
        silent = stalemate(s)
        if silent:
            names = ", ".join(s.names[seat] for seat in silent)
            self._unserved(f"did not close the table in {waited:.0f} s, though half of it "
                           f"({names}) is claimed silent at once: the host is unresponsive", now)
            return
        present = [(seat, what) for seat, what in waits  # (never blames our own return)
                   if seat not in s.away or (seat != s.me and came_back_owing(s, seat))]
        if not present:  # the host times a seat kept for its return out when its window ends
            seat, what = waits[0]
            if waited > self.step_limit + s.away[seat]:
                self._unserved(f"has kept the table waiting for {s.names[seat]}'s return "
                               f"for {waited:.0f} s (a seat is kept {s.away[seat]} s, then timed "
                               "out, and a seat the others still hear is not left behind): the "
                               "host is not serving the table", now)
            return
        seat, what = present[0]
        since = witness_owed_since(s, seat)
        if since is not None and waited <= CLAIMS_AT_MOST:  # a witness is owed since we read
            waited = now - since  # its claim, not since the table's last progress; but claims
            if waited <= self.step_limit:  # alone hold the table CLAIMS_AT_MOST at most
                return
        if seat == s.me:  # was it me? it was: the table waits for a step we did not take
            s.give_up(f"this pageone has not taken its own step ({what}) for {waited:.0f} s: a "
                      "fault of this machine, please report it", -1, now)
        elif seat == s.seat_of(s.host_key):
            self._unserved(f"has not sent {what} for {waited:.0f} s and did not time itself "
                           "out: the host is unresponsive", now)
        else:
            self._unserved(f"did not time out {s.names[seat]} (the table waited for {what}) in "
                           f"{waited:.0f} s; it must after 30 s: the host is unresponsive", now)

    def _unserved(self, why: str, now: float) -> None:
        """The host does not serve the table: we sign that we lost it, tell it so on this
        connection, and follow the table to the next seat, where the majority decides (SPEC §7,
        "Failover"). Without a listener or a possible majority, we leave saying ``bye``."""
        s = self.session
        lost = (s.sign_lost(why[:200]) if s.attachment.endpoint and s.attachment.may_resume
                and s.may_take_over() else b"")
        if not lost:
            s.give_up(f"{why}, so this pageone leaves the table", s.seat_of(s.host_key), now)
            return
        self.out.append(lost_frame(s, lost))
        host = s.names[s.seat_of(s.host_key)]
        s.lost_host(f"{host} (the host) {why}: this pageone follows the table to the next seat")
