"""A test plugin: the ``dieonce:MARKER`` bot kills its own process at its first move,
once (the marker file says it has), and plays as ``random`` otherwise.

Registered on import, so ``--plugin dying_bot`` makes it known to every worker.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from tabletop.ai.agent import Agent, RandomAgent, register_agent
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import Move, State


class DieOnce(RandomAgent):
    """Random moves; at the first move of the first game anywhere, its process is killed."""

    name = "dieonce"

    def __init__(self, marker: Path, seed: int | None) -> None:
        super().__init__(seed)
        self.marker = marker

    def choose_move(self, state: State, deadline: float | None = None) -> Move:
        try:
            self.marker.touch(exist_ok=False)
        except FileExistsError:
            return super().choose_move(state, deadline)
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable: the process was killed")


def _make(arg: str | None, seed: int | None) -> Agent:
    marker = Path(arg or "")
    if not marker.is_absolute() or not marker.parent.is_dir():
        raise ConfigError("dieonce needs a marker file in an existing directory: dieonce:/ABSOLUTE/PATH")
    return DieOnce(marker, seed)


register_agent("dieonce", _make)
