"""The error hierarchy shared by every game and every layer above the engines.

Each error refines :class:`ValueError`, so callers that only care about "bad input"
can catch that, while the server and CLI map each subclass to its own message or code.
"""

from __future__ import annotations

import reprlib


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


SHORT_REPR_LENGTH = 40
"""How many characters of a bad value an error message quotes at most."""


def short_repr(value: object, limit: int = SHORT_REPR_LENGTH) -> str:
    """``repr(value)`` cut to ``limit`` characters (with ``…``), for quoting bad input.

    Safe on anything parsed JSON can hold: a long string, a deeply nested list (only
    the first levels are shown) or a huge integer never makes a long message or fails.
    """
    try:
        text = _REPR.repr(value)
    except (ValueError, RecursionError):  # e.g. an int too long to print
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


_REPR = reprlib.Repr()
_REPR.maxlevel = 2
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = SHORT_REPR_LENGTH + 2
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 4
