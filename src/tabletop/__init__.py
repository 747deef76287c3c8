"""tabletop: Terra Nova and Medina on the computer.

>>> import tabletop
>>> "terranova" in tabletop.available_games()
True
"""

from tabletop.core.errors import (
    ConfigError,
    IllegalMoveError,
    InvalidMoveError,
    RecordError,
    TabletopError,
    UnknownGameError,
)
from tabletop.core.outcome import Outcome
from tabletop.core.protocol import TERMINAL, Game, GameConfig, Move, State
from tabletop.core.record import GameRecord, PlayerInfo, replay
from tabletop.core.registry import available_games, make

__all__ = [
    "TERMINAL",
    "ConfigError",
    "Game",
    "GameConfig",
    "GameRecord",
    "IllegalMoveError",
    "InvalidMoveError",
    "Move",
    "Outcome",
    "PlayerInfo",
    "RecordError",
    "State",
    "TabletopError",
    "UnknownGameError",
    "available_games",
    "make",
    "replay",
]
