"""The game registry: each game package registers its :class:`Game` on import.

Lookups import ``tabletop.games.<id>`` on demand, so adding a game means adding one
package; nothing here names a game.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil

from tabletop.core.errors import UnknownGameError, short_repr
from tabletop.core.protocol import Game

log = logging.getLogger("tabletop")
_GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    """Adds ``game`` to the registry under ``game.id`` and returns it."""
    _GAMES[game.id] = game
    return game


def make(game_id: str) -> Game:
    """Returns the registered game with this id.

    Raises:
        UnknownGameError: if no such game exists.
    """
    if game_id not in _GAMES and game_id.isidentifier():
        try:
            importlib.import_module(f"tabletop.games.{game_id}")
        except ModuleNotFoundError as exc:
            if exc.name != f"tabletop.games.{game_id}":
                raise
    try:
        return _GAMES[game_id]
    except KeyError:
        known = ", ".join(available_games()) or "none"
        raise UnknownGameError(f"unknown game {short_repr(game_id)} (known: {known})") from None


def available_games() -> tuple[str, ...]:
    """The ids of every game shipped with tabletop, sorted.

    A game package that fails to import is logged and left out, so one broken game
    never takes the others (or the server's game list) down with it.
    """
    import tabletop.games as games_pkg

    for info in pkgutil.iter_modules(games_pkg.__path__):
        if info.ispkg and info.name not in _GAMES:
            try:
                importlib.import_module(f"tabletop.games.{info.name}")
            except Exception:
                log.exception("the game package %r failed to import", info.name)
    return tuple(sorted(_GAMES))
