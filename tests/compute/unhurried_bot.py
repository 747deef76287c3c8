"""A test plugin: the ``unhurried:SECONDS`` bot waits SECONDS before the first move of each
game, then plays as ``random``.

A game of the Coins toy game takes well under a millisecond, so one node can finish a
whole arena before another node's workers have started; a game that takes as long as a
person's first thought gives every node of a test cluster its share.
Registered on import (``--plugin unhurried_bot``).
"""

from __future__ import annotations

import math
import time

from tabletop.ai.agent import Agent, RandomAgent, register_agent
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import Move, State


class Unhurried(RandomAgent):
    """Random moves, after a pause at the start of each game."""

    def __init__(self, arg: str, pause_s: float, seed: int | None) -> None:
        super().__init__(seed)
        self.name = f"unhurried:{arg}"  # the spec, as records and arenas name a bot
        self.pause_s = pause_s

    def choose_move(self, state: State, deadline: float | None = None) -> Move:
        if state.ply < 2:
            time.sleep(self.pause_s)
        return super().choose_move(state, deadline)


def _make(arg: str | None, seed: int | None) -> Agent:
    try:
        pause_s = float(arg or "")
    except ValueError:
        pause_s = math.nan
    if not 0 <= pause_s <= 10:
        raise ConfigError("unhurried needs its pause in seconds, 0 to 10: unhurried:0.5")
    return Unhurried(arg or "", pause_s, seed)


register_agent("unhurried", _make)
