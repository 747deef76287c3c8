"""The native MCTS as a bot: ``native``, ``native:N`` and ``native:N@Ts`` / ``@Tcpu``.

The search runs wholly in Rust (``native/src/common/mcts.rs``): UCT over the native
engine, per-seat values (so 3-4 seats and turns of several actions by one seat need
nothing special), children created lazily (one tree node per simulation).  Medina's
levels value each leaf by one kind-first random rollout; Terra Nova's by the Rust
evaluation, with the root's moves ranked by their one-ply evaluation
(:data:`TERRANOVA_LEVELS`).  ``docs/bots.md`` ("The native level" and the fifth part of
the lab notes) has the settings and how they were measured.

Specs, next to ``mcts:N`` (``make_agent``):

* ``native:N`` — level ``N`` (1-5), a fixed number of simulations (:data:`LEVELS`), so
  a seed gives the same moves on any machine; ``native`` alone is level 3.
* ``native:N,widening=1.5,uct=1,margin=0.5,rollout=0,rank=1,sims=3000`` — level N with
  other search settings (for experiments: :data:`SETTINGS`), over the level's settings
  for each game.
* ``native:N@0.5s`` — level N's settings, 0.5 wall-clock seconds a move (as
  ``mcts:N@0.5s``); ``native:N@0.5cpu`` — 0.5 CPU seconds of the searching thread, which
  a loaded machine does not shorten.  ``native@0.5s`` is level 3's settings.

The agent searches native states directly, and a Python-engine state at any position
is loaded into the native engine first (``tabletop.native.native_state_of``), so the bot
plays in games on either engine.

This module imports only ``core`` and the native adapter (the ``native`` layer); the
``ai`` registry finds :func:`agent_factories` by name, as ``core.registry`` finds the
native engines, and has the ``native`` kind only where the extension is built.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from tabletop.core.errors import ConfigError
from tabletop.core.protocol import Move, State
from tabletop.native import NativeEngineError, NativeState, native_module, native_state_of


@dataclass(frozen=True, slots=True)
class NativeSearchConfig:
    """How the native search plays a move.

    Attributes:
        simulations: simulations per move, or ``None`` to search on time only.
        seconds: seconds per move, or ``None`` for the simulations alone.
        cpu_time: whether ``seconds`` are CPU seconds of the searching thread (else
            wall-clock seconds).
        uct_c: the UCT exploration constant (rewards are win shares in [0, 1]).
        widening: progressive widening (``0``: every action once before any twice).
        margin_weight: how much of a rollout's reward is the seat's score margin (a
            logistic of its lead over the best other seat) rather than its win share.
        rollout_limit: rollouts of at most this many actions, then the game's evaluation
            in Rust (Terra Nova only); ``None``: random rollouts to the end.
        leaf_evaluation: where the game has an evaluation in Rust and ``rollout_limit``
            is ``None``, value leaves by it without a rollout (``rollout_limit`` 0).
        widening_power: the exponent of progressive widening: at most
            ``ceil(widening * visits ** widening_power)`` children a node.
        rank_root: expand the root's moves best first by their one-ply evaluation (the
            seat's estimated lead after the move) instead of in a random order, where the
            game has an evaluation in Rust and the search uses it (``rollout_limit`` set).
        rank_visits: also rank the moves of every node with at least this many visits
            (``0``: only the root, if ``rank_root``).
        horizon: if a random playout from the root ends within this many actions, value
            every leaf by a random rollout to the end instead of the evaluation (``0``:
            never), as the Python levels' ``AdaptiveRollout`` does.
    """

    simulations: int | None = 10_000
    seconds: float | None = None
    cpu_time: bool = False
    uct_c: float = 2.0
    widening: float = 0.0
    margin_weight: float = 0.0
    rollout_limit: int | None = None
    leaf_evaluation: bool = False
    widening_power: float = 0.5
    rank_root: bool = False
    rank_visits: int = 0
    horizon: int = 0

    def __post_init__(self) -> None:
        if self.simulations is None and self.seconds is None:
            raise ConfigError("a native search needs simulations or seconds per move")
        if self.simulations is not None and self.simulations < 1:
            raise ConfigError(f"simulations must be at least 1, got {self.simulations}")


LEVELS: Final[Mapping[int, NativeSearchConfig]] = {
    1: NativeSearchConfig(1_000),
    2: NativeSearchConfig(3_000),
    3: NativeSearchConfig(10_000),
    4: NativeSearchConfig(30_000),
    5: NativeSearchConfig(100_000),
}
"""Settings per level (Medina's, and any game without its own levels in
:data:`GAME_LEVELS`); the seconds a move they take are in ``docs/bots.md``."""


def _terranova_level(simulations: int) -> NativeSearchConfig:
    # Terra Nova's random rollouts are long (about 270 actions in the middle game) and say
    # little; the Python levels won with the evaluation as the leaf value and the root's
    # moves ranked by it.  So: leaves valued by the Rust evaluation (rollout 0), the
    # root's moves ranked by their one-ply evaluation, progressive widening, and a small
    # UCT constant for those close values (docs/bots.md, fifth part).
    return NativeSearchConfig(simulations, uct_c=0.2, widening=1.5, rollout_limit=0, rank_root=True, rank_visits=0)


TERRANOVA_LEVELS: Final[Mapping[int, NativeSearchConfig]] = {
    1: _terranova_level(1_000),
    2: _terranova_level(3_000),
    3: _terranova_level(10_000),
    4: _terranova_level(30_000),
    5: _terranova_level(100_000),
}
"""Terra Nova's settings per level (measured in ``docs/bots.md``, fifth part)."""

GAME_LEVELS: Final[Mapping[str, Mapping[int, NativeSearchConfig]]] = {"terranova": TERRANOVA_LEVELS}

LEAF_EVALUATION_GAMES: Final = frozenset({"terranova"})
"""The games whose tree search can value leaves by the evaluation in Rust
(``rollout_limit``); Medina's evaluation in Rust serves the alpha-beta only."""
"""The games whose levels differ from :data:`LEVELS`."""

DEFAULT_LEVEL: Final = 3


def level_config(arg: str | None, game_id: str | None = None) -> tuple[NativeSearchConfig, str]:
    """The settings and display name for the part of a ``native`` spec after ``:``.

    Args:
        arg: ``None`` (level 3), ``"N"``, ``"N@Ts"``, ``"N@Tcpu"`` or ``"@Ts"``, each
            optionally with settings after the level (``"N,uct=0.3@Tcpu"``).
        game_id: the game whose levels to use (:data:`GAME_LEVELS`); ``None`` or a game
            without its own levels: :data:`LEVELS`.

    Raises:
        ConfigError: for an unknown level or a bad time.
    """
    levels = GAME_LEVELS.get(game_id, LEVELS) if game_id else LEVELS
    text = arg or str(DEFAULT_LEVEL)
    head, at, time_text = text.partition("@")
    level_text, *settings = head.split(",")
    level_text = level_text or str(DEFAULT_LEVEL)
    try:
        level = int(level_text)
        config = levels[level]
    except (ValueError, KeyError):
        raise ConfigError(
            f"unknown native level {level_text!r} (levels: 1-{max(LEVELS)}, e.g. 'native:3' or 'native:3@0.5s')"
        ) from None
    config = _with_settings(config, settings)
    name = ",".join([f"native:{level}", *settings])
    if not at:
        return config, name
    seconds, cpu_time = time_per_move(time_text, "'native:3@0.5s' wall-clock or 'native:3@0.5cpu' CPU seconds")
    return replace(config, simulations=None, seconds=seconds, cpu_time=cpu_time), f"{name}@{time_text}"


def time_per_move(time_text: str, example: str) -> tuple[float, bool]:
    """The seconds of a spec's time a move (the text after ``@``: ``0.5s`` or ``0.5``
    wall-clock, ``0.5cpu`` CPU seconds of the searching thread) and whether they are CPU
    seconds; ``example`` goes into the error.

    Raises:
        ConfigError: for text that is not such a time, or not a positive, finite one.
    """
    cpu_time = time_text.endswith("cpu")
    number = time_text.removesuffix("cpu") if cpu_time else time_text.removesuffix("s")
    try:
        seconds = float(number)
    except ValueError:
        raise ConfigError(f"bad time per move {time_text!r} (e.g. {example})") from None
    if not 0 < seconds < math.inf:
        raise ConfigError(f"the time per move must be a positive, finite number of seconds, got {time_text!r}")
    return seconds, cpu_time


SETTINGS: Final = {
    "uct": "uct_c",
    "widening": "widening",
    "margin": "margin_weight",
    "rollout": "rollout_limit",
    "wpow": "widening_power",
    "rank": "rank_root",
    "rankdeep": "rank_visits",
    "horizon": "horizon",
    "sims": "simulations",
}
"""The settings a spec may change after the level, e.g. ``native:2,widening=1.5,uct=1``
(for experiments: the levels' own settings are the measured ones).  ``rank`` is 0 or 1;
``rollout``, ``rankdeep``, ``horizon`` and ``sims`` (simulations a move) are whole
numbers."""

_WHOLE: Final = frozenset({"rollout", "rankdeep", "horizon", "sims"})


def _with_settings(config: NativeSearchConfig, settings: list[str]) -> NativeSearchConfig:
    changes: dict[str, float | int] = {}
    for item in settings:
        key, eq, value = item.partition("=")
        if not eq or key not in SETTINGS:
            raise ConfigError(f"bad native setting {item!r} (known: {', '.join(f'{k}=X' for k in SETTINGS)})")
        try:
            number = float(value)
        except ValueError:
            raise ConfigError(f"bad number in native setting {item!r}") from None
        if not 0 <= number < math.inf or (key == "margin" and number > 1):
            raise ConfigError(f"native setting {item!r} must be finite and not negative (margin: at most 1)")
        if key in _WHOLE and not number.is_integer():
            raise ConfigError(f"native setting {item!r}: a whole number")
        if key == "sims" and number < 1:
            raise ConfigError(f"native setting {item!r}: at least 1 simulation")
        if key == "rank" and number not in (0, 1):
            raise ConfigError(f"native setting {item!r}: 0 (off) or 1 (on)")
        changes[SETTINGS[key]] = bool(number) if key == "rank" else int(number) if key in _WHOLE else number
    return replace(config, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class NativeSearchStats:
    """What the last search did."""

    simulations: int
    nodes: int
    bytes_per_node: int
    tree_bytes: int
    wall_seconds: float


class NativeMctsAgent:
    """MCTS with random rollouts run wholly in Rust, as an anytime agent.

    ``choose_move(state, deadline)`` answers by ``deadline`` (a :func:`time.monotonic`
    instant) at the latest; :meth:`stop`, from another thread, makes a running search
    answer within a few simulations.  With a fixed simulation budget and a seed the
    moves are the same on every run.

    Attributes:
        config: the search settings.
        game_configs: other settings for some games, by game id (a level's Terra Nova
            settings, :data:`GAME_LEVELS`); the others use ``config``.
        last_stats: what the last search did (``None`` before the first).
    """

    def __init__(
        self,
        config: NativeSearchConfig | int = NativeSearchConfig(),
        *,
        seed: int | None = None,
        name: str | None = None,
        game_configs: Mapping[str, NativeSearchConfig] | None = None,
        root_order: Callable[[NativeState], list[int] | None] | None = None,
        evaluation: Callable[[NativeState], list[float] | None] | None = None,
    ) -> None:
        """``root_order``: where given, the action ids of a position best first (a
        network's policy: ``tabletop.native.puct``'s ``guided`` bot) or ``None`` (a
        position it does not know); the search ranks the root's moves so instead of by
        the one-ply evaluation (with ``rank_root``).  ``evaluation``: where given, the
        weights of the game's learned evaluation for a position
        (``tabletop.native.learned``), or ``None`` (the game's own evaluation)."""
        self._root_order = root_order
        self._evaluation = evaluation
        self.config = NativeSearchConfig(config) if isinstance(config, int) else config
        self.game_configs: Mapping[str, NativeSearchConfig] = dict(game_configs or {})
        self._name = name or (f"native@{self.config.simulations}" if self.config.simulations else "native")
        self._rng = random.Random(seed)
        module = native_module()
        if module is None or not hasattr(module, "SearchStop"):
            raise ConfigError("the native MCTS needs the extension tabletop._native (`make native`)")
        self._stop = module.SearchStop()
        self.last_stats: NativeSearchStats | None = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def last_nodes(self) -> int:
        """Nodes in the last search's tree (0 before the first)."""
        return self.last_stats.nodes if self.last_stats else 0

    def choose_move(self, state: State, deadline: float | None = None) -> Move:
        """The most visited move of a search from ``state``.

        Raises:
            ValueError: if the game is over, or ``state`` is not a valid position
                (``InvalidPositionError``).
            ConfigError: if the game has no native engine.
        """
        native = to_native(state)
        config = self.config_for(state.game.id)
        options = search_options(config, state.game.id, self._rng.getrandbits(64))
        order = None if self._root_order is None else self._root_order(native)
        if order is not None:
            options["root_order"] = order
        weights = None if self._evaluation is None else self._evaluation(native)
        if weights is not None:
            options["evaluation"] = weights
        wall: float | None = None
        if config.seconds is not None:
            if config.cpu_time:
                options["cpu_seconds"] = config.seconds
            else:
                wall = config.seconds
        if deadline is not None:
            left = max(0.0, deadline - time.monotonic())
            wall = left if wall is None else min(wall, left)
        if wall is not None:
            options["wall_seconds"] = wall
        start = time.monotonic()
        try:
            found = native.native.search(stop=self._stop, **options)
        finally:
            # Cleared after the search, not before: a stop() that came in while the
            # thread was starting must still stop this search.
            self._stop.clear()
        self.last_stats = NativeSearchStats(
            found["simulations"], found["nodes"], found["node_bytes"], found["tree_bytes"], time.monotonic() - start
        )
        action = found["action"]
        if action is None:
            raise ValueError("the game is over")
        # The native engine's moves are the Python engine's own Move objects.
        move: Move = native.move_of_action(action)
        return move

    def config_for(self, game_id: str) -> NativeSearchConfig:
        """The settings this agent searches ``game_id`` with."""
        return self.game_configs.get(game_id, self.config)

    def stop(self) -> None:
        """Makes a running :meth:`choose_move` return its best move within a few simulations."""
        self._stop.set()


def search_options(config: NativeSearchConfig, game_id: str, seed: int) -> dict[str, Any]:
    """The keywords of the Rust ``search`` of a native position for ``config`` in
    ``game_id``, but the time budget (``cpu_seconds``, ``wall_seconds``) and ``stop``."""
    options: dict[str, Any] = {"seed": seed, "uct_c": config.uct_c}
    options["widening"] = config.widening
    options["margin_weight"] = config.margin_weight
    options["widening_power"] = config.widening_power
    options["rank_root"] = config.rank_root
    options["rank_visits"] = config.rank_visits
    options["horizon"] = config.horizon
    if config.rollout_limit is not None:
        options["rollout_limit"] = config.rollout_limit
    elif config.leaf_evaluation and game_id in LEAF_EVALUATION_GAMES:
        options["rollout_limit"] = 0
    if config.simulations is not None:
        options["simulations"] = config.simulations
    return options


def to_native(state: State) -> NativeState:
    """``state`` on the native engine: itself if it is native, else the equal native state
    loaded from the Python engine's position.

    Raises:
        ConfigError: if its game has no native engine here.
        InvalidPositionError: (a ``ValueError``) if it is not a valid position.
    """
    try:
        return native_state_of(state)
    except NativeEngineError as exc:  # not built, or no engine for this game
        raise ConfigError(str(exc)) from None


def _factory(arg: str | None, seed: int | None) -> NativeMctsAgent:
    config, name = level_config(arg)
    per_game = {game_id: level_config(arg, game_id)[0] for game_id in GAME_LEVELS}
    return NativeMctsAgent(config, seed=seed, name=name, game_configs=per_game)


def agent_factories() -> Mapping[str, Callable[[str | None, int | None], Any]]:
    """The agent kinds this module adds (``ai.agent``'s registry): ``native`` where the
    extension with the search is built, nothing otherwise."""
    module = native_module()
    if module is None or not hasattr(module, "SearchStop"):
        return {}
    return {"native": _factory}
