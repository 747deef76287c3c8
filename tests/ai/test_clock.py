"""The budget clock: wall-clock by default, a thread's CPU time on request."""

from __future__ import annotations

import time

import pytest
from toy_game import GAME

from tabletop.ai.alphabeta import AlphaBetaAgent, AlphaBetaConfig
from tabletop.ai.clock import CPU, WALL, MoveBudget, budget_clock, parse_seconds, using_budget_clock
from tabletop.ai.evaluators import RandomRollout
from tabletop.ai.mcts import MCTSAgent, MCTSConfig
from tabletop.core.errors import ConfigError


def test_wall_clock_is_the_default_and_a_block_restores_it() -> None:
    assert budget_clock() == WALL
    with using_budget_clock(CPU):
        assert budget_clock() == CPU
    assert budget_clock() == WALL


def test_an_unknown_clock_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown clock 'sundial'"), using_budget_clock("sundial"):
        pass


def test_waiting_spends_wall_time_but_no_cpu_time() -> None:
    wall = MoveBudget(0.02, None)
    with using_budget_clock(CPU):
        cpu = MoveBudget(0.02, None)
    time.sleep(0.1)  # a sleeping thread uses (next to) no CPU time
    assert wall.expired()
    assert not cpu.expired()


def test_a_cpu_budget_runs_out_while_the_thread_works() -> None:
    with using_budget_clock(CPU):
        budget = MoveBudget(0.01, None)
    spins = 0
    while not budget.expired():
        spins += 1
    assert spins > 0


def test_an_outside_deadline_is_wall_clock_even_with_the_cpu_clock() -> None:
    with using_budget_clock(CPU):
        budget = MoveBudget(30.0, time.monotonic() - 1.0)
    assert budget.expired()


def test_no_limits_never_expire() -> None:
    assert not MoveBudget(None, None).expired()


@pytest.mark.parametrize(
    "agent",
    [
        MCTSAgent(MCTSConfig(simulations=None, time_limit=0.02, evaluator=RandomRollout()), seed=0),
        AlphaBetaAgent(AlphaBetaConfig(time_limit=0.02), seed=0),
    ],
    ids=["mcts", "alphabeta"],
)
def test_search_bots_keep_a_cpu_budget(agent: MCTSAgent | AlphaBetaAgent) -> None:
    state = GAME.position(tuple(range(1, 40)))
    with using_budget_clock(CPU):
        start = time.thread_time()
        move = agent.choose_move(state)
        spent = time.thread_time() - start
    assert state.is_legal(move)
    assert spent < 1.0  # stopped by its 0.02 CPU s, not by the end of the search


@pytest.mark.parametrize(("text", "seconds"), [("0.5s", 0.5), ("2", 2.0), ("0.05s", 0.05)])
def test_times_per_move_parse(text: str, seconds: float) -> None:
    assert parse_seconds(text, "mcts:3@0.5s") == seconds


@pytest.mark.parametrize("text", ["fast", "0s", "-1s", "infs", "nans"])
def test_bad_times_per_move_are_config_errors(text: str) -> None:
    with pytest.raises(ConfigError, match="time per move"):
        parse_seconds(text, "mcts:3@0.5s")
