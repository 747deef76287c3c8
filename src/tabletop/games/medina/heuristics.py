"""Medina's evaluation for bots: the score each seat would have if the game ended now."""

from __future__ import annotations

from tabletop.games.medina.state import State


def evaluate(state: State) -> tuple[float, ...]:
    """Each seat's current score as floats (the final scores once the game is over).

    A deliberately simple baseline: owned palaces with their merchants and walls, plus
    the tiles held.  The bots developer may refine it (potential of unfinished palaces,
    pieces left in supply).
    """
    return tuple(float(x) for x in state.scores())
