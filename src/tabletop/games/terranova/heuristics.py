"""Terra Nova's evaluation for bots: each seat's estimated final score.

``evaluate`` adds to the points already scored a share of what the open ground may
still pay.  Every zone (§4.1) that still holds pioneers will be cut into areas later;
it is worth about ``CELL_VALUE`` points per cell, and each seat gets a share of it by
its pioneers there.  Small zones are close to being scored and weigh more than the big
open ground of the opening (``URGENCY``).  Pioneers removed by
scoring no longer count, which is the price of closing an area.

The share is proportional to the pioneer count (``SHARE_POWER = 1``).  A squared share
(a "soft majority") was tried first: it made the big opening zone so valuable that the
greedy bot walled single enemy pioneers into one-cell areas, paying the opponent 3
points to take away a share of the open ground, and lost games to random play by
running out of pioneers.

The greedy and MCTS bots see the game only through this function and the protocol.
"""

from __future__ import annotations

from tabletop.games.terranova.scoring import zones
from tabletop.games.terranova.state import State

CELL_VALUE = 0.4
"""Expected points per open cell of a zone, before the majority share."""

SHARE_POWER = 1.0
"""Each seat's share of a zone goes as its pioneer count to this power."""

URGENCY = 8.0
"""How much more a zone near to scoring weighs: ``1 + URGENCY / cells`` (see below)."""


def evaluate(state: State) -> tuple[float, ...]:
    """Each seat's estimated final score (the final scores once the game is over)."""
    estimate = [float(p) for p in state.points]
    if state.result is not None:
        return tuple(estimate)
    board = state.context.board
    pioneers = state.pioneers
    for zone in zones(board, state.open_cells):
        counts = [(own & zone).bit_count() for own in pioneers]
        weights = [c**SHARE_POWER for c in counts]
        squares = sum(weights)
        if not squares:
            continue  # dead ground: nobody can ever score it
        cells = zone.bit_count()
        # Small zones are close to being cut into areas: they weigh a little more.
        # (Weighing zones with fewer landscapes up as well was tried: it made the greedy
        # bot close an area one cell smaller, for fewer points, just to leave a rival's
        # zone with one more landscape.)
        worth = CELL_VALUE * cells * (1.0 + URGENCY / cells)
        for seat, w in enumerate(weights):
            if w:
                estimate[seat] += worth * w / squares
    return tuple(estimate)
