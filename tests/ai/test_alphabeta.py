"""The alpha-beta bot on the Coins toy game, where exact values are easy to work out."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toy_game import GAME, LEFT, RIGHT

from tabletop.ai.agent import make_agent, think
from tabletop.ai.alphabeta import AlphaBetaAgent, AlphaBetaConfig, parse_alphabeta
from tabletop.ai.evaluators import heuristic_margin
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import State


def paranoid_value(state: State, seat: int) -> float:
    """Exhaustive paranoid minimax: the seat maximizes its margin, everyone else minimizes it."""
    if state.is_terminal():
        return heuristic_margin(state, seat)
    values = [paranoid_value(state.apply(m), seat) for m in state.legal_moves()]
    return max(values) if state.current_player == seat else min(values)


def exact_agent(coins: int) -> AlphaBetaAgent:
    return AlphaBetaAgent(AlphaBetaConfig(time_limit=None, max_depth=coins), seed=0)


def test_depth_two_avoids_the_greedy_trap() -> None:
    # 3 9 1 2: taking the 3 opens the 9 to the rival; taking the 2 does not.
    trap = GAME.position((3, 9, 1, 2))
    assert AlphaBetaAgent(AlphaBetaConfig(time_limit=None, max_depth=1), seed=0).choose_move(trap) == LEFT
    assert AlphaBetaAgent(AlphaBetaConfig(time_limit=None, max_depth=2), seed=0).choose_move(trap) == RIGHT


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(1, 9), min_size=1, max_size=7),
    st.integers(2, 4),
    st.integers(1, 2),
)
def test_full_depth_search_finds_the_paranoid_value(coins: list[int], players: int, actions: int) -> None:
    state = GAME.position(coins, num_players=players, actions=actions)
    agent = exact_agent(len(coins))
    ranked = agent.analyse_position(state)
    assert ranked[0][1] == pytest.approx(paranoid_value(state, 0))
    # analyse_position values every root move exactly, not only the best.
    for move, value in ranked:
        assert value == pytest.approx(paranoid_value(state.apply(move), 0))
    assert agent.choose_move(state) in [m for m, v in ranked if v == pytest.approx(ranked[0][1])]


def test_specs_set_depth_and_time() -> None:
    assert parse_alphabeta(None)[0].time_limit == 0.5
    config, name = parse_alphabeta("3")
    assert (config.time_limit, config.max_depth, name) == (None, 3, "alphabeta:3")
    config, name = parse_alphabeta("@0.2s")
    assert (config.time_limit, name) == (0.2, "alphabeta@0.2s")
    assert make_agent("alphabeta@0.2s").name == "alphabeta@0.2s"
    assert make_agent("alphabeta:2@1s").name == "alphabeta:2@1s"


@pytest.mark.parametrize("spec", ["alphabeta:0", "alphabeta:99", "alphabeta:x", "alphabeta@", "alphabeta@-1s"])
def test_bad_alphabeta_specs_are_config_errors(spec: str) -> None:
    with pytest.raises(ConfigError):
        make_agent(spec)


def test_a_fixed_depth_search_is_reproducible() -> None:
    state = GAME.position((4, 4, 7, 1, 4, 4, 2, 9, 4), num_players=3)
    first = [make_agent("alphabeta:4", seed=5).choose_move(state) for _ in range(3)]
    assert len(set(first)) == 1


def test_stop_returns_a_legal_move() -> None:
    state = GAME.position(tuple(range(1, 15)))
    agent = AlphaBetaAgent(AlphaBetaConfig(time_limit=None, max_depth=14), seed=0)
    pending = think(agent, state)
    move = pending.stop()
    assert state.is_legal(move)
    # The stop flag does not linger into the next search.
    assert agent.choose_move(GAME.position((3, 9, 1, 2))) == RIGHT
