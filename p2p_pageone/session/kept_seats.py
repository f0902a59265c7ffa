"""A dropped connection, and a seat kept for its return (protocol/SPEC.md §7, "Reconnect"): the
sequencer appends ``away``, and ``timeout`` if the seat is not back within the window.
"""

from __future__ import annotations

from ..crypto.envelope import Envelope, open_envelope
from ..wire.codec import ProtocolError
from ..wire.kinds import EntryKind
from .client import STALL
from .common import Event
from .fold.lost import listening_seats, needed
from .fold.presence import away_refusal, seat_refusal
from .links import Link
from .sequencing import SequencerCore


class SeatKeeper(SequencerCore):
    """Drops connections; keeps a dropped seat for its return, or times it out."""

    def _drop(self, conn: int, why: str, now: float, may_return: bool = False) -> None:
        link = self.links.pop(conn, None)
        self.to_close.append(conn)
        if link is not None:
            self._lost(link, why, now, may_return)

    def _lost(self, link: Link, why: str, now: float, may_return: bool = False) -> None:
        """``may_return``: the connection closed or went silent, which is no misbehaviour: in a
        running game the seat is kept for its return instead of timed out."""
        seat = self.host.seat_of(link.key) if link.key else -1
        if seat < 0 or self.host.game_over or self.host.ended:
            return
        if self.host.game is not None and seat not in self.host.active:
            return  # it has left the game already
        if may_return and now < self.stall_until:
            self.stall_dropped.append((link, why))  # decided once the stall's news is in
            return
        name = self.host.names[seat]
        if self._quiet_told and link.key not in self.cpu_keys:
            # It gave up on us while our network was down: that is no fault of its own. Its
            # seat is kept for it to come back, now that its close got through; or, without a
            # window, the table is closed naming nobody.
            if may_return and self._keep_seat(seat, "its connection closed while this "
                                              "machine's network was down", now):
                return
            self.local_fault(f"{name}'s connection closed while this machine's network was "
                             "down (no player was heard): a problem of this machine; the table "
                             "is closed and nobody is blamed", now, "the host lost its network",
                             network=True)
            return
        self.host.events.append(Event("lost", f"{name} {why}"))
        if may_return and self._keep_seat(seat, why, now):
            return
        self._timeout(seat, f"a live connection; it {why}", now)

    def _keep_seat(self, seat: int, why: str, now: float) -> bool:
        """Append ``away`` for ``seat`` (True), if the table can keep it for its return."""
        host = self.host
        if seat in host.away or host.expelling(seat):
            return True  # kept already; or being expelled, with evidence, which goes first
        if (not self.reconnect_window or host.game is None or host.keys[seat] in self.cpu_keys
                or seat_refusal(host, EntryKind.AWAY, seat)):
            return False
        self.away_since[seat] = (now, why[:100])
        # a pending notice (an expel, a timeout) goes first; the tick says, as it does once the
        # game moves on when the log holds as many idle entries in a row as it may
        if not host.outbox.notices and away_refusal(host, EntryKind.AWAY, seat) is None:
            self._say_away(seat, now)  # this away once it is out
        return True

    def _say_away(self, seat: int, now: float) -> None:
        self.host.notify(EntryKind.AWAY, {"seat": seat, "why": self.away_since[seat][1],
                                  "window": self.reconnect_window})
        self.host.flush(now)
        self._pump(now)

    def _came_back(self, env: Envelope, now: float) -> None:
        """A ``back`` on a new connection, signed at its author's next sequence number (no one
        else can make one): its old connection, if the host still holds it, is dead or stale (a
        Wi-Fi drop not noticed yet), so it is dropped and the seat kept for this return."""
        chain = self.host.chain
        if chain is None or self.host.seat_of(env.sender) in self.host.away:
            return
        try:
            chain.check(env.raw, env)
        except ProtocolError:
            return  # a replayed or stale back changes nothing; admission refuses it
        for conn, link in list(self.links.items()):
            if link.key == env.sender:
                self._drop(conn, "came back on a new connection", now, may_return=True)
        seat = self.host.seat_of(env.sender)
        if seat in self.host.active and seat not in self.host.away and now >= self.stall_until:
            # its connection was closed already (the host dropped it, and the claim that
            # followed fell): the seat is kept, so that this return is taken
            self._keep_seat(seat, "came back on a new connection", now)

    def _woke(self, now: float) -> None:
        """A frame or a close read before the first tick after a stall: the stall first."""
        gap = now - self._last_tick
        if gap > STALL:
            self._last_tick = now
            self._stalled(gap, now)

    def _stalled(self, gap: float, now: float) -> None:
        """This process did not run for ``gap`` seconds (the sequencer's)."""
        raise NotImplementedError

    def _alive_after_stall(self, key: bytes, now: float) -> None:
        """``key`` echoed a ping sent after our stall: it is alive now. Once every seated link
        is, and none closed, nothing is held any longer."""
        if now >= self.stall_until or not key:
            return
        self.stall_heard.add(key)
        seated = {link.key for link in self.links.values() if link.key}
        if not self.stall_dropped and seated <= self.stall_heard:
            self.stall_until = -1.0

    def _settle_stall(self, now: float) -> bool:
        """After a stall: if the seats that left us meanwhile (or signed that they lost us)
        are a majority of the listening seats, the table has moved on to the next seat: we
        append nothing about them and stop (True). Else each is kept away as after any drop."""
        if not self.stall_dropped or now < self.stall_until:
            return False
        dropped, self.stall_dropped = self.stall_dropped, []
        host = self.host
        live = {link.key for link in self.links.values() if link.key}
        gone = {host.seat_of(link.key) for link, _ in dropped if link.key not in live}
        gone |= {host.seat_of(key) for key in host.attachment.lost}
        listening = listening_seats(host)
        if len(gone & set(listening)) >= needed(host) and not host.ended:
            host.network_stop(f"this machine was stopped, and meanwhile {len(gone)} of the "
                              f"{len(listening)} seats that listen left it: the table has most "
                              "likely moved to the next seat while this machine was stopped; "
                              "nothing more is logged here, and nobody is to blame")
            return True
        for link, why in dropped:
            self._lost(link, why, now, may_return=True)
        return False

    def _expire_away(self, now: float, quiet: bool) -> None:
        """A seat not back within the window leaves as a leaver does (a ``timeout``)."""
        host = self.host
        if self._settle_stall(now):
            return
        for seat in host.away:  # every seat the log keeps away is timed (its away may have
            self.away_since.setdefault(seat, (now, "kept for its return"))  # gone in late)
        for seat, (since, _) in list(self.away_since.items()):
            if seat not in host.active or any(link.key == host.keys[seat]
                                              for link in self.links.values()):
                del self.away_since[seat]  # gone, or back
            elif seat not in host.away:  # its away is not in the log yet: the host's own
                # envelope was held, another notice came first, or the idle run is full
                if not host.outbox.notices and away_refusal(host, EntryKind.AWAY, seat) is None:
                    self._say_away(seat, now)
            elif now - since > self.reconnect_window and not quiet:
                del self.away_since[seat]
                if self._none_came_back(now):
                    return
                self._timeout(seat, f"its return within {self.reconnect_window} s", now)
                return

    def _keep_unlinked(self, now: float, quiet: bool) -> None:
        """A seat in the running game that has no connection here and no open claim about it
        (the one that followed its drop fell: its witnesses heard from it since) is kept for
        its return as after any drop; else the table would wait for its move, which no clock
        times, for good. Not while the table gathers at a new host, or nobody is heard."""
        host = self.host
        if (quiet or host.game is None or host.game_over or host.ended
                or now < self.stall_until or host.attachment.taking_over >= 0):
            return
        linked = {link.key for link in self.links.values() if link.key}
        claimed = {claim.seat for claim in host.claims}
        for seat in host.active:
            key = host.keys[seat]
            if key in linked or seat in host.away:
                self.through_others.pop(seat, None)
            elif (key != host.identity.public and seat not in claimed
                    and seat not in self.away_since and not self._plays_through_others(seat, now)):
                self._keep_seat(seat, "has no connection to the host", now)

    def _plays_through_others(self, seat: int, now: float) -> bool:
        """A seat whose ``back`` the others handed us plays through them: kept unlinked (True).
        Once the table has waited on it for ``reconnect_window``, it is timed out (a claim, as
        for any seat: one that went for good leaves; one that is there disproves it, and its
        window starts again). It is not kept away again: what the others serve it of the log
        would then tell it it is away each time it learns it is back."""
        since = self.through_others.get(seat)
        if since is None:
            return False
        waits = [o for o in self.host.owed() if o.seat == seat]
        if waits and now - since <= self.reconnect_window:
            return True
        self.through_others[seat] = now  # its window starts (again)
        if waits:
            self._timeout(seat, f"{waits[0].text}, taken through the others, within "
                          f"{self.reconnect_window} s", now)
        return True

    def _came_since_takeover(self) -> bool:
        """A seat's ``back`` is in the log after our ``takeover``."""
        log, me = self.host.log, self.host.identity.public
        kinds = [(env.kind, env.sender) for env in map(open_envelope, log)]
        start = max((i for i, (kind, _) in enumerate(kinds) if kind == EntryKind.TAKEOVER),
                    default=len(kinds))
        return any(kind == EntryKind.BACK and sender != me for kind, sender in kinds[start:])

    def _none_came_back(self, now: float) -> bool:
        """Two or more remote players away and none back: as when none is heard, this machine's
        network is the likely cause, so the table closes naming nobody (True)."""
        host = self.host
        remote = [seat for seat in host.active if host.keys[seat] != host.host_key
                  and host.keys[seat] not in self.cpu_keys]
        if len(remote) < 2 or not all(seat in host.away for seat in remote):
            return False
        if self.took_over:
            # a table taken over that its players left or never came to: they went back to the
            # old host (it answered them again), to another seat's takeover, or cannot reach
            # this machine; nothing says which, so nobody is named, this machine included
            came = "came back to" if self._came_since_takeover() else "came to"
            host.notify(EntryKind.BYE, {"reason": (
                f"none of the {len(remote)} players {came} this table within "
                f"{self.reconnect_window} s of its takeover (they went back to the old host, or "
                "cannot reach this machine): the table closes and nobody is named")[:200]})
            host.flush(now)
            return True
        self.local_fault(f"none of the {len(remote)} players whose connections dropped came "
                         f"back within {self.reconnect_window} s: this machine's network is "
                         "most likely down (check its cable, Wi-Fi or firewall). This is a "
                         "problem of this machine; the table is closed and nobody is blamed",
                         now, "the host lost its network", network=True)
        return True
