"""Settings: one typed, validated object; errors name the setting and its allowed values."""

from __future__ import annotations

import pytest

from p2p_pageone.engine import ClassicSettings, QdanSettings, SettingError, parse_options
from p2p_pageone.engine.settings import make_settings, settings_to_dict


def test_classic_defaults_follow_the_rulings() -> None:
    s = ClassicSettings()
    assert (s.hand_size, s.jokers, s.joker_points, s.forget_penalty, s.call_at) == (4, 1, 50, 5, 2)
    assert (s.reverse_lead, s.stop_eight, s.scoring, s.deals) == (False, False, "deals", 5)
    assert s.deck_size == 53


def test_qdan_defaults_follow_the_site_table() -> None:
    s = QdanSettings()
    assert (s.start_cards, s.hand_limit, s.forget_penalty, s.colour_changes) == (7, 15, 5, 4)
    assert s.announce and s.turn_timer == 0 and s.deck_size == 108


def test_options_parse_from_strings() -> None:
    s = parse_options("classic", ["hand_size=5", "stop_eight=on", "scoring=elimination"])
    assert isinstance(s, ClassicSettings)
    assert s.hand_size == 5 and s.stop_eight and s.scoring == "elimination"
    q = parse_options("qdan", ["announce=off", "colour_changes=0", "turn_timer=60"])
    assert isinstance(q, QdanSettings) and not q.announce and q.deck_size == 104


@pytest.mark.parametrize(
    ("family", "pair", "message"),
    [
        ("classic", "hand_size=7", "hand_size must be one of 4, 5 (got 7)"),
        ("classic", "jokers=3", "jokers must be one of 1, 2"),
        ("classic", "reverse_lead=maybe", "reverse_lead must be one of off, on"),
        ("classic", "scoring=golf", "scoring must be one of deals, elimination"),
        ("classic", "colour_changes=2", "classic has no setting 'colour_changes'"),
        ("qdan", "forget_penalty=3", "forget_penalty must be one of 5, 2, 0"),
        ("qdan", "start_cards=x", "start_cards must be one of 3..10"),
        ("qdan", "hand_size", "must look like key=value"),
    ],
)
def test_bad_settings_name_the_setting_and_allowed_values(
    family: str, pair: str, message: str
) -> None:
    with pytest.raises(SettingError) as error:
        parse_options(family, [pair])
    assert message in str(error.value)


def test_bad_rules_and_player_counts() -> None:
    with pytest.raises(SettingError, match="rules must be classic or qdan"):
        make_settings("uno")
    with pytest.raises(SettingError, match="2 to 6 players"):
        ClassicSettings().check_players(7)
    with pytest.raises(SettingError, match="2 to 6 players"):
        QdanSettings().check_players(1)


def test_typed_values_are_checked_too() -> None:
    with pytest.raises(SettingError, match="hand_size must be one of 4, 5 \\(got 6\\)"):
        ClassicSettings(hand_size=6)
    with pytest.raises(SettingError):
        QdanSettings(announce=1)  # type: ignore[arg-type]


def test_settings_round_trip_through_a_dict() -> None:
    s = ClassicSettings(hand_size=5, jokers=2)
    data = settings_to_dict(s)
    assert data["rules"] == "classic"
    rebuilt = make_settings("classic", {k: v for k, v in data.items() if k != "rules"})
    assert rebuilt == s
