"""Tab completion at the prompt: commands, then the cards in hand and the other players' names."""

from __future__ import annotations

from collections.abc import Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from ..engine.cards import names as card_names
from ..engine.moves import IllegalMove
from ..session.peer import PeerSession
from .commands import VERBS


class HandCompleter(Completer):
    """Completes commands, then the cards in hand and the other players' names."""

    def __init__(self, session: PeerSession) -> None:
        self.session = session

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterable[Completion]:
        words = document.text_before_cursor.split()
        current = document.get_word_before_cursor()
        if len(words) <= 1 and not document.text_before_cursor.endswith(" "):
            options: list[str] = list(VERBS)
        elif words and words[0] == "catch":
            options = [n for i, n in enumerate(self.session.names) if i != self.session.me]
        elif words and words[0] == "help":
            options = list(VERBS)
        else:
            view = self.session.view()
            family = self.session.settings.family if self.session.settings else "classic"
            try:
                options = card_names(sorted(view.hand()), family).split() if view else []
            except IllegalMove:
                options = []
        for option in sorted(set(options)):
            if option.startswith(current):
                yield Completion(option, start_position=-len(current))
