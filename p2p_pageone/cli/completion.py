"""Tab completion at the prompt: commands, then the cards in hand and the other players' names."""

from __future__ import annotations

from collections.abc import Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from ..engine.cards import names as card_names
from ..engine.moves import IllegalMove, Play
from ..session.peer import PeerSession
from .commands import VERBS
from .hints import playable_cards


class HandCompleter(Completer):
    """Completes commands, then the cards in hand and the other players' names."""

    def __init__(self, session: PeerSession) -> None:
        self.session = session

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterable[Completion]:
        words = document.text_before_cursor.split()
        current = document.get_word_before_cursor()
        cards = False
        if len(words) <= 1 and not document.text_before_cursor.endswith(" "):
            options: list[str] = list(VERBS)
        elif words and words[0] == "catch":
            options = [n for i, n in enumerate(self.session.names) if i != self.session.me]
        elif words and words[0] == "help":
            options = list(VERBS)
        else:
            options, cards = self._cards(), True
        shown = options if cards else sorted(set(options))  # cards: the playable ones first
        for option in dict.fromkeys(shown):
            if option.startswith(current):
                yield Completion(option, start_position=-len(current))

    def _cards(self) -> list[str]:
        """The cards in hand; on my turn the ones that may be played first (the engine's legal
        moves: a card that starts a play, then one that may follow it in a group)."""
        s = self.session
        view = s.view()
        settings = s.game.settings if s.game is not None else s.settings
        family = settings.family if settings else "classic"
        try:
            hand = sorted(view.hand()) if view else []
        except IllegalMove:
            return []
        ordered: list[int] = []
        game = s.game
        if view is not None and game is not None and game.chance is None and (
                game.deal.turn == s.me and not game.deal.over):
            legal = [m for m in view.legal_moves() if isinstance(m, Play)]
            ordered += sorted(playable_cards(game.deal, legal))
            ordered += sorted({c for m in legal for c in m.cards})
        ordered += hand
        return [card_names([card], family) for card in dict.fromkeys(ordered)]
