"""Table settings: one typed, validated object per rule family (RULINGS C13 and the Qdan table)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

MIN_PLAYERS = 2
MAX_PLAYERS = 6
ELIMINATION_LIMIT = 100


class SettingError(ValueError):
    """A setting that does not exist or has a value outside its allowed values."""


@dataclass(frozen=True, slots=True)
class ClassicSettings:
    """Classic Page One (seeds 000/001/003/004). Defaults: RULINGS "Classic"."""

    hand_size: int = 4
    jokers: int = 1
    joker_points: int = 50
    forget_penalty: int = 5
    call_at: int = 2
    reverse_lead: bool = False
    stop_eight: bool = False
    scoring: Literal["deals", "elimination"] = "deals"
    deals: int = 5
    exhausted: Literal["pass", "drawn"] = "pass"  # stock empty, nothing to reshuffle (C6)

    family = "classic"

    def __post_init__(self) -> None:
        _check(self)

    @property
    def deck_size(self) -> int:
        return 52 + self.jokers

    def check_players(self, players: int) -> None:
        _check_player_count(players)
        if players * self.hand_size >= self.deck_size:
            raise SettingError(f"hand_size {self.hand_size} is too large for {players} players")


@dataclass(frozen=True, slots=True)
class QdanSettings:
    """Qdan Page One (seed 002). Defaults: the site's table (RULINGS "Qdan")."""

    start_cards: int = 7
    hand_limit: int = 15
    forget_penalty: int = 5
    colour_changes: int = 4
    announce: bool = True
    turn_timer: int = 0

    family = "qdan"

    def __post_init__(self) -> None:
        _check(self)  # the ranges keep hand_limit >= start_cards

    @property
    def deck_size(self) -> int:
        return 104 + self.colour_changes

    def check_players(self, players: int) -> None:
        _check_player_count(players)
        # With every hand at the limit, the discards (less a top group of at most 8 cards) must
        # still hold a card to reshuffle, or the table could pass forever.
        if players * self.hand_limit >= self.deck_size - 8:
            raise SettingError(
                f"hand_limit {self.hand_limit} is too large for {players} players: "
                f"at most {(self.deck_size - 9) // players} with this deck"
            )


Settings = ClassicSettings | QdanSettings

ALLOWED: dict[str, dict[str, tuple[Any, ...]]] = {
    "classic": {
        "hand_size": (4, 5),
        "jokers": (1, 2),
        "joker_points": (20, 50),
        "forget_penalty": (5, 0),
        "call_at": (2, 1),
        "reverse_lead": (False, True),
        "stop_eight": (False, True),
        "scoring": ("deals", "elimination"),
        "deals": tuple(range(1, 201)),
        "exhausted": ("pass", "drawn"),
    },
    "qdan": {
        "start_cards": tuple(range(3, 11)),
        "hand_limit": tuple(range(10, 26)),
        "forget_penalty": (5, 2, 0),
        "colour_changes": tuple(range(9)),
        "announce": (True, False),
        "turn_timer": (0, 30, 60),
    },
}


def _describe(values: tuple[Any, ...]) -> str:
    if len(values) > 4 and all(isinstance(v, int) for v in values):
        return f"{values[0]}..{values[-1]}"
    return ", ".join(_show(v) for v in values)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _check(settings: Settings) -> None:
    allowed = ALLOWED[settings.family]
    for field in dataclasses.fields(settings):
        value = getattr(settings, field.name)
        values = allowed[field.name]
        if type(value) is not type(values[0]) or value not in values:
            raise SettingError(
                f"{settings.family} setting {field.name} must be one of {_describe(values)}"
                f" (got {_show(value)})"
            )


def _check_player_count(players: int) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise SettingError(f"Page One takes {MIN_PLAYERS} to {MAX_PLAYERS} players (got {players})")


def _coerce(family: str, key: str, text: str) -> Any:
    sample = ALLOWED[family][key][0]
    lowered = text.strip().lower()
    if isinstance(sample, bool):
        if lowered in ("on", "true", "yes", "1"):
            return True
        if lowered in ("off", "false", "no", "0"):
            return False
    elif isinstance(sample, int):
        try:
            return int(lowered)
        except ValueError:
            pass
    else:
        return lowered
    raise SettingError(
        f"{family} setting {key} must be one of {_describe(ALLOWED[family][key])} (got {text!r})"
    )


def make_settings(family: str, options: Mapping[str, Any] | None = None) -> Settings:
    """Build settings for ``family`` from ``key: value`` pairs (values may be strings)."""
    if family not in ALLOWED:
        raise SettingError(f"rules must be classic or qdan (got {family!r})")
    values: dict[str, Any] = {}
    for key, value in (options or {}).items():
        if key not in ALLOWED[family]:
            known = ", ".join(ALLOWED[family])
            raise SettingError(f"{family} has no setting {key!r}; its settings are: {known}")
        values[key] = _coerce(family, key, value) if isinstance(value, str) else value
    if family == "classic":
        return ClassicSettings(**values)
    return QdanSettings(**values)


def parse_options(family: str, pairs: Iterable[str]) -> Settings:
    """Settings from command-line ``key=value`` strings."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SettingError(f"option {pair!r} must look like key=value, e.g. hand_size=5")
        options[key.strip()] = value
    return make_settings(family, options)


def settings_to_dict(settings: Settings) -> dict[str, Any]:
    return {"rules": settings.family, **dataclasses.asdict(settings)}
