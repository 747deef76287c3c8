"""A board's cells as a network sees them: where each cell lies in the planes, its
neighbours, and which cells each action id is about.

The ``cells`` network (``tabletop.core.network``, docs/bots.md "The cells network")
shares its weights across the cells of a board: every cell is computed by the same
layers from its own planes and its neighbours', and an action's logit is read from the
cells it moves from, to or onto.  That is how it can learn from a few hundred games what
a dense layer has to learn cell by cell (it did not, in Terra Nova).  What a network
needs of a game for this is :class:`CellGeometry`, which an encoding offers through the
optional ``cell_geometry()`` method (:func:`cell_geometry_of`).

Pure Python (no NumPy): the encodings import it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tabletop.core.encoding import Encoding
from tabletop.core.errors import ConfigError

NO_CELL = -1
"""A missing neighbour, or an action's missing second cell."""


@dataclass(frozen=True, slots=True)
class CellGeometry:
    """The cells of one board and the action ids' cells.

    Attributes:
        positions: each cell's index within a plane (``row * width + column``).
        neighbours: each cell's neighbours, the same number ``K`` for every cell, in a
            fixed direction order (:data:`NO_CELL` off the board).
        action_cells: per action id, the two cells it is read from (the first: where a
            piece is placed or moves from; the second: where it moves to, or
            :data:`NO_CELL`; both :data:`NO_CELL` for an action about no cell, a pass).
        action_heads: per action id, which of the ``num_heads`` policy projections each of
            its two cells is read through (say one for "move from here going east", one
            for "move to here going east").
        action_classes: per action id, its class (``num_classes`` of them): the class's
            own bias and a weight from the whole board's summary are added to its logit.
        num_heads: how many policy projections.
        num_classes: how many action classes.
    """

    positions: tuple[int, ...]
    neighbours: tuple[tuple[int, ...], ...]
    action_cells: tuple[tuple[int, int], ...]
    action_heads: tuple[tuple[int, int], ...]
    action_classes: tuple[int, ...]
    num_heads: int
    num_classes: int

    def __post_init__(self) -> None:
        n = len(self.positions)
        k = len(self.neighbours[0]) if self.neighbours else 0
        if not n or len(self.neighbours) != n or any(len(row) != k for row in self.neighbours):
            raise ValueError("a cell geometry needs one neighbour row of one length per cell")
        if any(not NO_CELL <= j < n for row in self.neighbours for j in row):
            raise ValueError("a neighbour that is not a cell")
        a = len(self.action_classes)
        if len(self.action_cells) != a or len(self.action_heads) != a:
            raise ValueError("a cell geometry needs cells, heads and a class for every action")
        if any(not NO_CELL <= c < n for pair in self.action_cells for c in pair):
            raise ValueError("an action's cell that is not a cell")
        if any(not 0 <= h < self.num_heads for pair in self.action_heads for h in pair):
            raise ValueError("an action's head out of range")
        if any(not 0 <= c < self.num_classes for c in self.action_classes):
            raise ValueError("an action's class out of range")

    @property
    def num_cells(self) -> int:
        return len(self.positions)

    @property
    def num_neighbours(self) -> int:
        return len(self.neighbours[0])


def cell_geometry_of(encoding: Encoding) -> CellGeometry:
    """The encoding's cell geometry (its optional ``cell_geometry()`` method).

    Raises:
        ConfigError: if the encoding has none (its game's networks are dense only).
    """
    hook = getattr(encoding, "cell_geometry", None)
    if hook is None:
        raise ConfigError(f"{type(encoding).__name__} has no cell geometry: its game's networks can only be dense")
    geometry: CellGeometry = hook()
    return geometry
