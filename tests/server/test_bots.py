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
    """A bot that thinks far longer than its budget."""

    name = "sleepy"

    def choose_move(self, state: State) -> Move:
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
