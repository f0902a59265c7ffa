"""A player's attachment to its host (protocol/SPEC.md §7, "Reconnect" and "Failover"): the
welcome its first envelope is sealed against, a dropped connection and the return to its seat,
the takeover when it is the host's successor, and leaving a table that does not go on.
"""

from __future__ import annotations

import contextlib
from typing import Any

from ..crypto.envelope import seal
from ..crypto.statements import open_statement, seal_statement
from ..wire.codec import ProtocolError, frame, pack
from .common import Event
from .fold.lost import (
    HANDOVER,
    listening_seats,
    majority_refusal,
    may_hand_over,
    needed,
    open_lost,
)
from .logsync import log_differs
from .player import PlayerState

MINORITY = ("could not reach the host, and the rest of the table did not lose it: most likely "
            "this machine's network (or this machine was stopped while the table went on); "
            "nobody is to blame")

# the seats that lost the host reached us (they handed us their logs), so our network works; what
# they handed over shows too few of them without the host (some went back to it meanwhile)
NO_MAJORITY_LEFT = ("could not reach the host; the seats that lost it too reached this machine, "
                    "but what they handed over shows too few of them still without the host (some "
                    "went back to it meanwhile): no takeover, and nobody is to blame")

SEAT_GIVEN_UP = ("this user's seat was given up (it did not come back in time): the game went "
                 "on without it")


def lost_frame(s: PlayerState, statement: bytes, proof: bytes = b"") -> bytes:
    """The control frame that carries our ``lost`` statement (to a successor's listener, with
    the proof of our key its challenge asked; to the old host, on our own connection)."""
    return frame(pack({"control": "lost", "from": s.identity.public, "proof": proof,
                       "statement": statement}))


def intro_answer(s: AttachedPlayer) -> bytes:
    """Our listener's answer to a seat's ``intro``: the host our seat follows now, if a host
    answers us (a successor that joined another's takeover says where the table went: the seat
    that handed it its ``lost`` statement follows it there); in a drop, the lost statements we
    hold that name us (a seat next in line before us cedes to us once they and its own make a
    majority); b"" while we have none, take the table over, or are the host."""
    at = s.attachment
    if s.is_host or at.taking_over >= 0:
        return b""
    if at.answered and not at.dropped:
        return frame(pack({"control": "follows", "host": s.host_key}))
    held = s.lost_statements()  # no host answers us (in a drop, or trying the host again)
    return frame(pack({"control": "holds", "lost": held})) if held else b""


class AttachedPlayer(PlayerState):
    def _log_differs(self, raw: bytes) -> None:
        """The host's log, sent again on a new connection, is not the one we hold."""
        end = log_differs(self, raw, "sent on our new connection a log that differs from the "
                          "one it sent before (a fork)")
        self._end(str(end), end.culprit)

    def _resent(self, raw: bytes) -> bool:
        """On a new connection the host sends its log again from the start: an entry we hold
        is checked against ours (a different one is a fork), not folded again. Entries the
        mesh brings meanwhile are new ones, never checked so."""
        at = self.attachment
        if at.checked >= at.known:
            return False
        if raw != self.log[at.checked]:
            self._log_differs(raw)
        at.checked += 1
        return True

    def welcomed(self, welcome: dict[str, Any], now: float) -> None:
        """The host's answer to our intro, what our first envelope is sealed against: a
        ``hello`` to sit down, or, when our identity holds a seat in the running game (a drop,
        or this user's earlier pageone), a ``back`` to take it again. The host sends the log only
        once that envelope is in it. A new host that gathered us after a takeover welcomes us
        again once its ``takeover`` is in (a new hand): our back, held so far, is sealed anew."""
        at = self.attachment
        again = bool(at.back_sent) and self.in_flight == at.back_sent and not at.log_read
        if self.is_host or (self.attachment.answered and not again):
            return
        self.attachment.answered = True
        table, head, seq, hand = welcome["table"], welcome["head"], welcome["seq"], welcome["hand"]
        chain, index = self.chain, welcome["index"]
        if chain is not None and table != self.table_id:
            self._end("the host answered for another table", self.seat_of(self.host_key))
        elif welcome["seated"] and chain is not None and index < len(self.log):
            # A new host that lacks the old host's last entries: it gets them from us first.
            if chain.position(head) != index:
                self._end("the new host answered with a log that is not a part of ours; this "
                          "pageone leaves (a welcome is not signed, so nobody is named)", -1)
                return
            self.attachment.resend = index
            self.attachment.back_sent = self.in_flight = seal(
                self.identity, table, chain.hand, chain.next_seq(self.identity.public),
                chain.head, "back", {"endpoint": self.attachment.endpoint})
            self.outbox.outgoing.append(self.in_flight)
        elif welcome["seated"]:
            self.table_id = table
            self.attachment.back_sent = self.in_flight = seal(self.identity, table, hand, seq, head,
                                                   "back", {"endpoint": self.attachment.endpoint})
            self.outbox.outgoing.append(self.in_flight)
        elif self.chain is not None and self.game is not None:
            self._end(SEAT_GIVEN_UP, -1)
        else:
            self.attachment.welcome = (table, head, seq)
            self.flush(now)

    def _return(self, now: float) -> None:
        """Our ``back`` is in the log and the log before it folded: we came back to our seat
        (the host keeps the seat of a dropped connection for a while) if we can play on."""
        if self.game_over:
            self._end("the game is over already", -1)
        elif self.me not in self.active:
            self._end(SEAT_GIVEN_UP, -1)
        elif ((self.private.lost_secrets == self.hand or self._seed_lost())
              and self.hand_end is None):
            self.notify("bye", {"reason": "its hand secrets are not on this machine"})
            self.flush(now)  # the table goes on without us at once, not after the window
            self._end(f"this machine does not have the hand secrets this seat committed to "
                      f"in hand {self.hand} (they are kept in pageone's data directory), so "
                      "it cannot play that hand on: it left the table, which goes on without it",
                      -1)
        else:
            self.attachment.returning = True
            self.attachment.lost.clear()  # the host took us back: who lost it is old news
            self.events.append(Event("returning", f"back at the table as {self.names[self.me]}"
                                     f" (seat {self.me}): the game goes on"))

    def lost_host(self, why: str) -> None:
        if self.local and not self.ended:  # we were leaving for our own fault: no blame
            self._end(f"left the table: {self.local}", -1)
        if not self.ended and not self.game_over:
            host = self.seat_of(self.host_key)
            resumable = self.game is not None and self.me in self.active and not self.local
            if resumable and self.attachment.may_resume:
                # told once, not every attempt
                if not self.attachment.dropped and not self.attachment.resuming:
                    self.events.append(Event("dropped", f"{why}: trying to reconnect…"))
                self.attachment.dropped = why
                return
            self.attachment.dropped = why if resumable else ""
            self._end(why, host if host >= 0 else -1)

    def resume(self) -> None:
        """A new connection after a drop: we say ``back`` (sealed against the host's welcome),
        then the host sends its whole log again and the entries we have are checked against ours
        (SPEC §7, "Reconnect"). What was sealed for the host while we had none was sealed
        against the log before the drop: it is not sent; a step still owed is sealed again."""
        self.attachment.dropped, self.attachment.log_read, self.in_flight = "", False, b""
        self.outbox.outgoing.clear()
        self.attachment.known, self.attachment.checked = len(self.log), 0
        at = self.attachment
        at.resuming, at.answered, at.back_sent, at.follows = True, False, b"", b""
        at.holds = []

    def take_over(self) -> None:
        """The host is gone and we are its successor: we become the table's sequencer. Nothing
        is sealed until the others have handed over what they hold (``finish_takeover``)."""
        assert self.settings is not None
        self.attachment.taking_over = self.seat_of(self.host_key)
        self.host_table = (self.table_name, self.settings, self.seat_count)
        at = self.attachment
        at.dropped, at.resuming, at.answered = "", False, True
        self.in_flight, at.known, at.checked, at.log_read = b"", 0, 0, True

    def finish_takeover(self, window: int, now: float) -> None:
        """Every peer that came has handed over its log: ``takeover`` goes in first, with the
        ``lost`` statements of the majority it rests on."""
        old, self.attachment.taking_over = self.attachment.taking_over, -1
        if old >= 0 and not self.ended and not self.game_over:
            self._own_lost_at_head()
            lost = [] if self.handed_over >= 0 else self.lost_statements()
            # what was handed over changed who listens: no majority now, no takeover
            if majority_refusal(self, lost, self.identity.public) is not None:
                self.network_stop(NO_MAJORITY_LEFT)
                return
            self.notify("takeover", {"seat": old, "window": window, "lost": lost})
        self.flush(now)

    def _own_lost_at_head(self) -> None:
        """Entries handed over while we gathered (the old host's last ones, which a peer held)
        put our own ``lost`` statement behind our log: sealed as it is, the takeover's own
        ``prev`` would make it older than its signer's last entry, and every peer would refuse
        the takeover and name us. It is signed again, at the log's end."""
        chain, own = self.chain, self.attachment.lost.get(self.identity.public, b"")
        if chain is None or not own:
            return
        data = open_statement(own, "lost").data  # our own: it opens
        if data["index"] < chain.length and data["host"] == self.host_key:
            self.attachment.lost[self.identity.public] = seal_statement(self.identity, "lost", {
                "table": self.table_id, "host": self.host_key, "index": chain.length,
                "head": chain.head, "why": data["why"], "for": self.identity.public})

    # --- takeover by majority (protocol/SPEC.md §7, "Failover") ---------------------------------

    def sign_lost(self, why: str) -> bytes:
        """We lost the host (our connection closed or went silent, and a new one was refused or
        not answered): our signed word for the successor, kept with the others'. b"": we hold
        no seat that counts."""
        chain = self.chain
        if (chain is None or self.game is None or self.game_over or self.is_host
                or self.me not in listening_seats(self)):
            return b""
        me = self.identity.public
        own = self.attachment.lost.get(me, b"")
        if own and self.take_lost(own) is None and open_lost(self, own, me).data["index"] == \
                chain.length:
            return own
        own = seal_statement(self.identity, "lost", {
            "table": self.table_id, "host": self.host_key, "index": chain.length,
            "head": chain.head, "why": why[:200], "for": me})
        self.attachment.lost[me] = own
        return own

    def lost_for(self, successor: bytes) -> bytes:
        """Our own ``lost`` statement (``sign_lost``), signed again for ``successor``: a
        statement counts only for the successor it names (b"": we hold none)."""
        own = self.attachment.lost.get(self.identity.public, b"")
        if not own or not successor or successor == self.identity.public:
            return own
        data = dict(open_statement(own, "lost").data)  # our own: it opens
        data["for"] = successor
        return seal_statement(self.identity, "lost", data)

    def take_lost(self, raw: bytes, anyone: bool = False) -> str | None:
        """Keep a seat's ``lost`` statement of our present host, naming us its successor (or,
        ``anyone``, whomever: the old host counts the seats that left it); else why it does not
        count."""
        try:
            statement = open_lost(self, raw, None if anyone else self.identity.public)
        except ProtocolError as error:
            return error.reason
        self.attachment.lost[statement.sender] = raw
        return None

    def lost_statements(self, anyone: bool = False) -> list[bytes]:
        """The ``lost`` statements kept that count for our present host (toward our takeover,
        or, ``anyone``, toward anybody's), in seat order."""
        counted = []
        taker = None if anyone else self.identity.public
        for raw in self.attachment.lost.values():
            with contextlib.suppress(ProtocolError):
                counted.append((self.seat_of(open_lost(self, raw, taker).sender), raw))
        return [raw for _, raw in sorted(counted)]

    def lost_majority(self) -> bool:
        """A majority of the listening seats lost the host (or it handed the table over)."""
        return self.handed_over >= 0 or len(self.lost_statements()) >= needed(self)

    def may_take_over(self) -> bool:
        """A majority of the listening seats without the host's is possible at all."""
        return needed(self) <= len(listening_seats(self)) - 1

    def network_stop(self, reason: str) -> None:
        """This machine's network, most likely: stop naming nobody, appending nothing."""
        if self.ended:
            return
        self.attachment.network = reason
        self._end(reason, -1)

    def give_up(self, reason: str, culprit: int, now: float) -> None:
        """Leave a table that does not go on. The bye accuses nobody: a clock is no evidence."""
        if self.ended or self.game_over:
            return
        self.notify("bye", {"reason": "the table stopped moving"})
        self.flush(now)
        self._end(reason, culprit)

    def local_fault(self, reason: str, now: float, bye: str = "", network: bool = False) -> None:
        """This machine cannot go on (its disk, its files; with ``network``, its network): say
        bye, blame nobody."""
        if self.local or self.ended or self.game_over:
            return
        self.local, self.local_network = reason, network
        self.events.append(Event("local", reason, {"network": network}))
        why = bye or ("its machine cannot write its log" if not self.is_host else HANDOVER
                      if may_hand_over(self) and not network else
                      "the host's machine cannot write its log")
        if self.me < 0 and not self.is_host:  # not seated: nobody to say bye to
            self.ended = reason
            return
        if why == HANDOVER:
            heir = self.successors()[0]
            self.events.append(Event("handover", f"this machine hands the table over to the next "
                                     f"seat, {self.names[heir]} (seat {heir}): the game goes on "
                                     "there without you, and nobody is blamed"))
        self.outbox.local_bye = why[:200]  # said until it is in the log, even if refused once
        self.flush(now)

    def network_lost(self, reason: str) -> None:
        """This machine's network reached nobody: stop now, naming nobody, with no bye (nobody
        would get it). The seat's secrets stay on disk (``attachment.dropped`` is kept) for a
        return once the network is back, if the table keeps the seat that long."""
        if self.local or self.ended or self.game_over:
            return
        self.local, self.local_network = reason, True
        self._end(f"left the table: {reason}", -1)
