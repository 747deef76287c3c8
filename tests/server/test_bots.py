"""The bot pool: moves come back as notation, and an overrun budget falls back to a random move."""

from __future__ import annotations

import asyncio
import random
import threading
import time

import pytest

from tabletop.ai.agent import RandomAgent, random_move, register_agent
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import GameConfig, Move, State
from tabletop.core.registry import engine_of, make
from tabletop.native import has_native
from tabletop.server.bots import BotPool, choose_action, rebuild_state
from tabletop.server.config import Settings

from . import toygame  # noqa: F401 - registers "toy"

RELEASE_SLEEPY = threading.Event()
"""Set by the test once it has its answer: until then the sleepy bot is still thinking."""


class SleepyAgent(RandomAgent):
    """A bot that ignores its deadline and thinks until the test releases it."""

    name = "sleepy"

    def choose_move(self, state: State, deadline: float | None = None) -> Move:
        RELEASE_SLEEPY.wait(timeout=60)
        return super().choose_move(state)


register_agent("sleepy", lambda _arg, seed: SleepyAgent(seed))


def run(agent: str, budget: float) -> tuple[str, bool]:
    game = make("toy")
    config = GameConfig(num_players=2, start_player=0)
    state = game.new_initial_state(config).apply(game.parse_move("a"))
    pool = BotPool("thread", 1, budget)
    try:
        return asyncio.run(pool.choose(state, "toy", config.to_json(), ["a"], agent, seed=1))
    finally:
        pool.shutdown()


def test_bot_move_is_legal_notation() -> None:
    text, in_time = run("random", 5.0)
    assert in_time and text in "bcdef"


def test_budget_overrun_plays_a_random_legal_move_in_time() -> None:
    try:
        text, in_time = run("sleepy", 0.2)
        # The answer came while the bot was still thinking: the pool did not wait for it.
        assert not RELEASE_SLEEPY.is_set()
        assert not in_time and text in "bcdef"
    finally:
        RELEASE_SLEEPY.set()


DEADLINES: list[float | None] = []
"""The deadline each patient bot was given (as :func:`time.monotonic` instants)."""


class PatientAgent(RandomAgent):
    """A searching bot: thinks until its deadline, then plays its best move so far ("f")."""

    name = "patient"

    def choose_move(self, state: State, deadline: float | None = None) -> Move:
        DEADLINES.append(deadline)
        end = deadline if deadline is not None else time.monotonic() + 60.0
        while time.monotonic() < end:
            time.sleep(0.01)
        return state.parse_move("f")

    def stop(self) -> None:
        pass


register_agent("patient", lambda _arg, seed: PatientAgent(seed))


def test_a_bot_that_takes_deadlines_plays_its_own_move_within_the_budget() -> None:
    DEADLINES.clear()
    asked = time.monotonic()
    text, in_time = run("patient", 0.5)
    assert in_time and text == "f"  # its own move, not the pool's random fallback
    (deadline,) = DEADLINES
    assert deadline is not None and deadline <= asked + 0.5  # told to answer inside the budget


def test_a_real_search_answers_within_the_budget() -> None:
    # mcts:5 is 3,000 simulations; the budget cuts it short, and it still answers itself
    # (in_time: the pool did not have to play a random move for it).
    text, in_time = run("mcts:5", 2.0)
    assert in_time and text in "bcdef"


def test_the_server_plays_on_its_configured_engine() -> None:
    assert Settings().engine == "python"
    with pytest.raises(ConfigError, match="engine must be one of"):
        Settings(engine="../native")


def test_the_native_bot_plays_a_match_on_the_python_engine() -> None:
    if not has_native("medina"):
        pytest.skip("the native extension is not built")
    game = make("medina", "python")
    config = GameConfig(num_players=3, seed=4)
    state = game.new_initial_state(config)
    texts = []
    rng = random.Random(4)
    for _ in range(12):  # mid-game: the native bot loads the Python position
        move = random_move(state, rng)
        texts.append(state.move_to_str(move))
        state = state.apply(move)
    assert engine_of(rebuild_state("medina", config.to_json(), texts, "python").game) == "python"
    # The match runs on the Python engine; the native search loads the position it is given.
    answer = choose_action("medina", config.to_json(), texts, "native:1", seed=1, engine="python")
    assert state.parse_move(answer) in state.legal_moves()
