"""Bots that evaluate positions search the readable engine's states, whichever engine the
game runs on: the same moves, without paying for both engines' moves."""

from __future__ import annotations

import random

import pytest

from tabletop.ai.agent import make_agent, random_move
from tabletop.ai.evaluators import readable_state
from tabletop.core.protocol import GameConfig
from tabletop.core.registry import engine_of, make
from tests.native import needs_native

pytestmark = needs_native("terranova")


@pytest.mark.parametrize("spec", ["greedy", "alphabeta:1"])
def test_an_evaluating_bot_plays_the_same_moves_on_both_engines(spec: str) -> None:
    config = GameConfig(num_players=2, seed=3)
    python = make("terranova", "python").new_initial_state(config)
    native = make("terranova", "native").new_initial_state(config)
    rng = random.Random(3)
    for ply in range(40):
        if ply % 4 == 0:  # a bot's move every few plies, random ones between
            chosen = [make_agent(spec, seed=ply).choose_move(s) for s in (python, native)]
            assert chosen[0] == chosen[1]
            move = chosen[0]
        else:
            move = random_move(python, rng)
        python, native = python.apply(move), native.apply(move)
    assert native.to_json() == python.to_json()


def test_readable_state_is_the_python_engines_equal_state() -> None:
    config = GameConfig(num_players=2, seed=1)
    native = make("terranova", "native").new_initial_state(config)
    readable = readable_state(native)
    assert engine_of(readable.game) == "python" and readable.to_json() == native.to_json()
    python = make("terranova", "python").new_initial_state(config)
    assert readable_state(python) is python
