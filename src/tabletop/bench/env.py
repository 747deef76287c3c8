"""Adapter benchmark: steps per second through each research environment against the raw
engine (``tabletop bench env GAME``).

Every run plays uniformly random legal actions (the way a masked policy's random start
plays, and the way PettingZoo's and OpenSpiel's own random tests play) from fresh games
for about ``seconds`` each, one step = one action applied:

* ``engine``: ``state.legal_moves()``, a uniform choice, ``state.apply`` (no encoding);
* ``encoding``: the game's encoding without a library: legal actions, a choice, ``decode``,
  ``apply``, and the acting seat's observation (planes, vector, mask);
* ``pettingzoo``: ``env.last()`` (the observation dict with its mask) and ``env.step``;
  the action is drawn from ``np.flatnonzero(mask.view(np.bool_))`` (NumPy finds the
  nonzero bytes of a bool array some 8× faster than of the int8 mask itself: 2.5 µs
  against 21 µs for Terra Nova's 14,449 actions, more than the environment's step);
* ``pettingzoo-parallel``: the parallel env's ``step`` with the acting agent's action
  (drawn as above from its mask), which returns every agent's observation;
* ``gymnasium``: ``env.step`` for the learner against ``random`` bots; its bots' actions
  count as steps too (``info["plies"]``), since they are applied in the step;
* ``openspiel``: ``state.legal_actions()``, ``state.apply_action``, and
  ``state.observation_tensor()`` of the acting player (one game config, ``seed``: the
  games differ by their random actions);
* ``native-steps`` and ``native-batch``: :data:`BATCH` games on the native engine
  stepped side by side, each step giving what a vectorised loop reads back (the next
  state, whether it is over, its returns, its action mask), on the Rust states: game by
  game (``apply``, ``legal_mask``, ``returns``, ``is_terminal``), or all games in one
  call (``step_batch``, what ``tabletop.native.step_batch`` wraps).  Observations are
  left out of both: they are the encoding's, in Python, either way.

* ``vector-N`` and ``vector-N-t2``: the vector env (``tabletop.envs.vector``) with ``N``
  self-play games (N = 1, 64, 1024) on one thread or two: each step is
  ``sample_actions()`` (a uniformly random legal action per game, in Rust) and
  ``step(actions)``, which writes every game's observation (from the seat to act), mask,
  rewards and flags into its arrays; every game's action counts as a step;
* yardsticks timed in the same run: ``amazons-obs`` (OpenSpiel's C++ Amazons from a
  Python loop with ``observation_tensor()`` of the player to act each step, as the
  ``openspiel`` row does for our games) and ``pgx-64``/``pgx-1024`` (Pgx's Othello on
  JAX's CPU backend, batch 64 and 1,024, uniformly random legal actions; run in a
  separate Python with ``pgx`` and ``jax`` given by ``pgx_python``, left out without
  one).

``openspiel`` is read against ``amazons-obs`` (CPU time) and each ``vector-N-t2`` against
``vector-N`` (wall time) where both ran (:data:`READ_AGAINST`, the "read against" column).

Needs the ``rl`` extra for the library adapters and yardsticks, and the native extension
for the vector rows (they are left out without them).  Every row reports steps per
second of wall time and of the process's CPU time (the machine is shared: CPU time is
the figure to compare; with two threads the CPU time counts both, so the wall column is
the one that shows the second thread).
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from tabletop.core.encoding import encoding_of
from tabletop.core.protocol import Game, GameConfig

VECTOR_ADAPTERS = ("vector-1", "vector-64", "vector-1024", "vector-1-t2", "vector-64-t2", "vector-1024-t2")
YARDSTICKS = ("amazons-obs", "pgx-64", "pgx-1024")
ADAPTERS = (
    "engine",
    "encoding",
    "pettingzoo",
    "pettingzoo-parallel",
    "gymnasium",
    "openspiel",
    "native-steps",
    "native-batch",
    *VECTOR_ADAPTERS,
    *YARDSTICKS,
)
BATCH = 64
"""Games stepped side by side by the ``native-*`` adapters."""


@dataclass(frozen=True, slots=True)
class EnvBench:
    """One adapter's run."""

    adapter: str
    num_players: int
    steps: int
    games: int
    seconds: float
    cpu_seconds: float = 0.0

    @property
    def steps_per_second(self) -> float:
        """Actions applied per second of wall time."""
        return self.steps / self.seconds

    @property
    def steps_per_cpu_second(self) -> float:
        """Actions applied per second of the process's CPU time (all its threads)."""
        return self.steps / self.cpu_seconds if self.cpu_seconds > 0 else 0.0


READ_AGAINST: Final = {
    "openspiel": ("amazons-obs", "cpu"),
    **{f"vector-{n}-t2": (f"vector-{n}", "wall") for n in (1, 64, 1024)},
}
"""The row a row is read against when both ran, and on which clock: the OpenSpiel adapter
against OpenSpiel's own C++ Amazons with observations (both on one thread: CPU time), two
threads of the vector env against one (wall time: the CPU time counts both threads)."""


def read_against(adapter: str, results: Mapping[str, EnvBench]) -> tuple[float, str, str] | None:
    """``adapter``'s speed over its :data:`READ_AGAINST` row's in ``results`` (the same
    run), with that row's name and the clock; ``None`` where either did not run."""
    if adapter not in READ_AGAINST or adapter not in results or READ_AGAINST[adapter][0] not in results:
        return None
    other, clock = READ_AGAINST[adapter]
    mine, theirs = results[adapter], results[other]
    if clock == "cpu":
        return mine.steps_per_cpu_second / theirs.steps_per_cpu_second, other, clock
    return mine.steps_per_second / theirs.steps_per_second, other, clock


def _timed(run_game: Callable[[int], int], seconds: float, min_games: int) -> tuple[int, int, float, float]:
    steps = games = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    elapsed = 0.0
    while games < min_games or elapsed < seconds:
        steps += run_game(games)
        games += 1
        elapsed = time.perf_counter() - start
    return steps, games, elapsed, time.process_time() - cpu_start


def _engine(game: Game, players: int, seed: int) -> Callable[[int], int]:
    rng = random.Random(seed)

    def run(i: int) -> int:
        state = game.new_initial_state(GameConfig(num_players=players, seed=seed + i))
        steps = 0
        while not state.is_terminal():
            state = state.apply(rng.choice(state.legal_moves()))
            steps += 1
        return steps

    return run


def _encoding(game: Game, players: int, seed: int) -> Callable[[int], int]:
    rng = random.Random(seed)
    enc = encoding_of(game, GameConfig(num_players=players))

    def run(i: int) -> int:
        state = game.new_initial_state(GameConfig(num_players=players, seed=seed + i))
        steps = 0
        while not state.is_terminal():
            enc.observe(state, state.current_player)
            enc.action_mask(state)
            state = state.apply(enc.decode(rng.choice(enc.legal_actions(state))))
            steps += 1
        return steps

    return run


def _pettingzoo(game: Game, players: int, seed: int) -> Callable[[int], int]:
    import numpy as np

    from tabletop.envs import aec_env

    env = aec_env(game.id, num_players=players)
    rng = np.random.default_rng(seed)

    def run(i: int) -> int:
        env.reset(seed=seed + i)
        steps = 0
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"].view(np.bool_))
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        return steps

    return run


def _pettingzoo_parallel(game: Game, players: int, seed: int) -> Callable[[int], int]:
    import numpy as np

    from tabletop.envs import parallel_env

    env = parallel_env(game.id, num_players=players)
    rng = np.random.default_rng(seed)

    def run(i: int) -> int:
        observations, _ = env.reset(seed=seed + i)
        steps = 0
        while env.agents:
            acting = env.agent_to_act
            assert acting is not None  # agents remain: the game is not over
            legal = np.flatnonzero(observations[acting]["action_mask"].view(np.bool_))
            observations, _, _, _, _ = env.step({acting: int(legal[rng.integers(len(legal))])})
            steps += 1
        return steps

    return run


def _gymnasium(game: Game, players: int, seed: int) -> Callable[[int], int]:
    import numpy as np

    from tabletop.envs import gym_env

    env = gym_env(game.id, opponents=("random",), num_players=players)
    rng = np.random.default_rng(seed)

    def run(i: int) -> int:
        obs, info = env.reset(seed=seed + i)
        steps = int(info["plies"])
        terminated = False
        while not terminated:
            legal = np.flatnonzero(obs["action_mask"].view(np.bool_))
            obs, _, terminated, _, info = env.step(int(legal[rng.integers(len(legal))]))
            steps += int(info["plies"])
        return steps

    return run


def _openspiel(game: Game, players: int, seed: int) -> Callable[[int], int]:
    import pyspiel

    from tabletop.envs import register_openspiel

    register_openspiel()
    rng = random.Random(seed)
    spiel: Any = pyspiel.load_game(f"python_tabletop_{game.id}", {"players": players, "seed": seed})

    def run(i: int) -> int:
        state = spiel.new_initial_state()
        steps = 0
        while not state.is_terminal():
            state.observation_tensor(state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
        return steps

    return run


def _native_batch_runner(game: Game, players: int, seed: int, *, batched: bool) -> Callable[[int], int]:
    from tabletop.core.errors import ConfigError
    from tabletop.core.registry import make

    try:
        native = make(game.id, engine="native")
    except ConfigError as exc:  # not built: left out, as a missing library is
        raise ImportError(str(exc)) from None
    rng = random.Random(seed)

    def run(i: int) -> int:
        # The Rust states themselves (``state.native``): both ways pay the same Python
        # loop around them, and differ only in one call per game or one per batch.
        configs = [GameConfig(num_players=players, seed=seed + i * BATCH + k) for k in range(BATCH)]
        live: list[Any] = [native.new_initial_state(c).native for c in configs]  # type: ignore[attr-defined]
        step_batch = type(live[0]).step_batch
        steps = 0
        while live:
            actions = [rng.choice(core.legal_actions()) for core in live]
            if batched:
                states, over, _, _ = step_batch(live, actions)
            else:
                states = [core.apply(a) for core, a in zip(live, actions, strict=True)]
                over = [(s.legal_mask(), s.returns(), s.is_terminal())[2] for s in states]
            steps += len(live)
            live = [s for s, done in zip(states, over, strict=True) if not done]
        return steps

    return run


def _native_steps(game: Game, players: int, seed: int) -> Callable[[int], int]:
    return _native_batch_runner(game, players, seed, batched=False)


def _native_batch(game: Game, players: int, seed: int) -> Callable[[int], int]:
    return _native_batch_runner(game, players, seed, batched=True)


def bench_env(
    game: Game,
    num_players: int,
    adapter: str,
    *,
    seconds: float = 5.0,
    min_games: int = 1,
    seed: int = 0,
    pgx_python: str | None = None,
) -> EnvBench:
    """Uniformly random games through one adapter (:data:`ADAPTERS`) for about ``seconds``.

    Raises:
        ImportError: for an adapter whose library (the rl extra) is not installed.
        KeyError: for an unknown adapter.
    """
    if adapter in VECTOR_ADAPTERS:
        return _vector(game, num_players, adapter, seconds, seed)
    if adapter.startswith("pgx-"):
        return _pgx(adapter, seconds, seed, pgx_python)
    run = _RUNNERS[adapter](game, num_players, seed)
    steps, games, elapsed, cpu = _timed(run, seconds, min_games)
    return EnvBench(adapter, num_players, steps, games, elapsed, cpu)


def _vector(game: Game, players: int, adapter: str, seconds: float, seed: int) -> EnvBench:
    """The vector env of ``adapter`` (``vector-N`` or ``vector-N-t2``) for about ``seconds``."""
    import numpy as np

    from tabletop.core.errors import TabletopError
    from tabletop.envs.vector import VectorGames

    parts = adapter.split("-")
    num_envs, threads = int(parts[1]), (2 if len(parts) == 3 else 1)
    try:
        games = VectorGames(game.id, num_envs, num_players=players, threads=threads)
    except TabletopError as exc:  # not built (NativeEngineError): left out, as a missing library is
        raise ImportError(str(exc)) from None
    games.reset(seed)
    batches = max(1, 4096 // num_envs)  # calls between clock readings
    steps = ended = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    elapsed = 0.0
    while elapsed < seconds:
        for _ in range(batches):
            games.step(games.sample_actions())
            ended += int(np.count_nonzero(games.terminated))
        steps += batches * num_envs
        elapsed = time.perf_counter() - start
    return EnvBench(adapter, players, steps, ended, elapsed, time.process_time() - cpu_start)


def _amazons_obs(game: Game, players: int, seed: int) -> Callable[[int], int]:
    """OpenSpiel's C++ Amazons through Python with an observation each step (the yardstick
    of the ``openspiel`` row)."""
    from tabletop.bench.engine import openspiel

    pyspiel = openspiel()
    if pyspiel is None:
        raise ImportError("OpenSpiel is not installed (the rl extra)")
    amazons = pyspiel.load_game("amazons")
    rng = random.Random(seed)

    def run(i: int) -> int:
        state = amazons.new_initial_state()
        steps = 0
        while not state.is_terminal():
            state.observation_tensor(state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
        return steps

    return run


PGX_SCRIPT: Final = """
import json, sys, time
import jax, jax.numpy as jnp, pgx
batch, seconds, seed = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
env = pgx.make("othello")
init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
def choose(key, mask):
    return jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf))
choose = jax.jit(jax.vmap(choose))
key = jax.random.PRNGKey(seed)
key, sub = jax.random.split(key)
state = init(jax.random.split(sub, batch))
def one(state, key):
    k1, k2, k3 = jax.random.split(key, 3)
    action = choose(jax.random.split(k1, batch), state.legal_action_mask)
    state = step(state, action, jax.random.split(k2, batch))
    fresh = init(jax.random.split(k3, batch))
    done = state.terminated | state.truncated
    return jax.tree_util.tree_map(lambda a, b: jnp.where(done.reshape((-1,) + (1,) * (a.ndim - 1)), b, a), state, fresh)
one = jax.jit(one)
key, sub = jax.random.split(key)
state = one(state, sub); jax.block_until_ready(state)  # compiled before timing
steps = 0; start = time.perf_counter(); cpu = time.process_time()
while time.perf_counter() - start < seconds:
    for _ in range(16):
        key, sub = jax.random.split(key)
        state = one(state, sub)
    jax.block_until_ready(state)
    steps += 16 * batch
print(json.dumps({"steps": steps, "seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu}))
"""
"""Pgx's Othello, batched on JAX's CPU backend with an auto-reset, uniformly random legal
actions; run by the Python given as ``pgx_python`` (a venv with ``pgx`` and ``jax``)."""


def _pgx(adapter: str, seconds: float, seed: int, pgx_python: str | None) -> EnvBench:
    import json
    import subprocess

    if not pgx_python:
        raise ImportError("no Python with pgx and jax given (--pgx-python /tmp/pgx-venv/bin/python)")
    batch = int(adapter.split("-")[1])
    # One core, as every other row: JAX on the CPU backend, without its intra-op threads.
    env = {"JAX_PLATFORMS": "cpu", "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"}
    try:
        done = subprocess.run(
            [pgx_python, "-c", PGX_SCRIPT, str(batch), str(seconds), str(seed)],
            capture_output=True,
            text=True,
            timeout=600 + 10 * seconds,
            env={**os.environ, **env},
            check=True,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise ImportError(f"the Pgx run failed: {exc}") from None
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return EnvBench(adapter, 2, int(result["steps"]), 0, float(result["seconds"]), float(result["cpu"]))


_RUNNERS = {
    "engine": _engine,
    "encoding": _encoding,
    "pettingzoo": _pettingzoo,
    "pettingzoo-parallel": _pettingzoo_parallel,
    "gymnasium": _gymnasium,
    "openspiel": _openspiel,
    "native-steps": _native_steps,
    "native-batch": _native_batch,
    "amazons-obs": _amazons_obs,
}
