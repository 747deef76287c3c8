"""The error hierarchy shared by every game and every layer above the engines.

Each error refines :class:`ValueError`, so callers that only care about "bad input"
can catch that, while the server and CLI map each subclass to its own message or code.
"""

from __future__ import annotations


class TabletopError(Exception):
    """Base class of every error raised on purpose by tabletop."""


class UnknownGameError(TabletopError, KeyError):
    """A game id that is not in the registry."""

    def __str__(self) -> str:  # KeyError quotes its argument; we want the message.
        return str(self.args[0]) if self.args else "unknown game"


class ConfigError(TabletopError, ValueError):
    """An invalid game configuration: player count, ruleset, variant flag or map."""


class InvalidMoveError(TabletopError, ValueError):
    """Text that is not a well-formed move in the game's notation."""


class IllegalMoveError(TabletopError, ValueError):
    """A well-formed move that the rules do not allow in the given state."""


class RecordError(TabletopError, ValueError):
    """A corrupt or inconsistent game record.

    Attributes:
        index: the 0-based index of the offending action, or ``None`` when the
            problem is in the header or the file itself.
    """

    def __init__(self, message: str, *, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index
