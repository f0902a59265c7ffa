"""Rendering of `pageone replay` and `pageone log show`: the game's own narration
(``replay_story``) over the audited log. ``replay_lines`` yields ``None`` between moves (where
`--step` waits)."""

from __future__ import annotations

from collections.abc import Iterator

from ..audit.check import Audit
from ..audit.replay import card_trails
from ..audit.report import hand_line, verdict
from ..engine.deal import UNKNOWN
from ..session.fold.records import HandRecord
from . import render
from .replay_story import hidden, story


def card_text(card: int, family: str) -> str:
    return render.card(card, family, symbols=False)[1]


def hand_text(cards: list[int], family: str) -> str:
    return render.plain(render.hand(cards, family, symbols=False))


def _records(audit: Audit) -> dict[int, HandRecord]:
    state = audit.state
    return {record.number: record for record in (state.history if state else [])}


def replay_lines(audit: Audit, seat: int | None, open_hands: bool,
                 only: int | None) -> Iterator[str | None]:
    """The game's own narration of the log (``replay_story``), with the hands shown after each
    move; ``None`` after each move."""
    state = audit.state
    if state is None or state.settings is None or state.game is None:
        yield f"nothing to replay: {verdict(audit)}"
        return
    names, family = state.names, state.settings.family
    viewer = "every hand open" if open_hands else (
        f"as {names[seat]} (seat {seat}) saw it" if seat is not None else "public cards only")
    yield f"table {audit.table_name!r} ({family}), {viewer}"
    shown = None if open_hands else ((seat,) if seat is not None else ())
    last: dict[int, list[int]] = {}  # a hand shown again only once it changed
    told_since = False  # a wait only after something was told (a draw still counted is not)
    for told in story(audit, shown, symbols=False):
        if told.hand < 1 or (only is not None and told.hand != only):
            continue
        for player, cards in told.dealt.items():
            last[player] = cards
            yield _hand_of(cards, names[player], family)
        for line in told.lines:
            yield render.plain(line)
        told_since = told_since or bool(told.dealt or told.lines)
        if told.moved and told.deal is not None:
            for player, cards in told.hands.items():
                if told.deal.turn == player and not told.deal.over and last.get(player) != cards:
                    last[player] = cards
                    yield _hand_of(cards, names[player], family)
            if told_since:
                yield None
            told_since = False
    yield f"verdict: {verdict(audit)}"


def _hand_of(cards: list[int], name: str, family: str) -> str:
    """A hand as the replay may show it: the cards the log reveals, the rest counted."""
    open_cards = [card for card in cards if card != UNKNOWN]
    text = hand_text(open_cards, family) if open_cards else ""
    count = hidden(cards)
    if count:
        text += (", " if text else "") + f"{count} card{'s' if count != 1 else ''} the log " \
            "does not reveal"
    return f"  {name}'s hand: {text or 'empty'}"


def summary_lines(audit: Audit) -> list[str]:
    state = audit.state
    lines = [f"table {audit.table_name!r} ({audit.rules or '?'}), id {audit.table_id}, "
             f"{audit.entries} entries"]
    lines += [f"  seat {seat}: {name} {fp}" for seat, name, fp in audit.players]
    records = _records(audit)
    for line in audit.hands:
        lines.append(hand_line(line, audit.fault))
        record = records.get(line.hand)
        if record is None or state is None or state.settings is None:
            continue
        family = state.settings.family
        for player, trail in card_trails(state.settings, state.seat_count, record).items():
            cards = " ".join(card_text(c, family) for c in trail.dealt)
            kept = " ".join(card_text(c, family) for c in trail.kept) or "nothing"
            lines.append(f"    {state.names[player]}: dealt {cards}; drew {trail.drawn}, "
                         f"played {len(trail.played)}, kept {kept}")
    if audit.finished and state is not None:
        lines.append("result: " + ", ".join(f"{name} place {audit.places[seat]}"
                                             for seat, name, _ in audit.players))
    lines.append(f"verdict: {verdict(audit)}")
    return lines
