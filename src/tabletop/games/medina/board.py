"""Medina's board: square indices, wall spaces, towers and precomputed neighbour tables.

The engine uses one 18×13 grid that includes the wall ring, named like Boardspace
(columns ``A``–``R``, rows ``1``–``13``, row 1 drawn at the bottom)::

          A  B  C  D  E  F  G  H  I  J  K  L  M  N  O  P  Q  R
     13   T  w  w  w  w  w  w  w  w  w  w  w  w  w  w  w  w  T    T = tower
     12   w  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  w    w = wall space
     11   w  .  +  +  +  +  +  +  +  +  +  +  +  +  +  +  .  w    . = border square
     ..   w  .  +  (inner squares C3–P11)             +  .  w    + = inner square
      3   w  .  +  +  +  +  +  +  +  +  +  +  +  +  +  +  .  w
      2   w  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  w
      1   T  w  w  w  w  w  w  w  w  w  w  w  w  w  w  w  w  T

Square index ``sq = row * 18 + col`` with ``col`` 0 = ``A`` and ``row`` 0 = rank ``1``, so
``A1`` is 0, ``R1`` is 17 and ``R13`` is 233.  Sets of squares are Python ints used as
bitsets (bit ``sq``).  Because building squares never sit in column ``A`` or ``R``, the
shift-based dilations below cannot wrap from one row into a building square of the next.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

WIDTH: Final = 18
HEIGHT: Final = 13
NUM_SQUARES: Final = WIDTH * HEIGHT
FILES: Final = "ABCDEFGHIJKLMNOPQR"

Square = int
"""A square index, ``row * 18 + col``."""

Mask = int
"""A set of squares as a bitset."""

NOBODY: Final = -1
"""Owner of an unowned palace, holder of a tile still in the general supply."""
NEUTRAL: Final = -2
"""Owner of a palace claimed by a neutral dome, holder of the tiles it took (2e): scores nothing."""


def square(col: int, row: int) -> Square:
    """The index of the square in column ``col`` (0 = A) and row ``row`` (0 = rank 1)."""
    return row * WIDTH + col


def square_name(sq: Square) -> str:
    """The name of a square, e.g. ``square_name(0) == "A1"``."""
    return f"{FILES[sq % WIDTH]}{sq // WIDTH + 1}"


def parse_square(text: str) -> Square | None:
    """The index of a square name such as ``"E5"`` (case-insensitive), or ``None``."""
    text = text.strip().upper()
    if len(text) < 2 or text[0] not in FILES or not text[1:].isdigit():
        return None
    rank = int(text[1:])
    if not 1 <= rank <= HEIGHT or text[1] == "0":
        return None
    return square(FILES.index(text[0]), rank - 1)


SQUARE_NAMES: Final = tuple(square_name(sq) for sq in range(NUM_SQUARES))

# --- regions -------------------------------------------------------------------------


def _mask(squares: object) -> Mask:
    m = 0
    for sq in squares:  # type: ignore[attr-defined]
        m |= 1 << sq
    return m


BUILDING: Final[Mask] = _mask(square(c, r) for c in range(1, WIDTH - 1) for r in range(1, HEIGHT - 1))
"""The 176 building squares ``B2``–``Q12``."""

INNER: Final[Mask] = _mask(square(c, r) for c in range(2, WIDTH - 2) for r in range(2, HEIGHT - 2))
"""The 126 inner squares ``C3``–``P11`` (not adjacent to a wall space)."""

BORDER: Final[Mask] = BUILDING & ~INNER

TOWER_SQUARES: Final = (square(0, 0), square(WIDTH - 1, 0), square(0, HEIGHT - 1), square(WIDTH - 1, HEIGHT - 1))
"""Tower squares by tower slot: ``A1`` (SW), ``R1`` (SE), ``A13`` (NW), ``R13`` (NE)."""

TOWERS: Final[Mask] = _mask(TOWER_SQUARES)

SOUTH: Final[Mask] = _mask(square(c, 0) for c in range(1, WIDTH - 1))
NORTH: Final[Mask] = _mask(square(c, HEIGHT - 1) for c in range(1, WIDTH - 1))
WEST: Final[Mask] = _mask(square(0, r) for r in range(1, HEIGHT - 1))
EAST: Final[Mask] = _mask(square(WIDTH - 1, r) for r in range(1, HEIGHT - 1))
HORIZONTAL_WALLS: Final[Mask] = SOUTH | NORTH
VERTICAL_WALLS: Final[Mask] = WEST | EAST
WALL_SPACES: Final[Mask] = HORIZONTAL_WALLS | VERTICAL_WALLS
"""The 54 wall spaces."""

SIDES: Final = ("south", "north", "west", "east")
SIDE_MASKS: Final = (SOUTH, NORTH, WEST, EAST)

# --- towers and runs -------------------------------------------------------------------
# A run is the wall pieces contiguous with one tower along one side: run = (tower, side).
# Run ids: 2 * tower slot + (0 for the tower's horizontal side, 1 for its vertical side).
NUM_RUNS: Final = 8


def _side_of(sq: Square) -> int:
    for i, m in enumerate(SIDE_MASKS):
        if m >> sq & 1:
            return i
    raise ValueError(sq)


def _run_id(tower_slot: int, side: int) -> int:
    return 2 * tower_slot + (0 if side < 2 else 1)


RUN_TOWER: Final = tuple(r // 2 for r in range(NUM_RUNS))
"""Tower slot of each run."""


def _side_neighbors() -> dict[Square, tuple[Square, Square]]:
    table: dict[Square, tuple[Square, Square]] = {}
    for sq in range(NUM_SQUARES):
        if not WALL_SPACES >> sq & 1:
            continue
        step = 1 if HORIZONTAL_WALLS >> sq & 1 else WIDTH
        table[sq] = (sq - step, sq + step)
    return table


SIDE_NEIGHBORS: Final = _side_neighbors()
"""For each wall space, its two neighbours along the side (wall spaces or towers)."""


def _tower_run_from(sq: Square, neighbor: Square) -> int:
    """The run a wall piece on ``sq`` joins when ``neighbor`` is a tower."""
    return _run_id(TOWER_SQUARES.index(neighbor), _side_of(sq))


TOWER_RUN: Final = {
    (sq, nb): _tower_run_from(sq, nb) for sq, nbs in SIDE_NEIGHBORS.items() for nb in nbs if TOWERS >> nb & 1
}
"""``(wall space, adjacent tower square) -> run id`` for wall spaces next to a tower."""


def _run_toward(sq: Square, neighbor: Square) -> int:
    """The run of the tower at the end of ``sq``'s side that lies beyond ``neighbor``."""
    step = neighbor - sq
    cur = neighbor
    while not TOWERS >> cur & 1:
        cur += step
    return _run_id(TOWER_SQUARES.index(cur), _side_of(sq))


SIDE_RUNS: Final = {sq: tuple((nb, _run_toward(sq, nb)) for nb in nbs) for sq, nbs in SIDE_NEIGHBORS.items()}
"""For each wall space, its side neighbours (as ``SIDE_NEIGHBORS``), each with the run of
the tower beyond it: a wall piece placed next to a tower or a wall piece joins that run,
since the wall pieces of a run are contiguous from its tower and the gate stays open."""

# --- neighbour tables ------------------------------------------------------------------

_ORTHO: Final = ((1, 0), (-1, 0), (0, 1), (0, -1))
_KING: Final = tuple((dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if dc or dr)


def _neighbors(sq: Square, deltas: tuple[tuple[int, int], ...]) -> tuple[Square, ...]:
    col, row = sq % WIDTH, sq // WIDTH
    return tuple(square(col + dc, row + dr) for dc, dr in deltas if 0 <= col + dc < WIDTH and 0 <= row + dr < HEIGHT)


ORTHO_NEIGHBORS: Final = tuple(_neighbors(sq, _ORTHO) for sq in range(NUM_SQUARES))
ORTHO_MASK: Final = tuple(_mask(nbs) for nbs in ORTHO_NEIGHBORS)
"""Orthogonal ("adjacent") neighbours of each square, as a bitset."""

TOUCH_MASK: Final = tuple(_mask(_neighbors(sq, _KING)) for sq in range(NUM_SQUARES))
"""8-neighbourhood ("touching") of each square, as a bitset (excluding the square)."""

TOUCH_CLOSED: Final = tuple(m | 1 << sq for sq, m in enumerate(TOUCH_MASK))
"""The 3×3 block around each square (the square and everything touching it)."""

ADJACENT_WALL_SPACES: Final = tuple(m & WALL_SPACES if BUILDING >> sq & 1 else 0 for sq, m in enumerate(ORTHO_MASK))
"""For each building square, the wall spaces adjacent to it (0, 1 or 2)."""

WALL_FRONT: Final = {w: (ORTHO_MASK[w] & BUILDING).bit_length() - 1 for w in SIDE_NEIGHBORS}
"""For each wall space, the one building square adjacent to it."""

_NOT_A: Final = ~_mask(square(0, r) for r in range(HEIGHT)) & ((1 << NUM_SQUARES) - 1)
_NOT_R: Final = ~_mask(square(WIDTH - 1, r) for r in range(HEIGHT)) & ((1 << NUM_SQUARES) - 1)
_ALL: Final = (1 << NUM_SQUARES) - 1


def ortho_dilate(m: Mask) -> Mask:
    """Squares orthogonally adjacent to a square of ``m`` that lies in the building area.

    Valid for any ``m`` whose squares are building squares; the result is restricted to
    building squares (and may include squares of ``m`` itself).
    """
    return ((m << 1) | (m >> 1) | (m << WIDTH) | (m >> WIDTH)) & BUILDING


def ortho_dilate_any(m: Mask) -> Mask:
    """Every square orthogonally adjacent to a square of ``m`` (no wrap across rows)."""
    return (((m << 1) & _NOT_A) | ((m >> 1) & _NOT_R) | (m << WIDTH) | (m >> WIDTH)) & _ALL


def touch_dilate(m: Mask) -> Mask:
    """``m`` plus every square touching it, for ``m`` inside the building area."""
    row = m | (m << 1) | (m >> 1)
    return (row | (row << WIDTH) | (row >> WIDTH)) & _ALL


def two_or_more_neighbors(m: Mask) -> Mask:
    """Squares with at least two orthogonal neighbours in ``m`` (``m`` in the building area)."""
    a = m << 1
    b = m >> 1
    c = m << WIDTH
    ab = a | b
    return ((a & b) | (ab & c) | ((ab | c) & (m >> WIDTH))) & _ALL


def squares_of(m: Mask) -> list[Square]:
    """The squares of a bitset in increasing order."""
    out: list[Square] = []
    for i, byte in enumerate(m.to_bytes(_NUM_BYTES, "little")):
        if byte:
            out.extend(_BYTE_SQUARES[i][byte])
    return out


_NUM_BYTES: Final = (NUM_SQUARES + 7) // 8
_BYTE_SQUARES: Final = tuple(
    tuple(tuple(8 * i + b for b in range(8) if v >> b & 1) for v in range(256)) for i in range(_NUM_BYTES)
)


def mask_of(squares: object) -> Mask:
    """The bitset of an iterable of squares."""
    return _mask(squares)


def diagram() -> str:
    """The ASCII diagram of the board regions (T tower, w wall space, . border, + inner)."""
    lines = ["     " + "  ".join(FILES)]
    for row in range(HEIGHT - 1, -1, -1):
        cells = []
        for col in range(WIDTH):
            sq = square(col, row)
            bit = 1 << sq
            cells.append("T" if TOWERS & bit else "w" if WALL_SPACES & bit else "+" if INNER & bit else ".")
        lines.append(f"{row + 1:>3}  " + "  ".join(cells))
    return "\n".join(lines)


# --- geometries ----------------------------------------------------------------------------
# The second edition's 2-player board (16×12, building squares B2–O11) is the south-west
# corner of the same 18-wide index grid: a square keeps its name and index on both boards,
# and the shifts of the dilations above cannot wrap into its building area either.


@dataclass(frozen=True, slots=True, eq=False)
class Geometry:
    """One board side: its regions and the tables that depend on where the walls are.

    The module constants above are the 3–4-player board's (:data:`BOARD_34`); rules code
    reads a state's ``geo`` so that the 2-player board (:data:`BOARD_2P`) works the same.

    Attributes:
        columns: grid columns (18 or 16), from ``A``.
        rows: grid rows (13 or 12), from ``1``.
        building: the building squares.
        inner: the inner squares (not adjacent to a wall space).
        wall_spaces: the wall spaces.
        horizontal_walls: the south and north wall spaces.
        vertical_walls: the west and east wall spaces.
        towers: the tower squares by tower slot (SW, SE, NW, NE).
        tower_mask: the tower squares as a bitset.
        side_neighbors: per wall space, its two neighbours along the side.
        side_runs: per wall space, its side neighbours each with the run beyond it.
        wall_front: per wall space, the building square it faces.
        grid: every square of the grid (walls, towers and building squares).
    """

    columns: int
    rows: int
    building: Mask
    inner: Mask
    wall_spaces: Mask
    horizontal_walls: Mask
    vertical_walls: Mask
    towers: tuple[Square, Square, Square, Square]
    tower_mask: Mask
    side_neighbors: dict[Square, tuple[Square, Square]]
    side_runs: dict[Square, tuple[tuple[Square, int], tuple[Square, int]]]
    wall_front: dict[Square, Square]
    grid: Mask

    def has(self, sq: Square) -> bool:
        """Whether ``sq`` is a square of this board's grid."""
        return bool(self.grid >> sq & 1)


def _geometry(columns: int, rows: int) -> Geometry:
    """The tables of a ``columns`` × ``rows`` grid (wall ring included) in the 18-wide indexing."""
    building = _mask(square(c, r) for c in range(1, columns - 1) for r in range(1, rows - 1))
    inner = _mask(square(c, r) for c in range(2, columns - 2) for r in range(2, rows - 2))
    towers = (square(0, 0), square(columns - 1, 0), square(0, rows - 1), square(columns - 1, rows - 1))
    tower_mask = _mask(towers)
    south = _mask(square(c, 0) for c in range(1, columns - 1))
    north = _mask(square(c, rows - 1) for c in range(1, columns - 1))
    west = _mask(square(0, r) for r in range(1, rows - 1))
    east = _mask(square(columns - 1, r) for r in range(1, rows - 1))
    horizontal, vertical = south | north, west | east
    sides = (south, north, west, east)

    def side_of(sq: Square) -> int:
        return next(i for i, m in enumerate(sides) if m >> sq & 1)

    def run_toward(sq: Square, neighbor: Square) -> int:
        step = neighbor - sq
        cur = neighbor
        while not tower_mask >> cur & 1:
            cur += step
        return _run_id(towers.index(cur), side_of(sq))

    side_neighbors: dict[Square, tuple[Square, Square]] = {}
    for sq in squares_of(horizontal | vertical):
        step = 1 if horizontal >> sq & 1 else WIDTH
        side_neighbors[sq] = (sq - step, sq + step)
    side_runs = {sq: ((a, run_toward(sq, a)), (b, run_toward(sq, b))) for sq, (a, b) in side_neighbors.items()}
    wall_front = {w: (ORTHO_MASK[w] & building).bit_length() - 1 for w in side_neighbors}
    grid = _mask(square(c, r) for c in range(columns) for r in range(rows))
    return Geometry(
        columns,
        rows,
        building,
        inner,
        horizontal | vertical,
        horizontal,
        vertical,
        towers,
        tower_mask,
        side_neighbors,
        side_runs,
        wall_front,
        grid,
    )


BOARD_34: Final = _geometry(WIDTH, HEIGHT)
"""The 18×13 board of the first edition (and of the second with 3–4 players)."""

BOARD_2P: Final = _geometry(16, 12)
"""The second edition's 2-player side: 16×12, building squares ``B2``–``O11``, towers
``A1``, ``P1``, ``A12``, ``P12`` (spec 2e §1.3)."""


def geometry_for(num_players: int) -> Geometry:
    """The board side for a player count (the 2-player side only exists in the second edition)."""
    return BOARD_2P if num_players == 2 else BOARD_34
