"""The clock a bot's own time budget runs on, and the parsing of "T seconds a move".

A search bot stops at the earlier of two instants:

* an **outside deadline** (``choose_move(state, deadline)``): a :func:`time.monotonic`
  instant set by whoever waits for the move (the server, a game clock, the arena's
  ``--move-time``).  It is always wall-clock time: a person waits in real time.
* its **own budget** (``mcts:4@0.5s``, ``alphabeta@0.5s``): T seconds from the start
  of the search, on the *budget clock*.  That is wall-clock time by default
  (:data:`WALL`); :func:`using_budget_clock` switches the process to the CPU time of the
  searching thread (:data:`CPU`, :func:`time.thread_time`).

Why a CPU clock: on a machine shared with other work a wall-clock budget buys a bot
fewer simulations when the machine is busy, and the load moves between a match's
games (and between its seats), so a strength comparison "at the same time per move"
measures the load as much as the bots.  A thread's CPU time counts only the work the
bot itself did, so both bots of an arena match get the same computation whatever the
load (``tabletop sprt --clock cpu``).  It is for matches between bots, not for play
against people.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Final

from tabletop.core.errors import ConfigError

WALL: Final = "wall"
"""Budgets in wall-clock seconds (:func:`time.monotonic`): the default."""

CPU: Final = "cpu"
"""Budgets in CPU seconds of the searching thread (:func:`time.thread_time`)."""

BUDGET_CLOCKS: Final[dict[str, Callable[[], float]]] = {WALL: time.monotonic, CPU: time.thread_time}
"""The budget clocks by name."""

_budget_clock: list[str] = [WALL]  # the process's budget clock (a list: no ``global`` statements)


@contextmanager
def using_budget_clock(name: str) -> Iterator[None]:
    """Within the block, this process's bots measure their own budgets on clock ``name``.

    Raises:
        ConfigError: for a name that is not in :data:`BUDGET_CLOCKS`.
    """
    if name not in BUDGET_CLOCKS:
        raise ConfigError(f"unknown clock {name!r} (clocks: {', '.join(BUDGET_CLOCKS)})")
    before = _budget_clock[0]
    _budget_clock[0] = name
    try:
        yield
    finally:
        _budget_clock[0] = before


def budget_clock() -> str:
    """The name of this process's budget clock."""
    return _budget_clock[0]


def budget_now() -> float:
    """The budget clock's reading now (seconds; only differences mean anything)."""
    return BUDGET_CLOCKS[_budget_clock[0]]()


class MoveBudget:
    """When one search must stop: its own time limit, an outside deadline, or both.

    Args:
        time_limit: the bot's own seconds for this search, on the budget clock
            (``None``: no own limit).
        deadline: a :func:`time.monotonic` instant (``None``: no outside deadline).
    """

    __slots__ = ("_clock", "_deadline", "_own_end")

    def __init__(self, time_limit: float | None, deadline: float | None) -> None:
        self._clock = BUDGET_CLOCKS[_budget_clock[0]]
        self._own_end = None if time_limit is None else self._clock() + time_limit
        self._deadline = deadline

    def expired(self) -> bool:
        """Whether either limit has passed."""
        if self._deadline is not None and time.monotonic() >= self._deadline:
            return True
        return self._own_end is not None and self._clock() >= self._own_end


def parse_seconds(text: str, example: str) -> float:
    """A time per move written after ``@`` in a bot spec: ``"0.5s"`` or ``"0.5"``.

    Args:
        text: the text after ``@``.
        example: a correct spec to show in the error, e.g. ``"mcts:3@0.5s"``.

    Raises:
        ConfigError: for text that is not a positive, finite number of seconds.
    """
    try:
        seconds = float(text.removesuffix("s"))
    except ValueError:
        raise ConfigError(f"bad time per move {text!r} (e.g. {example!r})") from None
    if not 0 < seconds < math.inf:
        raise ConfigError(f"the time per move must be a positive, finite number of seconds, got {text!r}")
    return seconds
