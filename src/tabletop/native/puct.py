"""The network search as a bot: ``puct:NAME``, ``puct:NAME,sims=N``, ``puct:NAME@0.5cpu``.

PUCT (AlphaZero's search) runs wholly in Rust (``native/src/common/puct.rs``) over the
native engine, with a policy and value network evaluated in Rust
(``native/src/common/network.rs``): the policy is the prior of each move, the value
head (one win share per seat) values the leaves, finished games their returns.  The
network is a ``.npz`` file of the format in ``docs/bots.md`` ("The network in the
search"), made by ``tabletop train``; :func:`load_network` reads it once per file and
process, and every agent and thread shares it.

Specs (``make_agent``) name a network file, never a path: ``NAME`` is looked up as
``NAME`` or ``NAME.npz`` in the directories of :data:`NETWORKS_VARIABLE` (a bot spec
comes from the web too, and must not open files the server's operator did not put
there):

* ``puct:NAME`` — :data:`DEFAULT_SIMULATIONS` simulations a move, so a seed gives the
  same moves on any machine.
* ``puct:NAME,sims=N,c=C,batch=B,sample=K`` — other settings (``c``: ``c_puct``;
  ``batch``: leaves per network call; ``sample``: the game's first K plies drawn in
  proportion to the visits, for varied games between deterministic searches).
* ``puct:NAME,mix=0.5,rollout=R`` — each leaf valued half by the network, half by the
  game's own leaf value (a random playout of at most R actions, then the evaluation;
  without ``rollout`` the game's native levels' choice, :func:`default_leaf_rollout`).
* ``puct:NAME,mix=1,horizon=160`` — and where a random walk of 160 actions from the
  position ends the game, the playouts go to the end (Terra Nova's Strong and Master's
  ``horizon``).
* ``puct:NAME@0.5cpu`` — 0.5 CPU seconds of the searching thread a move;
  ``puct:NAME@0.5s`` — 0.5 wall-clock seconds.

A :class:`PuctAgent` made in Python takes any path or a loaded network.  This module
imports only ``core`` and the native adapter (the ``native`` layer, as ``native`` and
``native-ab``); reading the file needs NumPy (the ``rl`` extra).
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from tabletop.core.errors import ConfigError
from tabletop.core.network_file import load_network as read_network
from tabletop.core.protocol import Move, State
from tabletop.native import native_module
from tabletop.native.mcts import LEAF_EVALUATION_GAMES, time_per_move, to_native

if TYPE_CHECKING:
    from tabletop.core.network import NetworkMeta

KIND: Final = "puct"

DEFAULT_SIMULATIONS: Final = 800
"""Simulations a move of ``puct:PATH`` without a budget."""

NETWORKS_VARIABLE: Final = "TABLETOP_NETWORKS"
"""The directories (``os.pathsep``-separated) where ``puct:NAME`` finds its network, before
:data:`PACKAGED_NETWORKS`."""

PACKAGED_NETWORKS: Final = Path(__file__).parent / "networks"
"""The networks shipped with the package (``tabletop.native.networks``), searched last."""

_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")

_SETTINGS: Final = {
    "sims": "simulations",
    "c": "c_puct",
    "batch": "batch_size",
    "sample": "sampled_plies",
    "mix": "leaf_mix",
    "rollout": "leaf_rollout",
    "horizon": "leaf_horizon",
}
_WHOLE_SETTINGS: Final = frozenset({"sims", "batch", "sample", "rollout", "horizon"})


@dataclass(frozen=True, slots=True)
class PuctConfig:
    """How the network search plays a move.

    Attributes:
        simulations: simulations a move, or ``None`` to search on time only.
        seconds: seconds a move, or ``None`` for the simulations alone.
        cpu_time: whether ``seconds`` are CPU seconds of the searching thread (else
            wall-clock seconds).
        c_puct: the exploration constant of ``Q + c_puct * P * sqrt(N) / (1 + n)``
            (values are win shares in [0, 1]).
        batch_size: leaves evaluated per network call (virtual loss spreads them).
        sampled_plies: in the game's first this many plies the move is drawn in
            proportion to the root's visits (the agent's seed), not the most visited: a
            search on a simulation budget is deterministic, so two networks' matches
            (a training run's gates) would otherwise replay one game.
        leaf_mix: how much of a leaf's value is the game's own leaf value, the one the
            rollout MCTS (``native``) uses, the rest the network's (0: the network alone;
            AlphaGo mixed its value network with rollouts half and half).
        leaf_rollout: the most random actions of that leaf value's playout before the
            game's evaluation values it (``None``: the game's choice,
            :func:`default_leaf_rollout`).
        leaf_horizon: 0, or: where a random walk of this many actions from the position
            ends the game, those playouts go to the end (the ``horizon`` of the native
            levels: Terra Nova's Strong and Master play the end game out so).
    """

    simulations: int | None = DEFAULT_SIMULATIONS
    seconds: float | None = None
    cpu_time: bool = False
    c_puct: float = 1.5
    batch_size: int = 8
    sampled_plies: int = 0
    leaf_mix: float = 0.0
    leaf_rollout: int | None = None
    leaf_horizon: int = 0

    def __post_init__(self) -> None:
        if self.simulations is None and self.seconds is None:
            raise ConfigError("the network search needs simulations or seconds a move")
        if self.simulations is not None and self.simulations < 1:
            raise ConfigError(f"at least 1 simulation a move, got {self.simulations}")
        if self.seconds is not None and not 0 < self.seconds < math.inf:
            raise ConfigError(f"the seconds a move must be positive and finite, got {self.seconds}")
        if not 0 <= self.c_puct < math.inf:
            raise ConfigError(f"c_puct must be finite and not negative, got {self.c_puct}")
        if not 1 <= self.batch_size <= 256:
            raise ConfigError(f"the batch size must be from 1 to 256, got {self.batch_size}")
        if not 0 <= self.sampled_plies <= 10_000:
            raise ConfigError(f"the sampled plies must be from 0 to 10000, got {self.sampled_plies}")
        if not 0 <= self.leaf_mix <= 1:
            raise ConfigError(f"the leaf mix must be from 0 to 1, got {self.leaf_mix}")
        if self.leaf_rollout is not None and not 0 <= self.leaf_rollout <= 100_000:
            raise ConfigError(f"the leaf rollout must be from 0 to 100000 actions, got {self.leaf_rollout}")
        if not 0 <= self.leaf_horizon <= 100_000:
            raise ConfigError(f"the leaf horizon must be from 0 to 100000 actions, got {self.leaf_horizon}")


def default_leaf_rollout(game_id: str) -> int | None:
    """The playout length of a mixed leaf value, as the game's native levels play it:
    none in Terra Nova (its evaluation values the leaf: random playouts there are long
    and say little), to the end in Medina (``None``)."""
    return 0 if game_id in LEAF_EVALUATION_GAMES else None


_NETWORKS: dict[tuple[str, int, int], Any] = {}
_NETWORKS_LOCK = threading.Lock()


def load_network(path: str | os.PathLike[str]) -> Any:
    """The network of the ``.npz`` file ``path`` as a ``tabletop._native.Network``, read
    once per file (and modification) and shared.  The file is read and checked by the
    readable definition (``tabletop.core.network.PolicyValueNetwork.load``: sizes, shapes,
    finite values, no pickle, no zip bomb) and its arrays handed to Rust, with a cells
    network's geometry (:func:`cell_geometry_arrays`).

    Raises:
        ConfigError: if the extension or NumPy is missing, the file cannot be read, or it
            is not a network of this format (the message says what is wrong).
    """
    module = native_module()
    if module is None or not hasattr(module, "Network"):
        raise ConfigError("the network search needs the extension tabletop._native (`make native`)")
    resolved = Path(path).resolve()
    try:
        stat = resolved.stat()
    except OSError as exc:
        raise ConfigError(f"cannot read the network {str(path)!r}: {exc.strerror}") from None
    key = (str(resolved), stat.st_mtime_ns, stat.st_size)
    with _NETWORKS_LOCK:
        if key in _NETWORKS:
            return _NETWORKS[key]
    readable = read_network(resolved)
    geometry = cell_geometry_arrays(readable.meta) if readable.meta.architecture == "cells" else None
    try:
        network = module.Network.from_arrays(
            json.dumps(readable.meta.to_json()), dict(readable.params), geometry=geometry
        )
    except ValueError as exc:  # a network the Rust side refuses (its own limits)
        raise ConfigError(f"the network {str(path)!r} cannot be used: {exc}") from None
    with _NETWORKS_LOCK:
        _NETWORKS[key] = network
    return network


def cell_geometry_arrays(meta: NetworkMeta) -> dict[str, Any]:
    """What ``tabletop._native.Network.from_arrays`` takes as a cells network's
    ``geometry``: the index arrays of :meth:`CellInputs.index_arrays` and the sizes of its
    game's :class:`CellInputs` (the geometry is not in the file: the game says it).

    Raises:
        ConfigError: if the network's game has no cell geometry.
        NetworkFileError: if the meta's sizes are not its game's.
    """
    from tabletop.core.network import cell_inputs_of

    inputs = cell_inputs_of(meta)
    return {
        **inputs.index_arrays(),
        "num_planes": inputs.num_planes,
        "plane_size": inputs.plane_size,
        "vector_size": inputs.vector_size,
        "num_heads": inputs.geometry.num_heads,
        "num_classes": inputs.geometry.num_classes,
    }


def find_network(name: str) -> Path:
    """The file of the network ``name`` (``name`` or ``name.npz``) in the first directory
    of :data:`NETWORKS_VARIABLE` that has it, else in :data:`PACKAGED_NETWORKS`.

    Raises:
        ConfigError: for a name that is not a plain file name, or one no directory has.
    """
    if not _NAME.fullmatch(name) or ".." in name:
        raise ConfigError(f"a network is named by its file name (letters, digits, '_', '.', '-'), not {name!r}")
    directories = [d for d in os.environ.get(NETWORKS_VARIABLE, "").split(os.pathsep) if d]
    directories.append(str(PACKAGED_NETWORKS))
    for directory in directories:
        for candidate in (Path(directory) / name, Path(directory) / f"{name}.npz"):
            if candidate.is_file():
                return candidate
    raise ConfigError(f"no network {name!r} in {NETWORKS_VARIABLE} ({os.pathsep.join(directories)})")


def parse_spec(arg: str | None) -> tuple[str, PuctConfig, str]:
    """The network name, settings and display name of the part of a ``puct`` spec after
    ``:`` (``NAME[,key=value...][@T(s|cpu)]``).

    Raises:
        ConfigError: for a missing name or a bad setting or time.
    """
    head, at, time_text = (arg or "").partition("@")
    network, *settings = head.split(",")
    if not network:
        raise ConfigError(f"the network search needs a network: '{KIND}:NAME' (e.g. '{KIND}:medina-3p')")
    config = PuctConfig()
    changes: dict[str, Any] = {}
    for item in settings:
        key, eq, value = item.partition("=")
        if key not in _SETTINGS or not eq:
            raise ConfigError(f"bad {KIND} setting {item!r} (known: {', '.join(f'{k}=' for k in _SETTINGS)})")
        try:
            number = float(value)
        except ValueError:
            raise ConfigError(f"bad number in {KIND} setting {item!r}") from None
        if key in _WHOLE_SETTINGS:
            if not number.is_integer():
                raise ConfigError(f"{KIND} setting {item!r}: a whole number")
            changes[_SETTINGS[key]] = int(number)
        else:
            changes[_SETTINGS[key]] = number
    config = replace(config, **changes)
    name = f"{KIND}:{network}" + "".join(f",{s}" for s in settings)
    if not at:
        return network, config, name
    seconds, cpu_time = time_per_move(time_text, f"'{KIND}:medina-3p@0.5cpu' or '@0.5s'")
    timed = replace(config, seconds=seconds, cpu_time=cpu_time, simulations=changes.get("simulations"))
    return network, timed, f"{name}@{time_text}"


def puct_search(state: State, network: Any, **options: Any) -> dict[str, Any]:
    """``tabletop._native.puct_search`` from any state of a game with a native engine (a
    Python engine's state is loaded into the native engine first): a dict with
    ``action``, ``visits``, ``value`` (absolute seats), ``simulations``, ``evaluations``,
    ``nodes``, ``tree_bytes``; ``options`` as there (``simulations``, ``c_puct``, ``seed``,
    ``dirichlet_alpha``, ``dirichlet_fraction``, ``cpu_seconds``, ``wall_seconds``,
    ``batch_size``, ``stop``).

    Raises:
        ConfigError: where the extension is not built or the game has no native engine.
        ValueError: for a network of another game or size, or a bad option.
    """
    module = native_module()
    if module is None or not hasattr(module, "puct_search"):
        raise ConfigError(f"the network search ({KIND}) needs the extension tabletop._native (`make native`)")
    found: dict[str, Any] = module.puct_search(to_native(state), network, **options)
    return found


@dataclass(frozen=True, slots=True)
class PuctStats:
    """What the last search did."""

    simulations: int
    evaluations: int
    nodes: int
    value: tuple[float, ...]
    wall_seconds: float


class PuctAgent:
    """PUCT with a policy and value network, run wholly in Rust, as an anytime agent.

    ``choose_move(state, deadline)`` answers by ``deadline`` (a :func:`time.monotonic`
    instant) at the latest; :meth:`stop`, from another thread, makes a running search
    answer within one batch of leaves.  With a simulation budget and a seed the moves
    are the same on every run.

    Attributes:
        network: the ``tabletop._native.Network`` it searches with.
        config: the search settings.
        last_stats: what the last search did (``None`` before the first).
    """

    def __init__(
        self,
        network: Any,
        config: PuctConfig = PuctConfig(),
        *,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        module = native_module()
        if module is None or not hasattr(module, "puct_search"):
            raise ConfigError(f"the network search ({KIND}) needs the extension tabletop._native (`make native`)")
        self.network = load_network(network) if isinstance(network, str | os.PathLike) else network
        self.config = config
        self._name = name or f"{KIND}:{self.network.game}-{self.network.num_players}p"
        self._rng = random.Random(seed)
        self._search = module.puct_search
        self._stop = module.SearchStop()
        self.last_stats: PuctStats | None = None

    @property
    def name(self) -> str:
        return self._name

    def choose_move(self, state: State, deadline: float | None = None) -> Move:
        """The most visited move of a search from ``state``.

        Raises:
            ValueError: if the game is over, or ``state`` is not a valid position.
            ConfigError: if the game has no native engine, or the network is not for
                this game, player count and ruleset.
        """
        network = self.network
        config = state.config
        if (network.game, network.num_players, network.ruleset) != (state.game.id, config.num_players, config.ruleset):
            raise ConfigError(
                f"the network is for {network.game} {network.num_players}p ruleset {network.ruleset!r}, "
                f"not {state.game.id} {config.num_players}p ruleset {config.ruleset!r}"
            )
        native = to_native(state)
        options: dict[str, Any] = {
            "seed": self._rng.getrandbits(64),
            "c_puct": self.config.c_puct,
            "batch_size": self.config.batch_size,
        }
        if self.config.leaf_mix > 0:
            rollout = self.config.leaf_rollout
            options["leaf_mix"] = self.config.leaf_mix
            options["leaf_rollout"] = default_leaf_rollout(state.game.id) if rollout is None else rollout
            options["leaf_horizon"] = self.config.leaf_horizon
        if self.config.simulations is not None:
            options["simulations"] = self.config.simulations
        wall: float | None = None
        if self.config.seconds is not None:
            if self.config.cpu_time:
                options["cpu_seconds"] = self.config.seconds
            else:
                wall = self.config.seconds
        if deadline is not None:
            left = max(0.0, deadline - time.monotonic())
            wall = left if wall is None else min(wall, left)
        if wall is not None:
            options["wall_seconds"] = wall
        start = time.monotonic()
        try:
            found = self._search(native, network, stop=self._stop, **options)
        finally:
            # Cleared after the search, not before: a stop() that came in while the
            # thread was starting must still stop this search.
            self._stop.clear()
        self.last_stats = PuctStats(
            found["simulations"], found["evaluations"], found["nodes"], tuple(found["value"]), time.monotonic() - start
        )
        action = found["action"]
        if action is None:
            raise ValueError("the game is over")
        if state.ply < self.config.sampled_plies:
            visited = [(a, n) for a, n in found["visits"] if n]
            action = self._rng.choices([a for a, _ in visited], weights=[n for _, n in visited])[0]
        move: Move = native.move_of_action(action)
        return move

    def stop(self) -> None:
        """Makes a running :meth:`choose_move` return its best move within one batch."""
        self._stop.set()


def make_puct_agent(arg: str | None, seed: int | None) -> PuctAgent:
    """The ``puct`` agent of a spec."""
    network, config, name = parse_spec(arg)
    return PuctAgent(find_network(network), config, seed=seed, name=name)


GUIDED_KIND: Final = "guided"
"""The rollout search of the native levels with its root's moves ranked by a network's
policy: ``guided:NAME,LEVEL[,settings][@T]`` (``LEVEL`` and what follows: a ``native``
spec, e.g. ``guided:cells-fit,5,horizon=160@0.5cpu``, Terra Nova's Master with the
network's order of the root's moves instead of their one-ply evaluation)."""


def policy_order(network: Any) -> Callable[[Any], list[int] | None]:
    """The action ids of a native position by the network's policy, best first (one
    network call a move); ``None`` for a position of another game, seat count or
    ruleset than the network's (the search then ranks as its level does)."""

    def order(native: Any) -> list[int] | None:
        config = native.config
        if (network.game, network.num_players, network.ruleset) != (native.game.id, config.num_players, config.ruleset):
            return None
        priors, _ = network.evaluate(native.native)
        return [action for action, _ in sorted(priors, key=lambda pair: -pair[1])]

    return order


def make_guided_agent(arg: str | None, seed: int | None) -> Any:
    """The ``guided`` agent of a spec (:data:`GUIDED_KIND`).

    Raises:
        ConfigError: without a network name or a level, or for a bad setting or file.
    """
    from tabletop.native.mcts import GAME_LEVELS, NativeMctsAgent, level_config

    name, comma, level = (arg or "").partition(",")
    if not name or not comma or not level:
        raise ConfigError(f"the guided search needs a network and a level: '{GUIDED_KIND}:NAME,5@0.5cpu'")
    network = load_network(find_network(name))
    config, shown = level_config(level)
    per_game = {game_id: level_config(level, game_id)[0] for game_id in GAME_LEVELS}
    return NativeMctsAgent(
        config,
        seed=seed,
        name=f"{GUIDED_KIND}:{name},{shown.removeprefix('native:')}",
        game_configs=per_game,
        root_order=policy_order(network),
    )


def agent_factories() -> Mapping[str, Callable[[str | None, int | None], Any]]:
    """The agent kinds this module adds (``ai.agent``'s registry): ``puct`` and
    ``guided`` where the extension with the network search is built, nothing otherwise."""
    module = native_module()
    if module is None or not hasattr(module, "puct_search"):
        return {}
    return {KIND: make_puct_agent, GUIDED_KIND: make_guided_agent}
