"""Terra Nova's evaluation for bots: each seat's estimated final score.

``evaluate(state)`` = points already scored + what each seat is likely to score from
the open ground that is still live (zones holding pioneers, §4.1).  Every live zone has
at least four landscapes (a part with three or fewer is scored at once, §4.2), so all
of it is still to be cut into areas by stones, and each area pays its **majority**
(§4.3).  The estimate asks, cell by cell, which seat's pioneers will win the area the
cell ends up in, and whether the game will last long enough for it to be scored:

* **Territory.**  Within each live zone, every open cell goes to the seat whose
  pioneers are nearest to it (a breadth-first search through the zone's open cells,
  all seats at once; stones and closed ground block, pioneers do not, as for zones).
  A cell equally near to two seats is shared (a third each among three or more).  This
  is a Voronoi partition by seat: a seat's pioneers win the areas around them unless a
  rival pioneer is as close.  A pioneer moved into a rival's ground takes cells from it
  (a contest), a stone on a rival's cell takes that cell from it, and a wall of stones
  between two seats' pioneers settles the cells behind it.
* **Value per cell.**  Each territory cell is worth ``CELL_VALUE`` points, times
  ``1 + URGENCY / cells`` for a zone of ``cells`` cells: a small zone is near to being
  cut into areas, so a stone that splits a zone makes progress.  An area pays
  ``n × (4 − t)`` (3, 2 or 1 points per cell for 1, 2 or 3 landscapes), but much of the
  open ground ends up under stones or as dead ground, so a cell of open ground is worth
  less than a cell of a closed area: closing an area one wins gains points now, and
  closing one a rival wins costs.
* **One area per pioneer.**  Scoring removes an area's pioneers, so a pioneer wins at
  most one area: a seat's territory in a zone counts for at most ``CELLS_PER_PIONEER``
  cells per pioneer it has there.
* **The game must go on.**  Points are certain, territory is not: the game ends with
  no further scoring by the stall rule (E5), when the stones run out (E4) or when at
  most one seat can move (E2).  The territory term is scaled by ``1 − (stall / limit)²``
  (turns without a stone out of the ``limit`` that end the game), vanishes once the
  supply is empty (with E4 on), and is scaled by the chance that two seats stay mobile
  (:func:`going_on`).  So turning territory into points is worth more than waiting, a
  seat behind on points wants stones on the board, and a seat keeps its own pioneers
  free to move.

The earlier form (a share of ``0.4 × cells + 8`` per zone, proportional to each seat's
pioneers there) made a stone in the opening's single zone cost both seats the same and
every pioneer move inside a zone worth nothing: the greedy bot, whose turn completion
takes the first of equally valued actions (a move), never placed a stone, and 2-player
greedy self-play ended every game at 0-0 by the stall rule.  Measurements are in
``docs/bots.md`` ("Greedy plays the game").

The greedy and MCTS bots see the game only through this function and the protocol.
"""

from __future__ import annotations

from tabletop.games.terranova.board import spread
from tabletop.games.terranova.state import State

CELL_VALUE = 0.5
"""Expected points per territory cell of live open ground."""

CELLS_PER_PIONEER = 6
"""The most territory cells a seat's pioneer can turn into points (one area each)."""

STUCK = 0.5
"""The chance that a seat's mobile pioneer gets blocked before the ground is divided."""

URGENCY = 8.0
"""A zone of ``cells`` cells weighs ``1 + URGENCY / cells``: small zones are near to scoring."""


def evaluate(state: State) -> tuple[float, ...]:
    """Each seat's estimated final score (the final scores once the game is over)."""
    estimate = [float(p) for p in state.points]
    if state.result is not None:
        return tuple(estimate)
    context = state.context
    if state.supply <= 0 and context.rules.end_on_stones_exhausted:
        return tuple(estimate)  # E4 ends the game at the end of this turn: nothing more scores
    territory = territories(state)
    limit = context.rules.stall_limit_rounds
    progress = 1.0
    if limit is not None:
        progress = max(0.0, 1.0 - (state.stall / (limit * context.num_players)) ** 2)
    progress *= going_on(state)
    for seat, cells in enumerate(territory):
        estimate[seat] += progress * CELL_VALUE * cells
    return tuple(estimate)


def territories(state: State) -> list[float]:
    """Each seat's territory, in points-weighted cells (see the module docstring).

    Within each live zone, every open cell goes to the seat whose pioneers are nearest
    (steps through the zone's open cells; pioneers do not block, as they do not split
    zones); a cell equally near to several seats is shared.  A seat's territory in a
    zone is capped at ``CELLS_PER_PIONEER`` per pioneer it has there and weighed by
    ``1 + URGENCY / cells``: a small zone is nearer to being cut into areas.  Dead
    ground (zones without pioneers) belongs to nobody.
    """
    context = state.context
    board = context.board
    n = context.num_players
    width = board.lattice_width
    open_cells = board.lattice_all & ~state.lattice_blocked
    sources = [board.to_lattice(own) for own in state.pioneers]
    everyone = 0
    for src in sources:
        everyone |= src
    totals = [0.0] * n
    unseen = everyone
    while unseen:
        # The zone of the lowest unseen pioneer: a flood fill through open cells.
        zone = frontier = unseen & -unseen
        while frontier:
            frontier = spread(frontier, width) & open_cells & ~zone
            zone |= frontier
        unseen &= ~zone
        size = zone.bit_count()
        weight = 1.0 + URGENCY / size
        present = [seat for seat in range(n) if sources[seat] & zone]
        if len(present) == 1:
            seat = present[0]
            cap = CELLS_PER_PIONEER * (sources[seat] & zone).bit_count()
            totals[seat] += weight * min(size, cap)
            continue
        fronts = [sources[seat] & zone for seat in present]
        owned = [float(f.bit_count()) for f in fronts]
        reached = everyone & zone
        while True:
            grows = [spread(f, width) & zone & ~reached for f in fronts]
            union = twice = thrice = 0
            for g in grows:
                thrice |= twice & g
                twice |= union & g
                union |= g
            if not union:
                break
            for i, g in enumerate(grows):
                if not g:
                    continue
                if twice & g:
                    # Shared cells: by 2, or (3-4 players) by 3 or more, counted as 3.
                    owned[i] += (g & ~twice).bit_count() + (g & twice & ~thrice).bit_count() / 2
                    owned[i] += (g & thrice).bit_count() / 3
                else:
                    owned[i] += g.bit_count()
            reached |= union
            fronts = grows
        for i, seat in enumerate(present):
            cap = CELLS_PER_PIONEER * (sources[seat] & zone).bit_count()
            totals[seat] += weight * min(owned[i], cap)
    return totals


def going_on(state: State) -> float:
    """The chance that E2 (at most one seat can move) does not end the game early.

    A seat stays mobile unless each of its ``k`` mobile pioneers (those with an empty
    neighbour) gets blocked: ``1 - STUCK ** k``.  The game goes on while two seats can
    move: the product of the two best chances.
    """
    board = state.context.board
    width = board.lattice_width
    sources = [board.to_lattice(own) for own in state.pioneers]
    everyone = 0
    for src in sources:
        everyone |= src
    beside_empty = spread(board.lattice_all & ~state.lattice_blocked & ~everyone, width)
    chances = sorted((1.0 - STUCK ** (src & beside_empty).bit_count() for src in sources), reverse=True)
    return chances[0] * chances[1]
