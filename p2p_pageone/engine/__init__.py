"""The rules of Page One, classic and Qdan: pure, deterministic, hidden information first-class."""

from .classic import ClassicDeal
from .deal import NOBODY, UNKNOWN, Deal
from .game import DealResult, Game
from .moves import (
    Call,
    Catch,
    Chance,
    ChanceError,
    DealRequest,
    Draw,
    IllegalMove,
    Move,
    Play,
    ReshuffleRequest,
    RevealRequest,
    TurnUpRequest,
    UnknownCard,
)
from .qdan import QdanDeal
from .settings import (
    ClassicSettings,
    QdanSettings,
    SettingError,
    Settings,
    make_settings,
    parse_options,
)
from .view import SeatView

__all__ = [
    "NOBODY",
    "UNKNOWN",
    "Call",
    "Catch",
    "Chance",
    "ChanceError",
    "ClassicDeal",
    "ClassicSettings",
    "Deal",
    "DealRequest",
    "DealResult",
    "Draw",
    "Game",
    "IllegalMove",
    "Move",
    "Play",
    "QdanDeal",
    "QdanSettings",
    "ReshuffleRequest",
    "RevealRequest",
    "SeatView",
    "SettingError",
    "Settings",
    "TurnUpRequest",
    "UnknownCard",
    "make_settings",
    "parse_options",
]
