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


class _Reasoned(TabletopError):
    """An error whose cause may carry a coded :class:`Message` for translation.

    Attributes:
        reason: the coded reason (``None`` when only English text exists); a
            :class:`Message` passed as the error text is its own reason.
    """

    def __init__(self, message: str, *, reason: Message | None = None) -> None:
        super().__init__(message)
        self.reason = reason if reason is not None else message if isinstance(message, Message) else None


class InvalidMoveError(_Reasoned, ValueError):
    """Text that is not a well-formed move in the game's notation."""


class IllegalMoveError(_Reasoned, ValueError):
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


class Message(str):
    """An English message that also carries a stable ``code`` and its ``params``.

    It *is* the English text (a ``str``), so the terminal, logs and every caller that
    compares or prints a reason keep working; the web client translates it from
    ``code`` and ``params`` instead (``web/i18n/*.json`` holds each code in every
    language).  Codes are ``<game>.<name>``; params are cell or square names, counts,
    colour words (``color``: translated by the client) and move text (``move``).
    """

    code: str
    params: dict[str, str | int]

    def __new__(cls, code: str, text: str, params: dict[str, str | int]) -> Message:
        message = super().__new__(cls, text)
        message.code = code
        message.params = params
        return message

    def to_json(self) -> dict[str, object]:
        """``{"code", "params", "text"}``: what the server sends to clients."""
        return {"code": self.code, "params": dict(self.params), "text": str(self)}


class Catalogue:
    """A game's messages: each code's English template, filled in by :meth:`__call__`.

    >>> say = Catalogue("toy", {"occupied": "{cell} is occupied"})
    >>> m = say("occupied", cell="c4")
    >>> (m, m.code, m.params)
    ('c4 is occupied', 'toy.occupied', {'cell': 'c4'})
    """

    def __init__(self, prefix: str, templates: dict[str, str]) -> None:
        self.prefix = prefix
        self.templates = templates

    def __call__(self, name: str, **params: str | int) -> Message:
        template = self.templates[name]  # a KeyError here is a bug in the engine
        return Message(f"{self.prefix}.{name}", template.format(**params), params)

    def codes(self) -> dict[str, str]:
        """Every full code and its English template (for the translation check)."""
        return {f"{self.prefix}.{name}": text for name, text in self.templates.items()}


def reason_of(error: BaseException) -> Message | None:
    """The coded reason an engine error carries, if any (see :class:`Message`)."""
    reason = getattr(error, "reason", None)
    return reason if isinstance(reason, Message) else None


def count_of(n: int, word: str, plural: str | None = None) -> str:
    """``n`` with ``word`` in English singular or plural: ``count_of(1, "cell") == "1 cell"``.

    For the English texts of the engines (terminal, logs); the web client has its own
    plural rules per language.
    """
    return f"{n} {word if n == 1 else plural or word + 's'}"
