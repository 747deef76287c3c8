"""Named MCTS strength levels: ``mcts:1`` (weakest) to ``mcts:5`` (strongest).

A level fixes a simulation budget and the search settings, so a level plays the same
moves on every machine for a given seed.  ``mcts:3@1s`` keeps level 3's settings but
searches for one second per move instead of a fixed number of simulations (stronger
on a fast machine, no longer reproducible).  ``mcts`` alone means level 3.
The Elo each level measured is in ``docs/bots.md``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from tabletop.ai.agent import register_agent
from tabletop.ai.clock import parse_seconds
from tabletop.ai.evaluators import AdaptiveRollout, ScoreValue, heuristic_margin
from tabletop.ai.mcts import MCTSAgent, MCTSConfig
from tabletop.core.errors import ConfigError

DEFAULT_LEVEL: Final = 3

_VALUE = ScoreValue(scale=1.5, relative=0.1)


ROOT_ONLY: Final = 2**62
"""``rank_after`` that ranks the root's moves and no other node's."""


def _level(simulations: int, *, margin_weight: float = 0.1) -> MCTSConfig:
    # Where the leaves are valued by the game's evaluation (Terra Nova's long middle
    # game), the root's moves are expanded best first by that evaluation (greedy's
    # one-ply value) instead of at random: with progressive widening a root of 200
    # moves grows only about 15-50 children, and which ones matters.  In Terra Nova
    # at 0.1 s a move this beat random expansion by SPRT (+151 Elo); in Medina, whose
    # leaves are random rollouts from the first move, it lost (-169), so it is off
    # there (docs/bots.md).  Ranking deeper nodes as well had lost in both games.
    return MCTSConfig(
        simulations=simulations,
        uct_c=0.5,
        evaluator=AdaptiveRollout(value=_VALUE, margin_weight=margin_weight),
        widening=1.5,
        prior=heuristic_margin,
        rank_after=ROOT_ONLY,
        rank_only_with_heuristic_leaf=True,
    )


LEVELS: Final[dict[int, MCTSConfig]] = {
    1: _level(30),
    2: _level(100),
    3: _level(300),
    4: _level(1000),
    # Three times level 4's simulations alone bought nothing in Medina (a won-or-lost
    # rollout is too noisy to tell close moves apart); the score margin is a less
    # noisy signal, so finished rollouts are valued half by it (docs/bots.md).
    5: _level(3000, margin_weight=0.5),
}
"""Search settings per level; see ``docs/bots.md`` for how they were chosen."""


def level_config(arg: str | None) -> tuple[MCTSConfig, str]:
    """The settings and display name for the part of an ``mcts`` spec after ``:``.

    Args:
        arg: ``None`` (level 3), ``"N"`` or ``"N@Ts"`` (level N, T seconds per move).

    Raises:
        ConfigError: for an unknown level or a bad time.
    """
    text = arg or str(DEFAULT_LEVEL)
    level_text, at, time_text = text.partition("@")
    try:
        level = int(level_text)
        config = LEVELS[level]
    except (ValueError, KeyError):
        raise ConfigError(f"unknown MCTS level {level_text!r} (levels: 1-{max(LEVELS)}, e.g. 'mcts:3')") from None
    if not at:
        return config, f"mcts:{level}"
    seconds = parse_seconds(time_text, "mcts:3@0.5s")
    return replace(config, simulations=None, time_limit=seconds), f"mcts:{level}@{time_text}"


def _make_mcts(arg: str | None, seed: int | None) -> MCTSAgent:
    config, name = level_config(arg)
    return MCTSAgent(config, seed=seed, name=name)


register_agent("mcts", _make_mcts)
