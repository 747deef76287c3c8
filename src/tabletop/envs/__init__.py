"""The standard environment APIs of game-AI research, for every game with an encoding.

Needs the ``rl`` extra (``pip install 'tabletop[rl]'``: NumPy, PettingZoo, Gymnasium,
OpenSpiel).  The entry points import their library only when called:

* :func:`aec_env`: a PettingZoo ``AECEnv`` (``tabletop.envs.aec``);
* :func:`parallel_env`: a PettingZoo ``ParallelEnv`` (``tabletop.envs.parallel``);
* :func:`gym_env` / :func:`gym_vector_env`: a Gymnasium ``Env`` for one learner against
  tabletop's bots, and many of them at once (``tabletop.envs.single``);
* :func:`register_openspiel`: the games as OpenSpiel Python games
  (``tabletop.envs.openspiel_game``);
* :func:`vector_games` / :func:`native_vector_env`: many games stepped by one call into
  Rust, as NumPy arrays and as a Gymnasium ``VectorEnv`` (``tabletop.envs.vector``; needs
  the native extension).

Actions and observations are the game's own encoding (``Game.encoding``,
``tabletop.core.encoding``); ``docs/research.md`` documents them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import gymnasium

    from tabletop.envs.aec import TabletopAECEnv
    from tabletop.envs.parallel import TabletopParallelEnv
    from tabletop.envs.single import TabletopGymEnv
    from tabletop.envs.vector import NativeVectorEnv, VectorGames

RL_PACKAGES: Final = ("numpy", "gymnasium", "pettingzoo", "pyspiel")
"""The modules the ``rl`` extra installs (``pyspiel`` comes with ``open_spiel``)."""


class MissingExtraError(ImportError):
    """A library of the ``rl`` extra is not installed."""


def require(module: str) -> None:
    """Imports ``module`` or says how to install it.

    Raises:
        MissingExtraError: if it is not installed.
    """
    import importlib

    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(
            f"tabletop.envs needs {module!r} from the rl extra: pip install 'tabletop[rl]' ({exc})"
        ) from exc


def aec_env(game_id: str, **config: Any) -> TabletopAECEnv:
    """A PettingZoo AEC environment of ``game_id``.

    Keyword arguments: ``num_players``, ``reward`` (``"win"`` or ``"score"``),
    ``render_mode`` (``"ansi"``, ``"rgb_array"``, ``"svg"``), ``ruleset``, ``variants``, ``map``.

    Raises:
        MissingExtraError: without the rl extra.
        ConfigError: for a bad game or configuration.
    """
    for module in ("numpy", "gymnasium", "pettingzoo"):
        require(module)
    from tabletop.envs.aec import TabletopAECEnv

    return TabletopAECEnv(game_id, **config)


def parallel_env(game_id: str, **config: Any) -> TabletopParallelEnv:
    """A PettingZoo ``ParallelEnv`` of ``game_id``: each step plays the action of the agent
    to act (the others' are ignored) and returns every agent's observation.

    Keyword arguments as :func:`aec_env`, plus ``max_steps`` (truncation; ``None``: never)
    and ``illegal_action`` (``"raise"``, the default; ``"lose"``: the episode ends with -1
    to the agent that played it).

    Raises:
        MissingExtraError: without the rl extra.
        ConfigError: for a bad game or configuration.
    """
    for module in ("numpy", "gymnasium", "pettingzoo"):
        require(module)
    from tabletop.envs.parallel import TabletopParallelEnv

    return TabletopParallelEnv(game_id, **config)


def gym_env(game_id: str, opponents: Sequence[str] = ("random",), seat: int = 0, **config: Any) -> TabletopGymEnv:
    """A Gymnasium environment: one learner in ``seat`` against tabletop bots.

    ``opponents`` are agent specs (``random``, ``greedy``, ``mcts:2`` ...), one per other
    seat, cycled if fewer.  Other keyword arguments as :func:`aec_env`, plus
    ``illegal_action`` (``"lose"``: the episode ends with reward -1; ``"raise"``).

    Raises:
        MissingExtraError: without the rl extra.
        ConfigError: for a bad game, configuration or bot spec.
    """
    for module in ("numpy", "gymnasium"):
        require(module)
    from tabletop.envs.single import TabletopGymEnv

    return TabletopGymEnv(game_id, opponents=tuple(opponents), seat=seat, **config)


def gym_vector_env(
    game_id: str, num_envs: int, *, vectorization_mode: str = "sync", **kwargs: Any
) -> gymnasium.vector.VectorEnv[Any, Any, Any]:
    """``num_envs`` :func:`gym_env` games at once (``"sync"``: one process; ``"async"``: one
    process per game), as a Gymnasium vector environment (batched observations and masks).

    Raises:
        MissingExtraError: without the rl extra.
        ConfigError: for a bad game or configuration (checked before any process starts).
    """
    for module in ("numpy", "gymnasium"):
        require(module)
    from tabletop.envs.single import vector_env

    return vector_env(game_id, num_envs, vectorization_mode=vectorization_mode, **kwargs)


def vector_games(game_id: str, num_envs: int, **kwargs: Any) -> VectorGames:
    """``num_envs`` games stepped together in Rust, read as NumPy arrays
    (:class:`tabletop.envs.vector.VectorGames`: its keyword arguments).

    Raises:
        MissingExtraError: without the rl extra.
        ConfigError: for a bad game or configuration.
        NativeEngineError: if the native extension is not built.
    """
    for module in ("numpy", "gymnasium"):
        require(module)
    from tabletop.envs.vector import VectorGames

    return VectorGames(game_id, num_envs, **kwargs)


def native_vector_env(game_id: str, num_envs: int, **kwargs: Any) -> NativeVectorEnv:
    """:func:`vector_games` as a Gymnasium ``VectorEnv`` (same-step autoreset;
    :class:`tabletop.envs.vector.NativeVectorEnv`).

    Raises:
        MissingExtraError: without the rl extra.
        ConfigError: for a bad game or configuration.
        NativeEngineError: if the native extension is not built.
    """
    for module in ("numpy", "gymnasium"):
        require(module)
    from tabletop.envs.vector import NativeVectorEnv

    return NativeVectorEnv(game_id, num_envs, **kwargs)


def register_openspiel() -> tuple[str, ...]:
    """Registers ``python_tabletop_terranova`` and ``python_tabletop_medina`` with OpenSpiel
    (``pyspiel.load_game("python_tabletop_medina(players=4)")`` then works) and returns
    the names.  Calling it again does nothing.

    Raises:
        MissingExtraError: without the rl extra.
    """
    for module in ("numpy", "pyspiel"):
        require(module)
    from tabletop.envs.openspiel_game import register

    return register()


__all__ = [
    "MissingExtraError",
    "aec_env",
    "gym_env",
    "gym_vector_env",
    "native_vector_env",
    "parallel_env",
    "register_openspiel",
    "require",
    "vector_games",
]
