"""MCTS speed: simulations per second from a fixed mid-game position, on one core.

The position is reproducible from the seed: a kind-first random game is played to its
end once, and the position after 40 % of its actions is searched.  Two searches are
timed there: with the settings of an MCTS level (``mcts:3`` by default) and with plain
random rollouts to the end of the game (OpenSpiel's ``RandomRolloutEvaluator``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from tabletop.ai.agent import random_move
from tabletop.ai.evaluators import RandomRollout
from tabletop.ai.levels import LEVELS
from tabletop.ai.mcts import MCTS, MCTSConfig
from tabletop.core.protocol import Game, GameConfig, State


@dataclass(frozen=True, slots=True)
class MCTSBench:
    """One timed search.

    Attributes:
        label: which settings were timed.
        simulations: simulations run.
        seconds: wall-clock seconds of the search.
        ply: the ply of the searched position.
    """

    label: str
    simulations: int
    seconds: float
    ply: int

    @property
    def per_second(self) -> float:
        """Simulations per second."""
        return self.simulations / self.seconds


def bench_position(game: Game, num_players: int, *, seed: int = 0, fraction: float = 0.4) -> State:
    """The fixed position: ``fraction`` of the way through a seeded kind-first random game."""
    config = game.canonical_config(GameConfig(num_players=num_players, seed=seed))
    rng = random.Random(seed)
    state = game.new_initial_state(config)
    moves = []
    while not state.is_terminal():
        move = random_move(state, rng)
        moves.append(move)
        state = state.apply(move)
    state = game.new_initial_state(config)
    for move in moves[: int(len(moves) * fraction)]:
        state = state.apply(move)
    return state


def time_search(state: State, config: MCTSConfig, label: str, *, seconds: float, seed: int = 0) -> MCTSBench:
    """Runs one search of about ``seconds`` from ``state`` (no tree reuse) and times it."""
    search = MCTS(replace(config, simulations=None, time_limit=seconds, reuse_tree=False), seed=seed)
    search.search(state)
    stats = search.last_stats
    assert stats is not None
    return MCTSBench(label, stats.simulations, stats.seconds, state.ply)


def bench_mcts(
    game: Game, num_players: int, *, level: int = 3, seconds: float = 5.0, seed: int = 0
) -> tuple[MCTSBench, MCTSBench]:
    """Times the level's search and a plain random-rollout search from the fixed position.

    Returns:
        ``(level settings, random rollouts to the end)``.
    """
    state = bench_position(game, num_players, seed=seed)
    tuned = time_search(state, LEVELS[level], f"mcts:{level} settings", seconds=seconds, seed=seed)
    plain = replace(LEVELS[level], evaluator=RandomRollout(), widening=None)
    rollouts = time_search(state, plain, "random rollouts to the end", seconds=seconds, seed=seed)
    return tuned, rollouts
