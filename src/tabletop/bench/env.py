"""Adapter benchmark: steps per second through each research environment against the raw
engine (``tabletop bench env GAME``).

Every run plays uniformly random legal actions (the way a masked policy's random start
plays, and the way PettingZoo's and OpenSpiel's own random tests play) from fresh games
for about ``seconds`` each, one step = one action applied:

* ``engine``: ``state.legal_moves()``, a uniform choice, ``state.apply`` (no encoding);
* ``encoding``: the game's encoding without a library: legal actions, a choice, ``decode``,
  ``apply``, and the acting seat's observation (planes, vector, mask);
* ``pettingzoo``: ``env.last()`` (the observation dict with its mask) and ``env.step``;
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

Needs the ``rl`` extra for the last three (they are left out without it).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tabletop.core.encoding import encoding_of
from tabletop.core.protocol import Game, GameConfig

ADAPTERS = ("engine", "encoding", "pettingzoo", "gymnasium", "openspiel", "native-steps", "native-batch")
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

    @property
    def steps_per_second(self) -> float:
        """Actions applied per second."""
        return self.steps / self.seconds


def _timed(run_game: Callable[[int], int], seconds: float, min_games: int) -> tuple[int, int, float]:
    steps = games = 0
    start = time.perf_counter()
    elapsed = 0.0
    while games < min_games or elapsed < seconds:
        steps += run_game(games)
        games += 1
        elapsed = time.perf_counter() - start
    return steps, games, elapsed


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
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
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
            legal = np.flatnonzero(obs["action_mask"])
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


_RUNNERS = {
    "engine": _engine,
    "encoding": _encoding,
    "pettingzoo": _pettingzoo,
    "gymnasium": _gymnasium,
    "openspiel": _openspiel,
    "native-steps": _native_steps,
    "native-batch": _native_batch,
}


def bench_env(
    game: Game, num_players: int, adapter: str, *, seconds: float = 5.0, min_games: int = 1, seed: int = 0
) -> EnvBench:
    """Uniformly random games through one adapter (:data:`ADAPTERS`) for about ``seconds``.

    Raises:
        ImportError: for an adapter whose library (the rl extra) is not installed.
        KeyError: for an unknown adapter.
    """
    run = _RUNNERS[adapter](game, num_players, seed)
    steps, games, elapsed = _timed(run, seconds, min_games)
    return EnvBench(adapter, num_players, steps, games, elapsed)
