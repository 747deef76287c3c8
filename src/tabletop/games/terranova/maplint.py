"""``map lint``: checks a map against the requirements for shipped maps (spec §2.3, M1-M8).

The loader (:mod:`tabletop.games.terranova.mapfile`) only rejects maps that cannot be
played at all (V1-V4).  The checks here are stricter and apply to the maps we ship: size,
a round outline, eight compact landscapes, an inland lake, enough borders and junctions,
no narrow necks and a sensible width.  Each check reports the figures it measured, so the
``tabletop map lint`` output doubles as a description of the map.

Coordinates are axial ``(q, r)`` as everywhere in Terra Nova; distances in the plane use
the pointy-top layout ``x = √3·(q + r/2)``, ``y = 1.5·r`` (hex size 1), in which
``x² + y² = 3·(q² + qr + r²)``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tabletop.games.terranova.mapfile import AXIAL_DIRECTIONS, IslandMap, MapError, parse_map

Coord = tuple[int, int]

TARGET_CELLS = 168
CELL_RANGE = (160, 176)
LANDSCAPE_IDS = ("F", "M", "A", "P", "S", "H", "R", "L")
LAKE_ID = "L"
MAX_STRAND = 2
LAKE_MIN_BORDERS = 4
BORDERS_RANGE = (3, 5)
MIN_JUNCTIONS = 6
MIN_COASTAL = 3
CUT_SIZE = 3
POCKET_SIZE = 10
MAX_POCKET_CUTS = 250_000
"""M7 is not measured when it would try more candidate cuts than this (about 17,500 for a
168-cell island; a map that is mostly coast has coastal cells cubed): it fails instead."""
WIDTH_RANGE = (14, 16)
# Coastal cells of a round island all lie at about the same distance from its centre; the
# suggested 168-cell disc has a ratio of about 1.15 (a pointy hexagon has the same), a long
# or lopsided island far more.  "Not a hexagon" is checked separately.
MAX_RADIUS_RATIO = 1.3
# "Not centred": the lake's centroid must be at least one cell step (√3 at size 1) away
# from the island's centroid.
MIN_LAKE_OFFSET = math.sqrt(3)

CHECKS: tuple[tuple[str, str], ...] = (
    ("M1", "size"),
    ("M2", "outline: round, connected, no holes, every cell has 3+ neighbours"),
    ("M3", "landscapes F M A P S H R L, only L is water"),
    ("M4", "regions: one compact patch of 21 cells per landscape"),
    ("M5", "lake: inland, touches 4+ landscapes, not centred"),
    ("M6", "borders: land borders 3-5 others, 6+ junctions, land has 3+ coastal cells"),
    ("M7", "no pocket of 10+ cells cut off by 3 or fewer cells"),
    ("M8", "widest line 14-16 cells; passes V1-V4"),
)
"""Every check as ``(rule, title)``, in the order they run and are printed."""


@dataclass(frozen=True, slots=True)
class LintIssue:
    """One failed requirement.

    Attributes:
        rule: the requirement's id, ``"M1"`` to ``"M8"``.
        message: what is wrong, naming the cells or landscapes involved.
    """

    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.message}"


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The outcome of one check.

    Attributes:
        rule: ``"M1"`` to ``"M8"``.
        title: what the rule requires, in a few words.
        figures: what was measured (e.g. ``"168 cells"``), shown whether or not it passed.
        issues: the problems found; empty when the check passed.
    """

    rule: str
    title: str
    figures: str
    issues: tuple[LintIssue, ...]

    @property
    def passed(self) -> bool:
        """Whether the map meets this requirement."""
        return not self.issues


def lint_map(island_map: IslandMap) -> list[LintIssue]:
    """Checks a map against M1-M8 (spec §2.3).

    Args:
        island_map: a map that already passed the loader (V1-V4).

    Returns:
        Every problem found, in rule order; empty if the map meets all requirements.
    """
    return [issue for result in check_map(island_map) for issue in result.issues]


def check_map(island_map: IslandMap) -> tuple[CheckResult, ...]:
    """Runs every check of :data:`CHECKS` and reports each one with its figures.

    Args:
        island_map: a map that already passed the loader (V1-V4).

    Returns:
        One :class:`CheckResult` per rule, in the order of :data:`CHECKS`.
    """
    geo = _Geometry(island_map)
    checks = (
        _check_size,
        _check_outline,
        _check_landscapes,
        _check_regions,
        _check_lake,
        _check_borders,
        _check_pockets,
        _check_sanity,
    )
    results = []
    for (rule, title), check in zip(CHECKS, checks, strict=True):
        figures, messages = check(geo)
        results.append(CheckResult(rule, title, figures, tuple(LintIssue(rule, m) for m in messages)))
    return tuple(results)


# --- geometry -------------------------------------------------------------------------


class _Geometry:
    """Everything the checks share: neighbours, coast, regions and a bitset board."""

    def __init__(self, island_map: IslandMap) -> None:
        self.map = island_map
        self.land: dict[Coord, str] = {(q, r): land for q, r, land in island_map.cells}
        self.cells: tuple[Coord, ...] = tuple(self.land)
        self.neighbors: dict[Coord, tuple[Coord, ...]] = {
            c: tuple(n for n in _ring(c) if n in self.land) for c in self.cells
        }
        # A cell is coastal when one of its six sides is the board edge.
        self.coastal: frozenset[Coord] = frozenset(c for c in self.cells if len(self.neighbors[c]) < 6)
        self.water: frozenset[str] = frozenset(ls.id for ls in island_map.landscapes if ls.water)
        self.regions: dict[str, list[Coord]] = {ls.id: [] for ls in island_map.landscapes}
        for c, land in self.land.items():
            self.regions[land].append(c)
        self.centroid = _centroid(self.cells)

        # Bitset board for fast flood fills (M7): bit (r - rmin) * width + (q - qmin).  The
        # row width has one spare column, so shifting off a row's end lands on no cell.
        qs = [q for q, _ in self.cells]
        rs = [r for _, r in self.cells]
        self._qmin, self._rmin = min(qs), min(rs)
        self._width = max(qs) - self._qmin + 2
        self.bit: dict[Coord, int] = {c: 1 << self._index(c) for c in self.cells}
        self.mask = sum(self.bit.values())

    def _index(self, cell: Coord) -> int:
        return (cell[1] - self._rmin) * self._width + (cell[0] - self._qmin)

    def flood(self, seed: int, allowed: int) -> int:
        """The cells of ``allowed`` connected to the cells of ``seed`` (both bitsets)."""
        w = self._width
        reached = seed
        while True:
            grown = (
                reached
                | reached << 1
                | reached >> 1
                | reached << w
                | reached >> w
                | reached << (w - 1)
                | reached >> (w - 1)
            ) & allowed
            if grown == reached:
                return reached
            reached = grown

    def components(self, cells: Iterable[Coord]) -> list[list[Coord]]:
        """Connected components of a set of board cells, largest first."""
        todo = set(cells)
        parts = []
        while todo:
            start = todo.pop()
            part, stack = [start], [start]
            while stack:
                for n in self.neighbors[stack.pop()]:
                    if n in todo:
                        todo.remove(n)
                        part.append(n)
                        stack.append(n)
            parts.append(part)
        return sorted(parts, key=len, reverse=True)

    def region_borders(self) -> dict[str, set[str]]:
        """For each landscape, the other landscapes it shares a cell side with."""
        borders: dict[str, set[str]] = {land: set() for land in self.regions}
        for c, land in self.land.items():
            for n in self.neighbors[c]:
                if self.land[n] != land:
                    borders[land].add(self.land[n])
        return borders


def _ring(cell: Coord) -> Iterator[Coord]:
    q, r = cell
    for dq, dr in AXIAL_DIRECTIONS:
        yield (q + dq, r + dr)


def _pixel(cell: Coord) -> tuple[float, float]:
    q, r = cell
    return math.sqrt(3) * (q + r / 2), 1.5 * r


def _centroid(cells: Iterable[Coord]) -> tuple[float, float]:
    points = [_pixel(c) for c in cells]
    return sum(x for x, _ in points) / len(points), sum(y for _, y in points) / len(points)


def _fmt(cells: Iterable[Coord], limit: int = 6) -> str:
    ordered = sorted(cells, key=lambda c: (c[1], c[0]))
    text = " ".join(f"({q},{r})" for q, r in ordered[:limit])
    return text + (f" and {len(ordered) - limit} more" if len(ordered) > limit else "")


def _hex_distance(a: Coord, b: Coord) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


Check = tuple[str, list[str]]


# --- M1 to M8 -------------------------------------------------------------------------


def _check_size(geo: _Geometry) -> Check:
    n = len(geo.cells)
    lo, hi = CELL_RANGE
    problems = [] if lo <= n <= hi else [f"{n} cells; the map needs {TARGET_CELLS} ({lo}-{hi} at a pinch)"]
    return f"{n} cells (target {TARGET_CELLS})", problems


def _check_outline(geo: _Geometry) -> Check:
    problems = []
    parts = geo.components(geo.cells)
    if len(parts) > 1:
        problems.append(f"the island is in {len(parts)} pieces; cut off: {_fmt(c for p in parts[1:] for c in p)}")
    holes = _holes(geo)
    if holes:
        problems.append(f"{len(holes)} missing cell(s) inside the island (holes): {_fmt(holes)}")
    spurs = [c for c in geo.cells if len(geo.neighbors[c]) < 3]
    if spurs:
        problems.append(f"{len(spurs)} cell(s) with fewer than 3 neighbours (spurs): {_fmt(spurs)}")
    cx, cy = geo.centroid
    radii = [math.dist(_pixel(c), (cx, cy)) for c in geo.coastal]
    ratio = max(radii) / max(min(radii), 1e-9)
    if ratio > MAX_RADIUS_RATIO:
        problems.append(
            f"not round: coastal cells lie {min(radii):.1f} to {max(radii):.1f} from the centre "
            f"(ratio {ratio:.2f}, at most {MAX_RADIUS_RATIO})"
        )
    if _is_hexagon(geo):
        problems.append("the outline is a regular hexagon; it should be roughly circular")
    figures = f"{len(geo.coastal)} coastal cells, radius ratio {ratio:.2f}, {len(holes)} holes, {len(spurs)} spurs"
    return figures, problems


def _holes(geo: _Geometry) -> set[Coord]:
    """Off-board positions enclosed by the island (not reachable from the open sea)."""
    qs = [q for q, _ in geo.cells]
    rs = [r for _, r in geo.cells]
    q0, q1, r0, r1 = min(qs) - 1, max(qs) + 1, min(rs) - 1, max(rs) + 1
    sea = {(q, r) for q in range(q0, q1 + 1) for r in range(r0, r1 + 1) if (q, r) not in geo.land}
    # The frame around the bounding box is all sea, so flooding from one frame cell
    # reaches every position connected to the open sea.
    start = (q0, r0)
    reached, stack = {start}, [start]
    while stack:
        for n in _ring(stack.pop()):
            if n in sea and n not in reached:
                reached.add(n)
                stack.append(n)
    return sea - reached


def _is_hexagon(geo: _Geometry) -> bool:
    n = len(geo.cells)
    radius = round((math.sqrt(12 * n - 3) - 3) / 6)
    if 3 * radius * (radius + 1) + 1 != n:
        return False
    # A regular hexagon's centre is the one cell at distance `radius` from every corner.
    return any(all(_hex_distance(c, centre) <= radius for c in geo.cells) for centre in geo.cells)


def _check_landscapes(geo: _Geometry) -> Check:
    problems = []
    ids = [ls.id for ls in geo.map.landscapes]
    missing = [i for i in LANDSCAPE_IDS if i not in ids]
    extra = [i for i in ids if i not in LANDSCAPE_IDS]
    if missing:
        problems.append(f"missing landscape(s): {' '.join(missing)}")
    if extra:
        problems.append(f"unexpected landscape(s): {' '.join(extra)} (the ids are {' '.join(LANDSCAPE_IDS)})")
    for ls in geo.map.landscapes:
        if ls.id == LAKE_ID and not ls.water:
            problems.append(f"landscape {LAKE_ID} ({ls.name}) must be water")
        if ls.id != LAKE_ID and ls.water:
            problems.append(f"landscape {ls.id} ({ls.name}) is water; only the lake {LAKE_ID} may be")
    patterns = [ls.pattern for ls in geo.map.landscapes]
    if len(set(patterns)) != len(patterns) or "" in patterns:
        problems.append("every landscape needs its own pattern name, so colour is never the only cue")
    return f"{len(ids)} landscapes: {' '.join(ids)}", problems


def _check_regions(geo: _Geometry) -> Check:
    problems = []
    n = len(geo.cells)
    per = len(geo.cells) / max(len(geo.regions), 1)
    lo, hi = (21, 21) if n == TARGET_CELLS else (19, 23)
    longest = 0
    for land, cells in geo.regions.items():
        if not lo <= len(cells) <= hi:
            problems.append(f"landscape {land} has {len(cells)} cells, needs {lo if lo == hi else f'{lo}-{hi}'}")
        parts = geo.components(cells)
        if len(parts) > 1:
            problems.append(
                f"landscape {land} is in {len(parts)} patches; stray cells: {_fmt(c for p in parts[1:] for c in p)}"
            )
        for strand in _strands(geo, cells):
            longest = max(longest, len(strand))
            if len(strand) > MAX_STRAND:
                problems.append(f"landscape {land} has a one-cell-wide strand of {len(strand)} cells: {_fmt(strand)}")
    figures = f"sizes {' '.join(f'{k}{len(v)}' for k, v in geo.regions.items())} (mean {per:.1f}), "
    return figures + f"longest strand {longest}", problems


def _strands(geo: _Geometry, cells: list[Coord]) -> list[list[Coord]]:
    """The one-cell-wide strands of a region.

    A cell is thin when it is in no triangle of three mutually adjacent cells of its
    region: it has at most a single-file path through it.  A strand is a connected run of
    thin cells.
    """
    region = set(cells)
    thin = []
    for c in cells:
        inside = [n for n in geo.neighbors[c] if n in region]
        if not any(b in geo.neighbors[a] for a, b in itertools.combinations(inside, 2)):
            thin.append(c)
    return geo.components(thin)


def _check_lake(geo: _Geometry) -> Check:
    lake = [c for c, land in geo.land.items() if land in geo.water]
    if not lake:
        return "no lake", ["the map has no water landscape (lake)"]
    problems = []
    coastal = [c for c in lake if c in geo.coastal]
    if coastal:
        problems.append(f"the lake reaches the coast at {_fmt(coastal)}")
    touching = sorted({geo.land[n] for c in lake for n in geo.neighbors[c]} - geo.water)
    if len(touching) < LAKE_MIN_BORDERS:
        problems.append(f"the lake touches only {len(touching)} landscapes ({' '.join(touching)}), needs 4")
    offset = math.dist(_centroid(lake), geo.centroid)
    if offset < MIN_LAKE_OFFSET:
        problems.append(
            f"the lake is centred on the island's middle (offset {offset / math.sqrt(3):.2f} cells, needs 1+)"
        )
    return f"touches {len(touching)} ({' '.join(touching)}), offset {offset / math.sqrt(3):.1f} cells", problems


def _check_borders(geo: _Geometry) -> Check:
    problems = []
    borders = geo.region_borders()
    lo, hi = BORDERS_RANGE
    for land, others in borders.items():
        # The lake is held to M5 (4+) only: on an island without holes whose land all
        # reaches the coast, a land patch that misses the lake borders just its two
        # neighbours along the coast, so the lake must touch all seven (docs/maps.md).
        if land not in geo.water and not lo <= len(others) <= hi:
            problems.append(
                f"landscape {land} borders {len(others)} others ({' '.join(sorted(others))}), needs {lo}-{hi}"
            )
    junctions = _junctions(geo)
    if len(junctions) < MIN_JUNCTIONS:
        problems.append(f"only {len(junctions)} places where three landscapes meet, needs {MIN_JUNCTIONS}")
    coast = {land: sum(1 for c in cells if c in geo.coastal) for land, cells in geo.regions.items()}
    for land, count in coast.items():
        if land not in geo.water and count < MIN_COASTAL:
            problems.append(f"landscape {land} has {count} coastal cells, needs {MIN_COASTAL}")
    figures = (
        f"borders {' '.join(f'{k}{len(v)}' for k, v in borders.items())}, {len(junctions)} junctions, "
        f"coastal {' '.join(f'{k}{v}' for k, v in coast.items() if k not in geo.water)}"
    )
    return figures, problems


def _junctions(geo: _Geometry) -> list[tuple[Coord, Coord, Coord]]:
    """Corners where three cells of three different landscapes meet."""
    found = []
    for a in geo.cells:
        # Every inner corner is a triangle of three cells.  Seen from its three cells it is
        # (E, NE), (NW, W) and (SW, SE), or (NE, NW), (W, SW) and (SE, E); taking only the
        # first pair of each kind visits every corner exactly once.
        for d1, d2 in ((AXIAL_DIRECTIONS[0], AXIAL_DIRECTIONS[1]), (AXIAL_DIRECTIONS[1], AXIAL_DIRECTIONS[2])):
            b = (a[0] + d1[0], a[1] + d1[1])
            c = (a[0] + d2[0], a[1] + d2[1])
            if b in geo.land and c in geo.land and len({geo.land[a], geo.land[b], geo.land[c]}) == 3:
                found.append((a, b, c))
    return found


def _check_pockets(geo: _Geometry) -> Check:
    candidates = _count_cuts(geo)
    if candidates > MAX_POCKET_CUTS:
        return (
            f"not measured: {candidates:,} candidate cuts",
            [
                f"too many candidate cuts to check ({candidates:,}, at most {MAX_POCKET_CUTS:,}): the map is too big "
                "or has too much coast for a shipped map"
            ],
        )
    worst_size, worst_cut = _worst_pocket(geo)
    problems = []
    if worst_size >= POCKET_SIZE:
        problems.append(
            f"removing {len(worst_cut)} cell(s) {_fmt(worst_cut)} cuts off a part of {worst_size} cells "
            f"(at most {POCKET_SIZE - 1} allowed)"
        )
    if worst_size:
        figures = f"largest part cut off by <= {CUT_SIZE} cells: {worst_size} (by {_fmt(worst_cut)})"
    else:
        figures = f"no set of <= {CUT_SIZE} cells disconnects the island"
    return figures, problems


def _count_cuts(geo: _Geometry) -> int:
    """An upper bound on the number of cuts :func:`_worst_pocket` tries, without listing them."""
    coast = len(geo.coastal)
    total = 0
    for b in geo.cells:
        inland = sum(1 for n in geo.neighbors[b] if n not in geo.coastal)
        linked = inland + (coast - 1 if b in geo.coastal else len(geo.neighbors[b]) - inland)
        total += 1 + linked + linked * (linked - 1) // 2
    return total


def _worst_pocket(geo: _Geometry) -> tuple[int, tuple[Coord, ...]]:
    """The largest part that removing at most CUT_SIZE cells cuts off, and that cut.

    "Cut off" means any piece other than the largest one left.  Only cuts whose cells are
    linked to each other (sharing a side, or both touching the sea) need to be tried: a
    cut that separates two parts runs along a closed curve from cell to cell, and between
    two consecutive cells the curve either crosses their common side or goes round
    through the sea (or a hole, whose rim cells count as coastal).  If a cut separates a
    piece, shrinking it to the cells that touch both that piece and another piece of at
    least its size keeps the separation, and such a cut is of that linked kind.  That
    shrinks the search from every triple of cells (780,000 for 168 cells) to about
    17,500 sets, each tested with a bitset flood fill.
    """
    linked: dict[Coord, set[Coord]] = {c: set(geo.neighbors[c]) for c in geo.cells}
    for a, b in itertools.combinations(sorted(geo.coastal), 2):
        linked[a].add(b)
        linked[b].add(a)
    cuts: set[tuple[Coord, ...]] = set()
    for b in geo.cells:
        cuts.add((b,))
        for a in linked[b]:
            if a < b:
                cuts.add((a, b))
        if CUT_SIZE >= 3:
            for a, c in itertools.combinations(sorted(linked[b]), 2):
                cuts.add(tuple(sorted((a, b, c))))
    worst_size = 0
    worst_cut: tuple[Coord, ...] = ()
    for cut in cuts:
        remaining = geo.mask
        for c in cut:
            remaining &= ~geo.bit[c]
        sizes = []
        while remaining:
            piece = geo.flood(remaining & -remaining, remaining)
            sizes.append(piece.bit_count())
            remaining &= ~piece
        if len(sizes) > 1:
            cut_off = sorted(sizes, reverse=True)[1]
            if cut_off > worst_size or (cut_off == worst_size and len(cut) < len(worst_cut)):
                worst_size, worst_cut = cut_off, cut
    return worst_size, worst_cut


def _check_sanity(geo: _Geometry) -> Check:
    problems = []
    width, line = _widest_line(geo)
    lo, hi = WIDTH_RANGE
    if not lo <= width <= hi:
        problems.append(f"the widest straight line {_fmt(line, 2)}... is {width} cells, needs {lo}-{hi}")
    try:
        parse_map(geo.map.to_json())
    except MapError as exc:
        problems.append(f"fails the loader's checks: {exc}")
    return f"widest line {width} cells", problems


def _widest_line(geo: _Geometry) -> tuple[int, list[Coord]]:
    """The longest run of consecutive cells along one of the three grid axes."""
    best: list[Coord] = []
    for dq, dr in AXIAL_DIRECTIONS[:3]:
        for c in geo.cells:
            if (c[0] - dq, c[1] - dr) in geo.land:
                continue  # not the start of a run
            run = [c]
            while (nxt := (run[-1][0] + dq, run[-1][1] + dr)) in geo.land:
                run.append(nxt)
            if len(run) > len(best):
                best = run
    return len(best), best


@dataclass(frozen=True, slots=True)
class LintReport:
    """What ``tabletop map lint`` prints, and its exit status.

    Attributes:
        lines: the report, one check a line (problems indented below it).
        status: 0 when every check passes, 1 when one fails, 2 when the map does not load.
    """

    lines: tuple[str, ...]
    status: int


def lint(data: Mapping[str, Any], source: str) -> LintReport:
    """Loads ``data`` (a map object) with the loader's checks V1-V4, then runs M1-M8.

    Args:
        data: the parsed map.
        source: how the user named it (a file or a built-in id), for the report.
    """
    try:
        island = parse_map(data)
    except MapError as exc:
        lines = [f"FAIL  V1-V4 the map does not load: {source}", *(f"        {p}" for p in exc.problems)]
        return LintReport(tuple(lines), 2)
    lines = [
        f"Map {island.id!r} ({island.name}): {len(island.cells)} cells, {len(island.landscapes)} landscapes",
        "pass  V1-V4 the loader's checks",
    ]
    results = check_map(island)
    for result in results:
        lines.append(f"{'pass' if result.passed else 'FAIL'}  {result.rule} {result.title}: {result.figures}")
        lines += [f"        {issue.message}" for issue in result.issues]
    failed = [r.rule for r in results if not r.passed]
    if failed:
        lines.append(f"{len(failed)} of {len(results)} checks failed: {' '.join(failed)}")
        return LintReport(tuple(lines), 1)
    lines.append(f"All {len(results)} checks passed.")
    return LintReport(tuple(lines), 0)
