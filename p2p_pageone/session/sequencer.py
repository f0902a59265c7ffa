"""The host's sequencer and a joiner's link to it, sans-I/O (protocol/SPEC.md §7).

The Page One window (protocol/SPEC.md §7.4): for ``catch_window`` seconds of the sequencer's own
clock after a play leaves a player owing the call, the sequencer holds back every move that would
close the window (another player's move that is not a catch) and, from the CPU peers it started
(``cpu_keys``), every move at all. So a person always has that long to catch or to make the late
call, however fast the CPU peers are and whatever the clients' clocks say.

Frames carry either an envelope (a msgpack array, §3) or a control map that is never logged:
``{"control": "ping"}`` (liveness; with ``n`` it asks for ``{"control": "pong", "n": n}`` at once,
which times the link's round trip, session/rtt.py), a joiner's ``intro`` and the host's
``welcome`` (what its hello is sealed against) and ``{"control": "refused", "seq": n, "reason":
text}`` (the sequencer did not append an envelope; its author may send a new one with the same
``seq``). Nothing of the log goes to a connection before its hello is in the log: then the log so
far, and every entry after.
"""

from __future__ import annotations

from ..crypto.envelope import Envelope, open_envelope
from ..wire.codec import MAX_FRAME, ProtocolError, frame, pack, unpack
from ..wire.kinds import KIND_RULES, EntryKind
from ..wire.messages import validate_control
from .client import PING, STALL, Client
from .common import SEAT_GONE, Event
from .doors import CLAIMS, Doors
from .fold.obligations import came_back_owing, stalemate
from .fold.queries import expected_at_takeover
from .gathering import back_to_new_host, fold_handed_over, told_lost
from .links import (
    AFTER_STALL,
    CHAT_LINES,
    CHAT_WINDOW,
    LINGER,
    LOST_ALL,
    MAX_UNSEATED,
    NOTICE_STALL,
    RECONNECT_WINDOW,
    SIT_WITHIN,
    Link,
    refusal,
)
from .logsync import entry_frame
from .rtt import ping, pong

__all__ = ["LINGER", "MAX_UNSEATED", "PING", "Client", "Sequencer"]


class Sequencer(Doors):
    """Orders every envelope into the log, relays it to every connection, times out the silent."""

    # --- connections (new ones: session/doors.py) ----------------------------------------------

    def receive(self, conn: int, data: bytes, now: float) -> None:
        self._woke(now)
        link = self.links.get(conn)
        if link is None:
            return
        link.last_seen = now
        try:
            for payload in link.decoder.feed(data):
                value = unpack(payload)
                if isinstance(value, dict):
                    kind = validate_control(value, ("ping", "pong", "intro", "done", "entry",
                                                    "watch", "chat", "relay", "lost"))
                    appended = False
                    if kind == "ping" and "n" in value and (link.key or link.introduced):
                        self.out.append((conn, pong(value["n"])))
                    elif kind == "pong":
                        echoes = link.rtt.samples
                        link.rtt.echoed(value["n"], now)
                        if link.rtt.samples > echoes:  # alive now (after a stall of ours?)
                            self._alive_after_stall(link.key, now)
                    elif kind in CLAIMS and not self._proven(conn, link, value, now):
                        return  # refused: the rest of its data is not read
                    elif kind == "intro":
                        self._welcome(conn, link, value["from"])
                    elif kind == "watch":
                        self._watch(conn, link, value["from"])
                    elif kind == "chat":
                        self._watcher_chat(conn, link, value["text"], now)
                    elif kind == "entry":
                        appended = self._handed_over(link, value["index"], value["raw"], now)
                    elif kind == "done":
                        self._done(conn, link, value["index"])
                    elif kind == "relay" and link.key:
                        appended = self._relayed(value["raw"], now)
                    elif kind == "lost":  # the statement is signed: its own proof
                        told_lost(self.host, value, link.key)
                elif isinstance(value, list):
                    appended = self._submit(conn, link, payload, now)
                else:
                    raise ProtocolError("a frame is an envelope or a control map")
                if conn not in self.links:  # turned away: the rest of its data is not read
                    return
                if not appended and not link.count_idle(now):
                    self._drop(conn, "flooded the table with pings or refused messages", now)
                    return
        except ProtocolError as error:
            self._drop(conn, f"sent malformed data ({error.reason})", now)

    def overrun(self, conn: int, now: float) -> None:
        """Too much sent to ``conn`` is unread: it has stopped reading the table."""
        self._drop(conn, "stopped reading what the table sends", now)

    def disconnect(self, conn: int, now: float) -> None:
        self._woke(now)
        link = self.links.pop(conn, None)
        if link is not None:
            self._lost(link, "disconnected", now, may_return=True)

    def tick(self, now: float) -> None:
        gap, self._last_tick = now - self._last_tick, now
        if gap > STALL:
            self._stalled(gap, now)
        if now - self._last_ping >= self.heartbeat:
            self._last_ping = now
            self.out += [(conn, ping(link.rtt.probe(now) if link.key else None))
                         for conn, link in self.links.items() if link.key or link.introduced]
        # was it me? then nobody is timed out for it; nor while a new host gathers the table
        quiet = self._gathering(now) or self._all_quiet(now)
        for conn, link in list(self.links.items()):
            silent_after = self.silent_after_for(link)
            if (link.key or link.watcher) and now - link.last_seen > silent_after and not quiet:
                self._drop(conn, f"sent nothing for {silent_after:.0f} s", now, True)
            elif not link.key and not link.watcher and now - link.opened > SIT_WITHIN:
                self._drop(conn, f"was not seated within {SIT_WITHIN:.0f} s", now)
        self._lobby(now)
        self._expire_away(now, quiet)
        self._keep_unlinked(now, quiet)
        waits = [o for o in self.host.owed()  # a seat away: its return window times it,
                 if o.duty.timed_by_step_clock and (o.seat not in self.host.away  # once
                                                    or came_back_owing(self.host, o.seat))]
        # (every witness owed claimed gone, away too: the table closes, as for seats there)
        if (now - self.last_progress > self.step_timeout and not quiet
                and (waits or stalemate(self.host))):
            self._time_out_or_close(waits, now)
        self.host.watch_room = (self.watching(), self.watchers)
        self.host.tick(now)
        self._pump(now)
        self._release(now)
        self._release_early(now)
        self._check_end(now)

    def next_wake(self, now: float) -> float:
        """When to tick next if nothing arrives: the next ping, a Page One window closing, a
        takeover's gathering or the lobby's start due, the game's end told, or the host
        session's own deadline. Timeouts of seconds are checked at each tick, so at most a
        heartbeat late."""
        due = [self._last_ping + self.heartbeat, self.host.next_wake(now)]
        if self.window is not None:
            due.append(self.window[1] + self.catch_window)
        if self.gather_until >= 0:  # at once when every seat expected has come back
            due.append(now if self._all_gathered() else self.gather_until)
        if self.min_players and self.host.game is None:
            due.append(self.lobby_changed + self.start_after)
        if self.final is not None and not self.end_told:
            due.append(self.final[1] + self.linger)
        return min(due)

    def _welcome(self, conn: int, link: Link, key: bytes) -> None:
        """What a joiner seals its first envelope against: the table, the log head, the hand, its
        next ``seq``, and whether its key holds a seat in the running game (then it says
        ``back``, else ``hello``)."""
        host, chain = self.host, self.host.chain
        if link.key or link.introduced or chain is None:
            raise ProtocolError("an intro comes once, first")
        if host.game is None and len(host.keys) + len(host.waiting_hellos) >= host.seat_count:
            # A full lobby says so at once, and shows nothing of its log. In a running game the
            # intro decides (a seat kept for a return, or a drop the host has not noticed yet).
            self._turn_away(conn, "the table is full")
            return
        link.introduced = True
        seat = host.seat_of(key)
        seated = host.game is not None and seat in host.active
        if host.game is not None and not seated:
            self._turn_away(conn, SEAT_GONE if seat >= 0
                            else "the game is under way: it takes no new players")
            return
        link.keeps = seated
        if seated and self.gather_until >= 0:  # it may hand over entries: a pass is ~8 KB
            link.decoder.max_frame = MAX_FRAME
        self._send_welcome(conn, key, seated)

    def _send_welcome(self, conn: int, key: bytes, seated: bool) -> None:
        chain = self.host.chain
        assert chain is not None
        welcome = {"control": "welcome", "table": self.host.table_id, "head": chain.head,
                   "seq": chain.next_seq(key), "hand": chain.hand, "index": len(self.log),
                   "seated": seated}
        self.out.append((conn, frame(pack(welcome))))

    # --- the end of the game delivered ---------------------------------------------------------

    def _done(self, conn: int, link: Link, index: int) -> None:
        """A peer has folded ``index`` entries after the game: confirmed if that is the end."""
        if self.final is None or not link.key or index > len(self.log):
            return
        link.done = index
        if index >= self.final[0]:
            self.confirmed.add(link.key)
            self.out.append((conn, frame(pack({"control": "done", "index": index}))))

    def unconfirmed(self) -> list[int]:
        """Seats still in the game that have not confirmed having its last entries."""
        host = self.host
        return [seat for seat in host.active if host.keys[seat] != host.identity.public
                and host.keys[seat] not in self.confirmed]

    def delivered(self) -> bool:
        """The game's end reached every peer (each confirmed and hung up), or the host gave up
        waiting and named who did not confirm."""
        if self.end_told or self.host.ended:
            return True
        return self.final is not None and not self.unconfirmed() and not any(
            link.key for link in self.links.values())

    def _check_end(self, now: float) -> None:
        host = self.host
        if not host.game_over or self.end_told:
            return
        if self.final is None:
            self.final = (len(self.log), now)
        if now - self.final[1] < self.linger:
            return
        self.end_told = True
        missing = self.unconfirmed()
        if missing:
            names = ", ".join(host.who(seat) for seat in missing)
            host.events.append(Event("unconfirmed", f"the game is over, but {names} did not "
                                     f"confirm having its last entries within "
                                     f"{self.linger:.0f} s: that log may lack the end of the "
                                     "game (the result stands)"))

    # --- was it me? ----------------------------------------------------------------------------

    def _stalled(self, gap: float, now: float) -> None:
        """This process did not run for ``gap`` seconds (frozen, suspended, starved): the silence
        it caused is ours, so every wait starts again instead of naming anyone."""
        for link in self.links.values():
            link.last_seen = max(link.last_seen, now)
            link.rtt.forget_probe()
        self.last_progress = max(self.last_progress, now)
        self.lobby_changed += gap
        self.stall_until, self.stall_heard = now + AFTER_STALL, set()
        if gap >= NOTICE_STALL:
            self.host.events.append(Event("stall", f"this machine stalled for {gap:.0f} s "
                                          "(pageone did not run): nobody is timed out for it"))

    def silent_after_for(self, link: Link) -> float:
        """How long ``link`` may be silent: the configured floor, or longer on a slow or lossy
        link (its measured round trip, session/rtt.py)."""
        return link.rtt.silent_after(self.silent_after)

    def _all_quiet(self, now: float) -> bool:
        """Every remote player silent at once is this machine's network, most likely: nobody
        is named for it, and if it lasts the table closes saying so."""
        remote = [link for link in self.links.values() if link.key and link.key not in
                  self.cpu_keys]
        if len(remote) < 2 or self.host.ended or self.host.game_over:
            return False
        quiet = min(now - link.last_seen for link in remote)
        limits = [self.silent_after_for(link) for link in remote]
        if quiet <= min(limits):  # not even the link with the shortest threshold is given up
            self._quiet_told = False
            return False
        if not self._quiet_told:
            self._quiet_told = True
            self.host.events.append(Event("quiet", f"no player has been heard for "
                                          f"{quiet:.0f} s: this machine's network is most "
                                          "likely down; nobody is timed out for it"))
        if quiet > max(LOST_ALL * min(limits), max(limits)):  # and every link past its own
            self.local_fault(f"heard from no player for {quiet:.0f} s: this machine's network "
                             "is most likely down (check its cable, Wi-Fi or firewall). This is a "
                             "problem of this machine; the table is closed and nobody is blamed",
                             now, "the host lost its network", network=True)
        return True

    # --- the lobby ----------------------------------------------------------------------------

    def _lobby(self, now: float) -> None:
        host = self.host
        if host.game is not None or host.ended or host.outbox.notices or host.chain is None:
            return
        still = now - self.lobby_changed
        if still > self.lobby_timeout:
            wait = self.lobby_timeout
            took = f"{wait / 60:g} min" if wait >= 120 else f"{wait:g} s"
            host.events.append(Event("lobby", f"nobody sat down or left for {took}: "
                                     "closing the table"))
            host.notify(EntryKind.BYE, {"reason": f"the table did not fill in {took}"})
        elif (self.min_players and max(self.min_players, 2) <= len(host.keys)
              < host.seat_count and not host.waiting_hellos and still >= self.start_after):
            host.notify(EntryKind.START, {"seats": len(host.keys)})
        else:
            return
        host.flush(now)
        self._pump(now)

    # --- sequencing ---------------------------------------------------------------------------

    def _submit(self, conn: int, link: Link, raw: bytes, now: float) -> bool:
        """Open the envelope once; refuse it with the reason, or append it (True)."""
        env: Envelope | None = None
        reason: str | None
        if link.watcher:
            raise ProtocolError("a watcher sends nothing for the log")
        if not link.key and not link.proven:
            raise ProtocolError("an envelope before the intro that proves the connection's key")
        if self.gather_until >= 0 and not link.key:
            return self._gather_back(conn, link, raw)
        try:
            # a seated link's key, or the one its intro proved, verified before decoding
            env = open_envelope(raw, link.key or link.proven)
            if link.key and self._lacks_keys(env) and self._may_hold(conn, env):
                self.early.append((conn, env, now))
                return True
            if not link.key and env.kind == EntryKind.BACK:
                self._came_back(env, now)
            reason = self._admit(env)
        except ProtocolError as error:
            reason = str(error)
        if env is not None and reason is None:
            if not link.key:
                if not KIND_RULES[env.kind].opens_connection:
                    reason = ("a connection's first message is hello, or back to return to a "
                              "seat kept for its return")
                elif any(other.key == env.sender for other in self.links.values()):
                    reason = "this identity is already at the table: each user sits once"
                else:  # seated now (the host seats a hello at once): the log so far
                    self._seat_link(conn, link, env)
            elif KIND_RULES[env.kind].chat and not link.chat_allowed(now):
                reason = (f"chat is limited to {CHAT_LINES} lines every {CHAT_WINDOW:.0f} s; "
                          "wait a moment and say it again")
        if reason is not None or env is None:
            seq = env.seq if env is not None else -1
            self.out.append((conn, refusal(seq, reason or "")))
            if not link.key:  # a joiner that cannot sit down has nothing more to say
                self.to_close.append(conn)
                self.links.pop(conn, None)
            if self.host.outbox.notices:  # an expel goes out before the author resends
                self.host.flush(now)
                self._pump(now)
            return False
        if self._must_wait(env, now):
            self.held.append((conn, env))
            return True
        self._append(env, now)
        return True

    def _seat_link(self, conn: int, link: Link, env: Envelope) -> None:
        """The connection speaks for ``env``'s author from now on: the log so far goes out."""
        self.out += [(conn, frame(entry_frame(i, raw, self.receipt(i))))
                     for i, raw in enumerate(self.log)]
        link.key = env.sender
        link.decoder.max_frame = MAX_FRAME

    # --- a takeover (protocol/SPEC.md §7, "Failover") -----------------------------------------

    def _handed_over(self, link: Link, index: int, raw: bytes, now: float) -> bool:
        if self.gather_until < 0 or not link.introduced or not link.keeps:
            raise ProtocolError("log entries are handed over only to a new host, after the intro")
        return fold_handed_over(self.host, index, raw, now)

    def _gather_back(self, conn: int, link: Link, raw: bytes) -> bool:
        env = back_to_new_host(self.host, raw)
        if env.sender != link.proven:
            raise ProtocolError("a back under another key than the one its intro proved")
        self.gathered[conn] = env
        return True

    def _all_gathered(self) -> bool:
        came = {env.sender for conn, env in self.gathered.items() if conn in self.links}
        return not came < expected_at_takeover(self.host, self.host.attachment.taking_over)

    def _gathering(self, now: float) -> bool:
        """Still waiting for the others to hand over their logs (True), or the takeover done."""
        if self.gather_until < 0:
            return False
        if now < self.gather_until and not self._all_gathered() and not self.host.ended:
            return True
        self.gather_until = -1.0
        host = self.host
        host.finish_takeover(self.reconnect_window or RECONNECT_WINDOW, now)
        self._pump(now)
        for seat in host.away:
            self.away_since[seat] = (now, "reconnecting to the new host")
        self.last_progress = now
        for conn, env in self.gathered.items():  # its back was sealed for the hand before:
            if conn in self.links:  # a new welcome, and it seals its back again
                self._send_welcome(conn, env.sender, True)
        self.gathered.clear()
        self._watchers_in()
        return False

