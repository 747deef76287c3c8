"""Bot moves computed off the event loop, in worker processes or a thread pool.

A worker gets the match as record data (game id, config, actions so far) and rebuilds the
position with the public record replay, so nothing but strings crosses the process
boundary and the worker needs no game internals.

Every move has a deadline: a searching bot (MCTS) plays the best move it has found by
then, so a strong bot on a slow machine plays weaker but never late.  Only a bot that
ignores deadlines, or a worker that fails, is replaced by a random legal move.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ctypes
import multiprocessing
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

from tabletop.ai.agent import ask, make_agent, random_move
from tabletop.core.protocol import GameConfig, State
from tabletop.core.record import GameRecord, PlayerInfo, replay


def rebuild_state(game: str, config: dict[str, Any], texts: Sequence[str], engine: str | None = None) -> State:
    """The position after ``texts``, replayed through the public record API on ``engine``
    (``make``'s choice; ``None``: the default)."""
    cfg = GameConfig.from_json(config)
    players = tuple(PlayerInfo(name=f"P{i + 1}") for i in range(cfg.num_players))
    return replay(GameRecord(game=game, config=cfg, players=players, actions=tuple(texts)), engine)


def choose_action(
    game: str,
    config: dict[str, Any],
    texts: Sequence[str],
    agent_spec: str,
    seed: int,
    answer_by: float | None = None,
    engine: str | None = None,
) -> str:
    """Worker entry point: the bot's move for the position after ``texts``, as notation.

    Args:
        answer_by: a :func:`time.time` instant by which a bot that takes deadlines
            answers (wall-clock time, since a worker process has its own monotonic
            clock origin; the time spent queued for a worker counts too).
        engine: the engine to rebuild the position on (a bot that searches another
            engine, such as the native one, loads the position there itself).
    """
    agent = make_agent(agent_spec, seed=seed)
    state = rebuild_state(game, config, texts, engine)
    deadline = None if answer_by is None else time.monotonic() + max(0.0, answer_by - time.time())
    return state.move_to_str(ask(agent, state, deadline=deadline))


PARENT_CHECK_S = 0.5
"""How often a worker checks that the server still lives (where the OS cannot tell it)."""

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """Worker initializer: end this process as soon as the server process is gone.

    A server killed with SIGKILL runs no clean-up, and its pool's workers would wait on
    their call queue for ever.  On Linux the kernel sends this process SIGKILL when its
    parent dies (``PR_SET_PDEATHSIG``); everywhere, a daemon thread also checks every
    :data:`PARENT_CHECK_S` that the parent is still ``parent_pid`` (a process whose
    parent died is re-parented).  Once the workers are gone, multiprocessing's resource
    tracker sees its pipe close and exits too.
    """
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # the server died before the line above took effect
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_CHECK_S)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def fallback_action(state: State, seed: int) -> str:
    """A random legal move, played when a bot overruns its time budget."""
    return state.move_to_str(random_move(state, random.Random(seed)))


class BotPool:
    """Runs :func:`choose_action` with a per-move time budget.

    The bot is told to answer a little before the budget ends (``margin``), leaving time
    to send the move back; the random fallback is for the bot that does not answer at all.
    """

    def __init__(self, kind: str, workers: int, budget_s: float, engine: str | None = None) -> None:
        self.budget_s = budget_s
        self.engine = engine
        self.margin_s = min(0.5, 0.2 * budget_s)
        self._executor: concurrent.futures.Executor
        if kind == "process":
            # spawn, not fork: the server process has threads (uvicorn, the DB writer).
            ctx = multiprocessing.get_context("spawn")
            self._executor = concurrent.futures.ProcessPoolExecutor(
                max_workers=workers, mp_context=ctx, initializer=die_with_parent, initargs=(os.getpid(),)
            )
        else:
            self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bot")

    async def choose(
        self, state: State, game: str, config: dict[str, Any], texts: Sequence[str], agent_spec: str, seed: int
    ) -> tuple[str, bool]:
        """The bot's move and whether it came in time (else a random legal move is returned).

        A bot that takes deadlines is always in time: it plays its best move so far.
        """
        loop = asyncio.get_running_loop()
        answer_by = time.time() + self.budget_s - self.margin_s
        future = loop.run_in_executor(
            self._executor, choose_action, game, config, tuple(texts), agent_spec, seed, answer_by, self.engine
        )
        try:
            return await asyncio.wait_for(future, timeout=self.budget_s), True
        except TimeoutError:
            return fallback_action(state, seed), False

    def shutdown(self) -> None:
        """Stops the workers without waiting for moves still being thought about."""
        self._executor.shutdown(wait=False, cancel_futures=True)
