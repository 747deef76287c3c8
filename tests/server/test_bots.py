"""The bot pool: moves come back as notation, and an overrun budget falls back to a random move."""

from __future__ import annotations

import asyncio
import time

from tabletop.ai.agent import RandomAgent, register_agent
from tabletop.core.protocol import GameConfig, Move, State
from tabletop.core.registry import make
from tabletop.server.bots import BotPool

from . import toygame  # noqa: F401 - registers "toy"


class SleepyAgent(RandomAgent):
    """A bot that ignores its deadline and thinks far longer than its budget."""

    name = "sleepy"

    def choose_move(self, state: State, deadline: float | None = None) -> Move:
        time.sleep(1.0)
        return super().choose_move(state)


register_agent("sleepy", lambda _arg, seed: SleepyAgent(seed))


def run(agent: str, budget: float) -> tuple[str, bool, float]:
    game = make("toy")
    config = GameConfig(num_players=2, start_player=0)
    state = game.new_initial_state(config).apply(game.parse_move("a"))
    pool = BotPool("thread", 1, budget)
    try:
        start = time.monotonic()
        text, in_time = asyncio.run(pool.choose(state, "toy", config.to_json(), ["a"], agent, seed=1))
        return text, in_time, time.monotonic() - start
    finally:
        pool.shutdown()


def test_bot_move_is_legal_notation() -> None:
    text, in_time, _ = run("random", 5.0)
    assert in_time and text in "bcdef"


def test_budget_overrun_plays_a_random_legal_move_in_time() -> None:
    text, in_time, elapsed = run("sleepy", 0.2)
    assert not in_time and text in "bcdef" and elapsed < 0.9


class PatientAgent(RandomAgent):
    """A searching bot: thinks until its deadline, then plays its best move so far ("f")."""

    name = "patient"

    def choose_move(self, state: State, deadline: float | None = None) -> Move:
        end = deadline if deadline is not None else time.monotonic() + 60.0
        while time.monotonic() < end:
            time.sleep(0.01)
        return state.parse_move("f")

    def stop(self) -> None:
        pass


register_agent("patient", lambda _arg, seed: PatientAgent(seed))


def test_a_bot_that_takes_deadlines_plays_its_own_move_within_the_budget() -> None:
    text, in_time, elapsed = run("patient", 0.5)
    assert in_time and text == "f"
    assert elapsed < 0.5


def test_a_real_search_answers_within_the_budget() -> None:
    # mcts:5 is 3,000 simulations; half a second cuts it short, and it still answers itself.
    text, in_time, elapsed = run("mcts:5", 0.5)
    assert in_time and text in "bcdef"
    assert elapsed < 0.5
