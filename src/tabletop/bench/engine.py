"""Random-playout benchmark: complete kind-first random games through the protocol.

``tabletop bench GAME`` calls :func:`bench_playouts` for each of the game's bench player
counts.  It measures the engine as every game-agnostic layer sees it: each step asks the
state for its legal kinds, then for the moves of one kind, then applies one.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field

from tabletop.ai.agent import random_move
from tabletop.core.protocol import Game, GameConfig


@dataclass(frozen=True, slots=True)
class PlayoutBench:
    """What one benchmark run measured."""

    game: str
    num_players: int
    games: int
    actions: int
    seconds: float
    terminations: Counter[str] = field(default_factory=Counter)

    @property
    def games_per_second(self) -> float:
        """Complete games per second."""
        return self.games / self.seconds

    @property
    def actions_per_second(self) -> float:
        """Actions (moves applied) per second."""
        return self.actions / self.seconds

    @property
    def mean_actions(self) -> float:
        """Mean number of actions per game."""
        return self.actions / self.games


def bench_playouts(
    game: Game,
    num_players: int,
    *,
    seconds: float = 5.0,
    min_games: int = 3,
    seed: int = 0,
    ruleset: str = "default",
) -> PlayoutBench:
    """Plays complete kind-first random games for about ``seconds`` (at least ``min_games``).

    Each game gets its own config seed (``seed + i``), so runs are reproducible in
    everything but time.

    Args:
        game: the game to measure.
        num_players: seats per game.
        seconds: how long to keep starting new games.
        min_games: games to play even if that takes longer.
        seed: first config and move-choice seed.
        ruleset: the preset to play.

    Returns:
        The totals of the run.
    """
    rng = random.Random(seed)
    games = actions = 0
    terminations: Counter[str] = Counter()
    start = time.perf_counter()
    elapsed = 0.0
    while games < min_games or elapsed < seconds:
        state = game.new_initial_state(GameConfig(num_players=num_players, ruleset=ruleset, seed=seed + games))
        while not state.is_terminal():
            state = state.apply(random_move(state, rng))
            actions += 1
        outcome = state.outcome()
        terminations[outcome.termination if outcome is not None else "unknown"] += 1
        games += 1
        elapsed = time.perf_counter() - start
    return PlayoutBench(game.id, num_players, games, actions, elapsed, terminations)
