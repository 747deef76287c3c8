"""Agent specs, greedy play, levels and interruptible thinking."""

from __future__ import annotations

import time

import pytest
from toy_game import GAME, LEFT, RIGHT

from tabletop.ai.agent import RandomAgent, agent_kinds, make_agent, think
from tabletop.ai.greedy import GreedyAgent
from tabletop.ai.levels import LEVELS, level_config
from tabletop.ai.mcts import MCTSAgent
from tabletop.core.errors import ConfigError


def test_builtin_kinds_are_registered() -> None:
    assert {"random", "greedy", "mcts"} <= set(agent_kinds())
    assert make_agent("mcts:2").name == "mcts:2"
    assert make_agent("mcts").name == "mcts:3"
    assert make_agent("greedy").name == "greedy"


@pytest.mark.parametrize(
    "spec",
    ["mcts:0", "mcts:9", "mcts:x", "mcts:3@", "mcts:3@-1s", "mcts:3@infs", "mcts:3@nans", "greedy:0", "alphazero"],
)
def test_bad_specs_are_config_errors(spec: str) -> None:
    with pytest.raises(ConfigError):
        make_agent(spec)


def test_time_spec_switches_to_a_time_budget() -> None:
    config, name = level_config("3@0.5s")
    assert name == "mcts:3@0.5s"
    assert config.simulations is None and config.time_limit == 0.5


def test_levels_grow_in_budget() -> None:
    budgets = [LEVELS[level].simulations or 0 for level in sorted(LEVELS)]
    assert budgets == sorted(budgets) and len(set(budgets)) == len(budgets)


def test_greedy_takes_the_bigger_end() -> None:
    assert GreedyAgent(seed=0).choose_move(GAME.position((3, 1, 1, 8))) == RIGHT


def test_greedy_completes_its_turn_before_judging() -> None:
    # With two actions a turn, the 1 on the left is worth taking for the 50 behind it.
    assert GreedyAgent(seed=0).choose_move(GAME.position((1, 50, 1, 2), actions=2)) == LEFT


def test_random_agent_is_seeded() -> None:
    state = GAME.position(tuple(range(10)))
    a, b = RandomAgent(4), RandomAgent(4)
    assert [a.choose_move(state) for _ in range(20)] == [b.choose_move(state) for _ in range(20)]


def test_think_returns_in_the_background_and_can_be_stopped() -> None:
    agent = make_agent("mcts:5", seed=0)
    assert isinstance(agent, MCTSAgent)
    state = GAME.position(tuple(range(1, 60)))
    pending = think(agent, state)
    time.sleep(0.05)
    move = pending.stop()
    assert state.is_legal(move) and pending.done()
    stats = agent.search.last_stats
    assert stats is not None and stats.simulations < 3000  # stopped early, not run to its budget
