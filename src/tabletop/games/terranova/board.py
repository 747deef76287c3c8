"""The island board as index tables: cells, landscapes, neighbours and rays.

Cells are numbered 0..N-1 in ``(r, q)`` order: row by row from the top (smallest r),
left to right (smallest q) within a row.  Bit ``i`` of a bitset int is cell ``i``.
For the 37-cell test disc ``D3-7`` (max(|q|,|r|,|q+r|) ≤ 3)::

    r=-3            0   1   2   3            q =  0 ..  3
    r=-2          4   5   6   7   8          q = -1 ..  3
    r=-1        9  10  11  12  13  14        q = -2 ..  3
    r= 0     15  16  17  18  19  20  21      q = -3 ..  3
    r= 1       22  23  24  25  26  27        q = -3 ..  2
    r= 2         28  29  30  31  32          q = -3 ..  1
    r= 3           33  34  35  36            q = -3 ..  0

Directions are E, NE, NW, W, SW, SE (0..5, :data:`tabletop.grid.hex.DIRECTIONS`).

The hot paths also use two other layouts.  The padded "lattice" layout: cell (q, r) is bit
``(r - r_min) * W + (q - q_min)`` with ``W`` = map width + 1.  The extra column is never
a cell, so each direction is a fixed shift (E +1, W -1, SE +W, NW -W, SW +W-1,
NE -W+1) and one shift moves a whole set of cells a step without wrapping into the
next row.  ``to_lattice``/``from_lattice`` convert between the layouts row piece by row
piece.  The "lines" layout holds six copies of the board, copy d laid out along the
lines of direction d, so a one-bit shift moves every copy one step in its own
direction: slides in all six directions at once (``to_lines``).

Cell names (``notation.py``): a column letter for q (``a`` = the smallest q on the map)
and a row number for r (``1`` = the top row), as on a Hex board: ``D3-7``'s centre
``(0, 0)`` is ``d4``.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Mapping
from itertools import compress
from typing import TYPE_CHECKING, Any, Final

from tabletop.games.terranova.mapfile import MAX_CELLS, IslandMap, Landscape, load_map, parse_map
from tabletop.grid.hex import DIRECTIONS, direction_between

if TYPE_CHECKING:
    from tabletop.games.terranova.moves import Place, Slide, Stone

NUM_DIRECTIONS: Final = 6
_BITS: Final = bytes.maketrans(b"01", b"\x00\x01")


def _ring_arcs(pattern: int) -> tuple[int, ...]:
    """The runs of set bits of a 6-bit direction pattern, read cyclically.

    Consecutive directions around a cell are neighbours of each other, so the open
    neighbours of a cell form one group per run ("arc").
    """
    if pattern == 0b111111:
        return (pattern,)
    arcs = []
    for d in range(6):
        if pattern >> d & 1 and not pattern >> ((d - 1) % 6) & 1:  # a run starts at d
            arc = 0
            k = d
            while pattern >> k & 1:
                arc |= 1 << k
                k = (k + 1) % 6
            arcs.append(arc)
    return tuple(arcs)


RING_ARCS: Final[tuple[tuple[int, ...], ...]] = tuple(_ring_arcs(p) for p in range(64))
"""For each 6-bit pattern of open neighbours (bit d = direction d), its arcs."""


def column_letters(index: int) -> str:
    """Column label for a 0-based column: a..z, then aa, ab, ... (bijective base 26).

    >>> column_letters(0), column_letters(25), column_letters(26)
    ('a', 'z', 'aa')
    """
    letters = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(ord("a") + rem) + letters
    return letters


LAZY_ENTRIES_PER_CELL: Final = 48
"""A board's path and slide caches keep at most this many entries per cell, then start
afresh: Isola Nuova has about 39 slides per cell, so its tables fill once and
stay; only a large map with long lines (up to about 3 * 63 slides per cell) recomputes."""

SlidePath = tuple[int, int, int]
"""``(bitset of the cells passed over, dst included; direction; steps)`` of a slide."""


class Board:
    """Precomputed tables for one island map (shared by every state on that map).

    Attributes:
        map: the map it was built from.
        num_cells: N.
        coords: ``(q, r)`` per cell index.
        index: cell index per ``(q, r)``.
        landscapes: the map's landscapes; ``land[i]`` indexes into it.
        land: landscape index per cell.
        land_masks: bitset of the cells of each landscape.
        water_lands: bitset over landscape indices of the water landscapes.
        all_cells: bitset of every cell.
        neighbors: NEIGHBORS: the on-board neighbours of each cell, in direction order.
        neighbor_masks: the same as bitsets.
        next_cell: ``next_cell[d][i]``: the cell next to ``i`` in direction ``d``, or -1.
        rays: RAYS: ``rays[i][d]`` = the cells from ``i`` going in direction ``d``
            up to the board edge or a gap (not including ``i``); built when first
            asked for (:meth:`ray` gives one ray).
        paths, slide_moves: caches of :meth:`path` and :meth:`slide` by
            ``src * N + dst`` (filled on first use; a missing key is not yet computed,
            not necessarily absent).

    Every table is built in time and memory about linear in the number of cells (up to
    the map limits of ``mapfile``); the ray, path and slide tables, which would grow
    with cells times line length, are filled lazily.
        names: the notation name of each cell; ``name_index`` is the inverse.
        q_min, r_min: the offsets of column ``a`` and row ``1``.
    """

    __slots__ = (
        "_rays",
        "all_cells",
        "bin_format",
        "cell_range",
        "coords",
        "dry_landscapes",
        "index",
        "key",
        "land",
        "land_masks",
        "landscapes",
        "lattice_all",
        "lattice_bits",
        "lattice_cells",
        "lattice_land_masks",
        "lattice_near",
        "lattice_neighbors",
        "lattice_same_land",
        "lattice_shifts",
        "lattice_width",
        "line_all",
        "line_bits",
        "line_cells",
        "line_positions",
        "map",
        "name_index",
        "names",
        "neighbor_masks",
        "neighbors",
        "next_cell",
        "num_cells",
        "paths",
        "place_moves",
        "q_min",
        "r_min",
        "segments",
        "slide_moves",
        "stone_moves",
        "water_lands",
    )

    def __init__(self, island: IslandMap) -> None:
        self.map = island
        self.key: str = json.dumps(island.to_json(), sort_keys=True)
        cells = sorted(island.cells, key=lambda c: (c[1], c[0]))
        self.num_cells: int = len(cells)
        self.coords: tuple[tuple[int, int], ...] = tuple((q, r) for q, r, _ in cells)
        self.index: dict[tuple[int, int], int] = {h: i for i, h in enumerate(self.coords)}
        self.landscapes: tuple[Landscape, ...] = island.landscapes
        land_pos = {ls.id: i for i, ls in enumerate(island.landscapes)}
        self.land: tuple[int, ...] = tuple(land_pos[land] for _, _, land in cells)
        masks = [0] * len(self.landscapes)
        for i, land in enumerate(self.land):
            masks[land] |= 1 << i
        self.land_masks: tuple[int, ...] = tuple(masks)
        self.water_lands: int = sum(1 << i for i, ls in enumerate(self.landscapes) if ls.water)
        self.dry_landscapes: int = sum(1 for ls in self.landscapes if not ls.water)
        self.all_cells: int = (1 << self.num_cells) - 1
        self.cell_range: range = range(self.num_cells)
        self.bin_format: str = f"0{self.num_cells}b"
        self.q_min: int = min(q for q, _ in self.coords)
        self.r_min: int = min(r for _, r in self.coords)
        self.names: tuple[str, ...] = tuple(
            f"{column_letters(q - self.q_min)}{r - self.r_min + 1}" for q, r in self.coords
        )
        self.name_index: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        self._build_geometry()
        self._build_moves()
        self._build_lattice()
        self._build_lines()

    def _build_geometry(self) -> None:
        index = self.index
        self.next_cell: tuple[tuple[int, ...], ...] = tuple(
            tuple(index.get((q + dq, r + dr), -1) for q, r in self.coords) for dq, dr in DIRECTIONS
        )
        neighbors = [tuple(j for j in cells if j >= 0) for cells in zip(*self.next_cell, strict=True)]
        self.neighbors: tuple[tuple[int, ...], ...] = tuple(neighbors)
        self.neighbor_masks: tuple[int, ...] = tuple(sum(1 << j for j in ns) for ns in neighbors)
        self._rays: tuple[tuple[tuple[int, ...], ...], ...] | None = None

    def ray(self, cell: int, direction: int) -> tuple[int, ...]:
        """The cells from ``cell`` in ``direction`` up to the edge or a gap (``cell`` excluded)."""
        step = self.next_cell[direction]
        out = []
        cell = step[cell]
        while cell >= 0:
            out.append(cell)
            cell = step[cell]
        return tuple(out)

    @property
    def rays(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """``rays[i][d]``: :meth:`ray` for every cell and direction (built on first use)."""
        if self._rays is None:
            self._rays = tuple(tuple(self.ray(i, d) for d in range(NUM_DIRECTIONS)) for i in self.cell_range)
        return self._rays

    def _build_moves(self) -> None:
        # Imported here: moves.py (move generation) needs the board module first.
        from tabletop.games.terranova.moves import Place, Stone

        names = self.names
        n = self.num_cells
        self.place_moves: tuple[Place, ...] = tuple(Place(i, names[i]) for i in range(n))
        self.stone_moves: tuple[Stone, ...] = tuple(Stone(i, "#" + names[i]) for i in range(n))
        # Slides and their paths are made on first use (path_at, slide_at): there are N
        # times the line length of them, which would make building a large board cost
        # far more than its cell count.
        self.paths: dict[int, SlidePath] = {}
        self.slide_moves: dict[int, Slide] = {}

    def path_at(self, key: int) -> SlidePath | None:
        """:meth:`path` of ``src, dst = divmod(key, N)``; cached in :attr:`paths`."""
        path = self.paths.get(key)
        if path is not None:
            return path
        n = self.num_cells
        if not 0 <= key < n * n:
            return None
        src, dst = divmod(key, n)
        line = direction_between(self.coords[src], self.coords[dst])
        if line is None:
            return None
        direction, steps = line
        step = self.next_cell[direction]
        cell, mask = src, 0
        for _ in range(steps):
            cell = step[cell]
            if cell < 0:
                return None  # the line leaves the board (a gap or the coast) before dst
            mask |= 1 << cell
        path = (mask, direction, steps)
        if len(self.paths) >= LAZY_ENTRIES_PER_CELL * n:
            self.paths.clear()
        self.paths[key] = path
        return path

    def path(self, src: int, dst: int) -> SlidePath | None:
        """The straight path from cell ``src`` to cell ``dst``, or ``None`` if there is none.

        Returns:
            ``(bitset of the cells passed over, dst included; direction; steps)``, or
            ``None`` if ``dst`` is not in a straight line from ``src`` along cells of the
            board (``src == dst`` included).
        """
        return self.path_at(src * self.num_cells + dst)

    def slide_at(self, key: int) -> Slide | None:
        """:meth:`slide` of ``src, dst = divmod(key, N)``; cached in :attr:`slide_moves`."""
        move = self.slide_moves.get(key)
        if move is not None or self.path_at(key) is None:
            return move
        from tabletop.games.terranova.moves import Slide

        src, dst = divmod(key, self.num_cells)
        move = Slide(src, dst, f"{self.names[src]}-{self.names[dst]}")
        if len(self.slide_moves) >= LAZY_ENTRIES_PER_CELL * self.num_cells:
            self.slide_moves.clear()
        self.slide_moves[key] = move
        return move

    def slide(self, src: int, dst: int) -> Slide | None:
        """The slide from cell ``src`` to cell ``dst`` (the same object every time while
        cached), or ``None`` if ``dst`` is not in a straight line from ``src``."""
        return self.slide_at(src * self.num_cells + dst)

    def _build_lattice(self) -> None:
        # The lattice layout: cell (q, r) is bit (r - r_min) * W + (q - q_min), with one
        # always-empty padding column, so each direction is a fixed shift and a whole set
        # of cells moves one step with a single shift (bit-parallel slides and flood fills).
        width = max(q for q, _ in self.coords) - self.q_min + 2
        self.lattice_width: int = width
        positions = [(r - self.r_min) * width + (q - self.q_min) for q, r in self.coords]
        self.lattice_bits: tuple[int, ...] = tuple(1 << pos for pos in positions)
        cells = [-1] * (max(positions) + 1)
        for i, pos in enumerate(positions):
            cells[pos] = i
        self.lattice_cells: tuple[int, ...] = tuple(cells)
        self.lattice_all: int = sum(self.lattice_bits)
        # E, NE, NW, W, SW, SE as signed shifts of the lattice bit position
        self.lattice_shifts: tuple[int, ...] = tuple(dr * width + dq for dq, dr in DIRECTIONS)
        # Runs of consecutive cells that are consecutive in both layouts (row pieces).
        segments = []
        i = 0
        while i < self.num_cells:
            j = i
            while j + 1 < self.num_cells and positions[j + 1] == positions[j] + 1:
                j += 1
            segments.append((i, (1 << (j - i + 1)) - 1, positions[i]))
            i = j + 1
        self.segments: tuple[tuple[int, int, int], ...] = tuple(segments)
        self.lattice_land_masks: tuple[int, ...] = tuple(self.to_lattice(m) for m in self.land_masks)
        # Per cell: (direction bit, lattice bit) of each on-board neighbour, and the lattice
        # bitset of the neighbours of the same landscape (the scoring fast path).
        self.lattice_neighbors: tuple[tuple[tuple[int, int], ...], ...] = tuple(
            tuple(
                (1 << d, self.lattice_bits[self.index[(q + dq, r + dr)]])
                for d, (dq, dr) in enumerate(DIRECTIONS)
                if (q + dq, r + dr) in self.index
            )
            for q, r in self.coords
        )
        # Per cell: the lattice bitset of the cells at distance 1 or 2 (a local window in
        # which most stones' neighbours are seen to stay connected).
        self.lattice_near: tuple[int, ...] = tuple(
            sum(
                self.lattice_bits[j]
                for j in {k for n1 in self.neighbors[i] for k in (n1, *self.neighbors[n1])}
                if j != i
            )
            for i in range(self.num_cells)
        )
        self.lattice_same_land: tuple[int, ...] = tuple(
            sum(self.lattice_bits[j] for j in self.neighbors[i] if self.land[j] == self.land[i])
            for i in range(self.num_cells)
        )

    def _build_lines(self) -> None:
        # The lines layout: six copies of the board, copy d laid out line by line so that
        # one step in direction d is +1 bit, with a padding bit after every line and one
        # for every gap in a line.  Shifting a set of cells left by one moves every copy
        # a step in its own direction: all six directions of a slide in one operation.
        line_keys: tuple[Callable[[int, int], tuple[int, int]], ...] = (
            lambda q, r: (r, q),  # E
            lambda q, r: (q + r, -r),  # NE
            lambda q, r: (q, -r),  # NW
            lambda q, r: (r, -q),  # W
            lambda q, r: (q + r, r),  # SW
            lambda q, r: (q, r),  # SE
        )
        position = 1  # bit 0 is padding, so walking back along a line never goes below 0
        direction_positions: list[tuple[int, ...]] = []
        cells_at: dict[int, int] = {}
        for key in line_keys:
            lines: dict[int, list[tuple[int, int]]] = {}
            for i, (q, r) in enumerate(self.coords):
                line, along = key(q, r)
                lines.setdefault(line, []).append((along, i))
            positions = [0] * self.num_cells
            for line in sorted(lines):
                previous = None
                for along, i in sorted(lines[line]):
                    if previous is not None and along != previous + 1:
                        position += 1  # one padding bit for a gap, however wide
                    positions[i] = position
                    cells_at[position] = i
                    position += 1
                    previous = along
                position += 1  # the padding bit after the line
            direction_positions.append(tuple(positions))
        # At most 6 * 2N bits in all, whatever the shape of the map: the layout stays
        # small even for a sparse map with long gappy lines.
        self.line_positions: tuple[tuple[int, ...], ...] = tuple(direction_positions)
        self.line_bits: tuple[int, ...] = tuple(
            sum(1 << direction_positions[d][i] for d in range(NUM_DIRECTIONS)) for i in range(self.num_cells)
        )
        self.line_cells: tuple[int, ...] = tuple(cells_at.get(b, -1) for b in range(position))
        self.line_all: int = sum(self.line_bits)

    def to_lines(self, mask: int) -> int:
        """A cell bitset converted to the lines layout (all six copies)."""
        out = 0
        bits = self.line_bits
        while mask:
            low = mask & -mask
            out |= bits[low.bit_length() - 1]
            mask ^= low
        return out

    def to_lattice(self, mask: int) -> int:
        """A cell bitset converted to the lattice layout."""
        if not mask:
            return 0  # the empty board of every new game: nothing to convert
        out = 0
        for start, run, pos in self.segments:
            out |= ((mask >> start) & run) << pos
        return out

    def from_lattice(self, lattice: int) -> int:
        """A lattice bitset converted back to cell indices."""
        out = 0
        for start, run, pos in self.segments:
            out |= ((lattice >> pos) & run) << start
        return out

    def cells_of(self, mask: int) -> list[int]:
        """The cell indices whose bits are set in ``mask``, ascending."""
        return list(compress(self.cell_range, self.selector(mask)))

    def selector(self, mask: int) -> bytes:
        """One byte per cell, 1 where ``mask`` has the cell: for ``itertools.compress``."""
        return format(mask, self.bin_format)[::-1].encode("ascii").translate(_BITS)

    def lands_of(self, mask: int) -> int:
        """Bitset over landscape indices of the landscapes present in the cell set ``mask``."""
        lands = 0
        for i, lm in enumerate(self.land_masks):
            if mask & lm:
                lands |= 1 << i
        return lands

    @property
    def NEIGHBORS(self) -> tuple[tuple[int, ...], ...]:
        """The neighbour table: on-board neighbours of each cell in direction order."""
        return self.neighbors

    @property
    def RAYS(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """The ray table: ``RAYS[cell][direction]`` = cells in a line up to the edge or a gap."""
        return self.rays

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Board) and self.key == other.key)

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"<Board {self.map.id!r}: {self.num_cells} cells>"


MAX_CACHED_BOARDS: Final = 64
"""How many boards :func:`board_for` keeps (least recently used first out)."""
MAX_CACHED_CELLS: Final = 16 * MAX_CELLS
"""How many cells the boards that :func:`board_for` keeps may have together."""

_BOARDS: OrderedDict[str, Board] = OrderedDict()


def board_for(source: str | Mapping[str, Any] | IslandMap | None) -> Board:
    """The (cached) board of a built-in map id, a map JSON object or a map.

    ``None`` means the built-in map ``"isola"``.  A string is a built-in map id only,
    never a file name (:func:`~tabletop.games.terranova.mapfile.load_map`).  Boards are
    cached by the map's content, at most :data:`MAX_CACHED_BOARDS` of them with
    :data:`MAX_CACHED_CELLS` cells in all.

    Raises:
        MapError: if the map cannot be loaded (an unknown id, an invalid map object).
    """
    if source is None or isinstance(source, str):
        key = "id:" + (source if source is not None else "isola")
        board = _BOARDS.get(key)
        if board is None:
            island = load_map(source if source is not None else "isola")  # refuses unknown ids
    else:
        # Keyed by the validated map, not the object sent: notes and spelling do not count.
        island = source if isinstance(source, IslandMap) else parse_map(source)
        key = "obj:" + json.dumps(island.to_json(), sort_keys=True)
        board = _BOARDS.get(key)
    if board is None:
        board = Board(island)
        _BOARDS[key] = board
        while len(_BOARDS) > MAX_CACHED_BOARDS or sum(b.num_cells for b in _BOARDS.values()) > MAX_CACHED_CELLS:
            _BOARDS.popitem(last=False)
    else:
        _BOARDS.move_to_end(key)
    return board


# ---------------------------------------------------------------------------------
# Bitset helpers.  Cell bitsets use board indices; "lattice" bitsets use the board's
# padded layout (above), where one shift moves a whole set of cells one step.


def spread(cells: int, width: int) -> int:
    """Every lattice cell next to one of ``cells`` (padding bits included)."""
    return (
        (cells << 1)
        | (cells >> 1)
        | (cells << width)
        | (cells >> width)
        | (cells << (width - 1))
        | (cells >> (width - 1))
    )


def bit_indices(mask: int) -> list[int]:
    """The indices of the set bits of ``mask``, ascending (cells of a cell bitset)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def flood_fill(seed: int, allowed: int, width: int) -> int:
    """The lattice cells of ``allowed`` connected to ``seed`` (``seed`` included)."""
    reached = frontier = seed & allowed
    while frontier:
        frontier = spread(frontier, width) & allowed & ~reached
        reached |= frontier
    return reached
