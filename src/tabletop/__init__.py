"""tabletop: Terra Nova and Medina on the computer.

>>> import tabletop
>>> "terranova" in tabletop.available_games()
True
"""

# The composition of the engines: the native engines (Rust) register themselves as an
# engine provider of the registry on import (docs/architecture.md), so core never names them.
import tabletop.native  # noqa: F401  (registers itself into core.registry)
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
