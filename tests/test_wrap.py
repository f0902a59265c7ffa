"""The one word-wrap helper every screen line goes through."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from p2p_pageone.cli.render import plain
from p2p_pageone.cli.tableview import cards_line
from p2p_pageone.cli.wrap import width_of, wrap, wrap_text

WORDS = st.text(alphabet="abcdefghij-♠♥", min_size=1, max_size=12)


def test_words_are_never_cut_and_continuations_are_indented() -> None:
    text = "  Page One (classic), offline: you and ann-cpu, bob-cpu. Type help for commands."
    lines = wrap_text(text, 30)
    assert lines == ["  Page One (classic), offline:", "    you and ann-cpu, bob-cpu.",
                     "    Type help for commands."]
    assert " ".join(" ".join(lines).split()) == " ".join(text.split())


def test_a_path_wider_than_the_line_breaks_after_a_slash() -> None:
    path = "/tmp/pytest-of-root/pytest-12/test_a_long_name0/data/pageone/logs/x.pageone-log"
    lines = wrap_text(f"log: {path}", 40)
    assert lines[0] == "log:" and all(len(line) <= 40 for line in lines)
    assert all(line.rstrip().endswith("/") for line in lines[1:-1])
    assert "".join(line.strip() for line in lines[1:]) == path


def test_styles_stay_with_their_words_and_one_style_is_one_fragment() -> None:
    line = [("reverse bold", " YOUR TURN "), ("", "  "), ("bold", "follow hearts: play kh")]
    assert wrap([line], 80) == [line]
    narrow = wrap([line], 20)
    assert narrow[0] == [("reverse bold", " YOUR TURN "), ("", "  "), ("bold", "follow")]
    assert [plain(part) for part in narrow] == [" YOUR TURN   follow", "   hearts: play kh"]


def test_a_27_card_hand_wraps_between_cards_within_80_columns() -> None:
    cards = random.Random(3).sample(range(52), 27)
    line = [("", "you hold 27: "), *cards_line(cards, "classic", set(cards[:5]))]
    lines = wrap([line], 80, indent="")
    assert len(lines) == 2 and all(width_of(part) <= 80 for part in lines)
    tokens = " ".join(plain(part) for part in lines).split()[3:]
    assert len(tokens) == 27 and sum(token.startswith("[") for token in tokens) == 5


@given(st.lists(WORDS, min_size=1, max_size=40), st.integers(min_value=8, max_value=120))
def test_any_text_fits_and_keeps_every_word_whole(words: list[str], width: int) -> None:
    lines = wrap_text(" ".join(words), width)
    assert all(width_of([("", line)]) <= width for line in lines)
    if all(len(word) <= width // 2 for word in words):  # no word needs a cut
        assert " ".join(lines).split() == words
