"""An honest host is not named through its own entry served out of place (review helper-36).

The Page One window (sequencing._must_wait) holds the host's own move, sealed against head_p,
while other entries go in; when the window closes it is appended at q > p, NOT right after
its prev. `logsync.receipted` takes a host envelope whose prev is the seat's head as "its own
receipt, in its place". A dishonest seat D copies that envelope from the log and serves it
over the mesh at index p to an honest seat V whose host link is a little slower than D's
(V still at length <= p). V folds it at p: its log forks from the host's, and the honest
host's receipts / stream then make V leave naming the host (I1).

3 seats: host seat 0 honest, V seat 1 honest, D seat 2 dishonest (1 of 3). Now an entry of the
host's own receipts only what comes before its prev, never itself (protocol/SPEC.md §7, "The
log from the others"), so V waits for the host's receipt of that place and folds the real
entry."""

from __future__ import annotations

import pytest

from p2p_pageone.engine.settings import make_settings
from p2p_pageone.session.logsync import entry_frame
from p2p_pageone.session.memory import MemoryTable, make_peer

LAG = 3.0  # V's link from the host: 3 s more latency than D's (no loss, in order)


@pytest.mark.parametrize("mode", ["control", "offer", "offer_and_receipt"])
def test_an_honest_hosts_entry_served_at_its_prevs_place_names_nobody(mode: str) -> None:
    # control: D stays honest (the table must end well); offer: D serves the host's envelope
    # at its prev's place; offer_and_receipt: and then the real entry p with the host's
    # receipt of p+1 entries, which makes V end by the new rule (`_receipt_of_ours`)
    seed, players = 3, 3
    settings = make_settings("classic", {"deals": 3})
    host = make_peer(f"x{seed}/0", "host", "random", host_table=("t", settings, players))
    cpus = [make_peer(f"x{seed}/{i}", f"cpu{i}", "random") for i in range(1, players)]
    t = MemoryTable(settings, players, peers=[host, *cpus], catch_window=2.0, direct=True)
    seq = t.sequencer
    victim_client, dishonest_client = t.clients[0], t.clients[1]
    victim, dishonest = victim_client.session, dishonest_client.session

    # the network: V's host link is slower (a benign condition; nobody is at fault)
    queue: list[tuple[float, bytes]] = []
    real_receive = victim_client.receive
    victim_client.receive = lambda data, now: queue.append((now + LAG, data))  # type: ignore

    out_of_place: list[tuple[int, bytes]] = []  # (position of its prev, the host's envelope)
    append = seq._append

    def watched(env, now):  # type: ignore[no-untyped-def]
        h = seq.host
        if env.sender == h.identity.public and h.chain is not None and env.prev != h.chain.head:
            out_of_place.append((h.chain.position(env.prev), env.raw))
        append(env, now)

    seq._append = watched  # type: ignore[method-assign]

    attacked = False
    while not t.finished() and t.now < 3600 and not attacked:
        t.advance(t.now + 0.1)
        while queue and queue[0][0] <= t.now:
            real_receive(queue.pop(0)[1], t.now)
            victim_client.collect()
        for p, raw in out_of_place:
            # D, which got the host's envelope with the log, serves V the log from V's end
            # up to p (the real entries, with the host's receipts) and then the host's
            # envelope at p, its prev's place
            if len(victim.log) <= p and not attacked:
                endpoint = victim.attachment.endpoint
                frames = [entry_frame(i, dishonest.log[i], dishonest.mesh.receipts.get(i + 1, b""))
                          for i in range(len(victim.log), p)]
                frames.append(entry_frame(p, raw))
                if mode == "offer_and_receipt":
                    frames.append(entry_frame(p, dishonest.log[p],
                                              dishonest.mesh.receipts.get(p + 1, b"")))
                    assert dishonest.mesh.receipts.get(p + 1, b"")
                if mode == "control":
                    frames = []
                dishonest.outbox.direct_out += [(endpoint, f) for f in frames]
                attacked = True
        out_of_place.clear()
    assert attacked, "no out-of-place host envelope while V lagged"
    victim_client.receive = real_receive  # type: ignore[method-assign]
    for _ in range(200):
        t.advance(t.now + 0.5)
        while queue:
            real_receive(queue.pop(0)[1], t.now)
            victim_client.collect()
        if victim.ended or t.finished():
            break
    culprits = [(e.data.get("culprit"), e.text[:90]) for e in victim.events if e.kind == "ended"]
    if mode == "offer_and_receipt":
        assert "two different logs" not in victim.ended, victim.ended
    assert not victim.ended, f"honest V named {culprits}: {victim.ended}"
