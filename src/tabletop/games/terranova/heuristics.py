"""Position evaluation for bots (a first version: the current scores).

The bots developer will replace this with a real estimate of the final scores.
"""

from __future__ import annotations

from tabletop.games.terranova.state import State


def evaluate(state: State) -> tuple[float, ...]:
    """Each seat's estimated final score: for now the current score (final once over)."""
    return tuple(float(points) for points in state.points)
