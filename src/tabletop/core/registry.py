"""The game registry: each game package registers its :class:`Game` on import.

Lookups import ``tabletop.games.<id>`` on demand, so adding a game means adding one
package; nothing here names a game.

Engines: every game has its Python engine (the readable reference); a game may also have
another one from an engine provider that registered itself here (:func:`register_engine`):
the native engines (Rust, the package ``tabletop.native``, ``docs/native.md``) are one,
registered by the package ``tabletop`` on import, so this module names no engine package.
``make(game_id, engine=...)`` picks one: ``"python"``, ``"native"``, or ``"auto"``: the
native engine where it is built, else the Python one.  Without an ``engine`` argument the
environment variable ``TABLETOP_ENGINE`` decides, and without it ``"auto"``: every use
(server, arena, CLI, bots, research environments) plays on the native engine where the
extension is built, and on the Python engine where it is not (``docs/native.md`` has the
measurements per use, and the one kind of work that is slower there).
"""

from __future__ import annotations

import importlib
import logging
import os
import pkgutil
from collections.abc import Callable, Mapping
from typing import Any, Final, Protocol

from tabletop.core.errors import ConfigError, UnknownGameError, short_repr
from tabletop.core.protocol import Game, GameConfig

log = logging.getLogger("tabletop")
_GAMES: dict[str, Game] = {}

ENGINES: Final = ("auto", "python", "native")
"""The engine choices of :func:`make` (and of ``TABLETOP_ENGINE``)."""
ENGINE_VARIABLE: Final = "TABLETOP_ENGINE"
"""The environment variable with the engine :func:`make` uses when not told."""
DEFAULT_ENGINE: Final = "auto"
"""The engine when neither the caller nor ``TABLETOP_ENGINE`` names one: the native
engine where it is built (faster for random play, rollouts, environments and records,
measured in ``docs/native.md``), else the Python one.  The web server picks its own
(``Settings.engine``: Python, measured faster there)."""


class EngineProvider(Protocol):
    """Another engine for registered games (``tabletop.native`` is one): it finds the games
    it plays and wraps their Python ``Game``."""

    def has_engine(self, game_id: str) -> bool:
        """Whether this installation has the engine for ``game_id``."""
        ...

    def engine_game(self, game: Game, *, fallback: bool = False) -> Game:
        """``game`` (the Python engine's) on this engine; with ``fallback`` (the ``"auto"``
        engine), a configuration this engine does not play starts on the Python engine.

        Raises:
            ConfigError: if it is not there for the game (the message says why).
        """
        ...

    def agent_factories(self) -> Mapping[str, Callable[[str | None, int | None], Any]]:
        """The agent kinds that come with the engine (``ai.agent`` registers them; the
        native search bot, ``native:N``): kind -> factory ``(argument, seed) -> agent``."""
        ...


_ENGINES: dict[str, EngineProvider] = {}


def register(game: Game) -> Game:
    """Adds ``game`` to the registry under ``game.id`` and returns it."""
    _GAMES[game.id] = game
    return game


def register_engine(name: str, provider: EngineProvider) -> None:
    """Makes ``make(game_id, engine=name)`` (and ``"auto"``) use ``provider``; ``name``
    must be one of :data:`ENGINES` other than ``"auto"`` and ``"python"``."""
    if name not in ENGINES or name in ("auto", "python"):
        raise ConfigError(f"an engine provider cannot be named {short_repr(name)} (names: {', '.join(ENGINES[2:])})")
    _ENGINES[name] = provider


def engine_providers() -> Mapping[str, EngineProvider]:
    """The registered engine providers, by engine name."""
    return dict(_ENGINES)


def make(game_id: str, engine: str | None = None) -> Game:
    """Returns the registered game with this id, on the chosen engine.

    Args:
        game_id: the game's registry id.
        engine: ``"python"``, ``"native"`` or ``"auto"`` (native where built, else
            Python; a configuration the native engine refuses, by the game's optional
            ``native_refusal`` hook, then starts on the Python engine); ``None`` reads ``TABLETOP_ENGINE``
            (default :data:`DEFAULT_ENGINE`).

    Raises:
        UnknownGameError: if no such game exists.
        ConfigError: for an unknown engine name, or ``"native"`` where it is not built.
    """
    game = _python_game(game_id)
    choice = engine if engine is not None else (os.environ.get(ENGINE_VARIABLE) or DEFAULT_ENGINE)
    if choice not in ENGINES:
        raise ConfigError(f"unknown engine {short_repr(choice)} (known: {', '.join(ENGINES)})")
    if choice == "python":
        return game
    if choice == "auto":
        for provider in _ENGINES.values():
            if provider.has_engine(game.id):
                return provider.engine_game(game, fallback=True)
        return game
    chosen = _ENGINES.get(choice)
    if chosen is None:
        raise ConfigError(f"no {choice} engine for {game.id!r}: its engine provider is not installed")
    return chosen.engine_game(game)


def engine_of(game: Game) -> str:
    """``"native"`` or ``"python"``: the engine that a game from :func:`make` runs on."""
    return str(getattr(game, "engine", "python"))


def _python_game(game_id: str) -> Game:
    """The registered game with this id (its Python engine)."""
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


def player_counts(game: Game, ruleset: str = "default") -> list[int]:
    """The player counts from ``min_players`` to ``max_players`` that ``ruleset`` accepts
    (Medina seats 2 only in its second edition, so its ``default`` ruleset starts at 3)."""
    counts = []
    for n in range(game.min_players, game.max_players + 1):
        try:
            game.canonical_config(GameConfig(num_players=n, ruleset=ruleset))
        except ConfigError:
            continue
        counts.append(n)
    return counts
