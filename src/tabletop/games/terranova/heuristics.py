"""Terra Nova's evaluation for bots: each seat's estimated final score.

``evaluate`` adds to the points already scored a share of what the open ground may
still pay.  Every zone (§4.1) that still holds pioneers will be cut into areas later;
it is worth about ``CELL_VALUE`` points per cell to whoever holds the majority when it
is cut, so each seat gets a soft-majority share of it (pioneers squared: holding more
pioneers than a rival counts for more than proportionally, as majorities do).  Small
zones with few landscapes are close to being scored and weigh more than the big open
ground of the opening (``URGENCY``).  Pioneers removed by scoring no longer count,
which is the price of closing an area.

The greedy and MCTS bots see the game only through this function and the protocol.
"""

from __future__ import annotations

from tabletop.games.terranova.rules import landscape_count, zones
from tabletop.games.terranova.state import State

CELL_VALUE = 0.6
"""Expected points per open cell of a zone, before the majority share."""

URGENCY = 8.0
"""How much more a zone near to scoring weighs: ``1 + URGENCY / cells`` (see below)."""


def evaluate(state: State) -> tuple[float, ...]:
    """Each seat's estimated final score (the final scores once the game is over)."""
    estimate = [float(p) for p in state.points]
    if state.result is not None:
        return tuple(estimate)
    board = state.context.board
    rules = state.context.rules
    pioneers = state.pioneers
    for zone in zones(board, state.open_cells):
        counts = [(own & zone).bit_count() for own in pioneers]
        squares = sum(c * c for c in counts)
        if not squares:
            continue  # dead ground: nobody can ever score it
        cells = zone.bit_count()
        t = landscape_count(board, rules, board.lands_of(zone))
        # A zone's final areas pay n * (4 - t') with t' <= 3; fewer landscapes now and
        # fewer cells mean the areas come sooner and pay more per cell.
        worth = CELL_VALUE * cells * (1.0 + URGENCY / cells) * (1.0 + max(0, 6 - t) * 0.25)
        for seat, c in enumerate(counts):
            if c:
                estimate[seat] += worth * c * c / squares
    return tuple(estimate)
