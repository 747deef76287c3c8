"""Terra Nova zones and scoring (spec §4).

A zone (§4.1) is a connected set of open cells (neither stone nor scored); an area is a
zone with at most 3 counted landscapes (:func:`landscape_count`, rule A2).  After a stone
(``scoring_timing=immediate``) :func:`parts_after_stone` finds the areas it created
without walking the whole board; :func:`score_parts` scores and closes them (§4.3-4.4)
and records each as a :class:`ScoredArea`.  :func:`zones` lists every zone (end-of-turn
scoring, heuristics).  The flood fills work in the board's lattice layout (``board.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tabletop.core.errors import count_of
from tabletop.games.terranova.board import RING_ARCS, Board, bit_indices, flood_fill, spread
from tabletop.games.terranova.ruleset import RuleSet

if TYPE_CHECKING:
    from tabletop.games.terranova.state import State


@dataclass(frozen=True, slots=True)
class ScoredArea:
    """An area scored and closed (spec §4.3-4.4).

    Attributes:
        cells: the area's cell indices, ascending.
        landscapes: the landscape ids present, in map order.
        t: landscapes counted for the value (differs from ``len(landscapes)`` only with
            ``lake_is_landscape=false``).
        value: V = n × (4 − t).
        counts: pioneers per seat in the area when it was scored (all removed).
        awards: points given to each seat.
        turn: the turn in which it was scored.
    """

    cells: tuple[int, ...]
    landscapes: tuple[str, ...]
    t: int
    value: int
    counts: tuple[int, ...]
    awards: tuple[int, ...]
    turn: int

    @property
    def size(self) -> int:
        """n: the number of cells."""
        return len(self.cells)


def landscape_count(board: Board, rules: RuleSet, lands: int) -> int:
    """t(Z) for a zone whose landscape-index bitset is ``lands`` (A2 aware)."""
    if rules.lake_is_landscape:
        return lands.bit_count()
    t = (lands & ~board.water_lands).bit_count()
    return t if t or not lands else 1  # a lake-only area counts as one landscape


def _lattice_lands(board: Board, lattice: int) -> int:
    lands = 0
    for i, mask in enumerate(board.lattice_land_masks):
        if lattice & mask:
            lands |= 1 << i
    return lands


def zones(board: Board, open_cells: int) -> list[int]:
    """The zones (§4.1) of a set of open cells, each as a cell bitset, by lowest cell."""
    out = []
    remaining = board.to_lattice(open_cells)
    while remaining:
        zone = flood_fill(remaining & -remaining, remaining, board.lattice_width)
        out.append(board.from_lattice(zone))
        remaining &= ~zone
    out.sort(key=lambda zone: zone & -zone)
    return out


def parts_after_stone(board: Board, rules: RuleSet, x: int, open_after: int) -> list[int]:
    """The parts of x's old zone to score after a stone on ``x`` (§4.2), as cell bitsets.

    ``open_after`` is the lattice bitset of open cells after the stone.  Relies on the
    invariant that every unscored zone had t ≥ 4 before the stone (with
    ``score_on_type_reduction``), so it stops exploring a part as soon as that part is
    known to stay open ground.  Several parts grow at once, one layer each, so a small
    enclosed part is found without walking the big one.
    """
    pattern = 0
    neighbors = board.lattice_neighbors[x]
    for direction_bit, bit in neighbors:
        if open_after & bit:
            pattern |= direction_bit
    arcs = RING_ARCS[pattern]
    if not arcs:
        return []
    reduce_types = rules.score_on_type_reduction
    # The invariant "t(Z0) ≥ 4" needs type reduction on and a starting board of ≥ 4
    # counted landscapes (only a map with < 4 dry landscapes and lake_is_landscape=false
    # starts as one scorable area).
    invariant = reduce_types and (rules.lake_is_landscape or board.dry_landscapes >= 4)
    if len(arcs) == 1 and (not reduce_types or (invariant and open_after & board.lattice_same_land[x])):
        # Not split, and x's landscape is still in the zone: t is unchanged (≥ 4).
        return []
    seeds = []
    for arc in arcs:
        seed = 0
        for direction_bit, bit in neighbors:
            if arc & direction_bit:
                seed |= bit
        seeds.append(seed)
    w = board.lattice_width
    x_land_cells = board.lattice_land_masks[board.land[x]]
    # Look near x first: usually the open neighbours join up around the adjacent stones
    # within two steps, and x's landscape shows up there too.
    window = board.lattice_near[x] & open_after
    near = frontier = seeds[0]
    while frontier:
        frontier = spread(frontier, w) & window & ~near
        near |= frontier
    if all(seed & near for seed in seeds):
        if not reduce_types or (invariant and near & x_land_cells):
            return []
        return _explore_one_part(board, rules, near, open_after, x_land_cells if invariant else 0)
    if len(seeds) == 1:
        return _explore_one_part(board, rules, seeds[0], open_after, x_land_cells if invariant else 0)
    # Parts that the window already joined grow as one.
    seeds = [near] + [seed for seed in seeds if not seed & near]
    if len(seeds) == 2:
        return _two_parts(board, rules, seeds[0], seeds[1], open_after, x_land_cells if invariant else 0)
    groups: list[list[int]] = [[seed, seed] for seed in seeds]  # [reached, frontier] per growing part
    while True:
        active = [g for g in groups if g[1]]
        if not active:
            break
        if len(groups) == 1:
            if not reduce_types:
                return []
            return _explore_one_part(board, rules, groups[0][0], open_after, x_land_cells if invariant else 0)
        if len(active) == 1 and not _is_area(board, rules, active[0][0]):
            # Split for sure (the others are complete parts); the big part stays open ground.
            return [board.from_lattice(g[0]) for g in groups if not g[1] and _is_area(board, rules, g[0])]
        for group in active:
            if not any(g is group for g in groups):
                continue  # merged into another group earlier in this round
            frontier = group[1]
            reached = group[0]
            frontier = spread(frontier, w) & open_after & ~reached
            group[0] = reached = reached | frontier
            group[1] = frontier
            merged = [g for g in groups if g is not group and g[0] & reached]
            if merged:
                for other in merged:
                    group[0] |= other[0]
                    group[1] |= other[1]
                groups = [g for g in groups if not any(g is m for m in merged)]
    return [board.from_lattice(g[0]) for g in groups if _is_area(board, rules, g[0])]


def _two_parts(board: Board, rules: RuleSet, a: int, b: int, open_after: int, stop_cells: int) -> list[int]:
    """The areas to score when x's open neighbours form two groups ``a`` and ``b``.

    Both grow a layer at a time.  If they meet, it is one part (as
    :func:`_explore_one_part`); if one of them stops growing first, the zone is split.
    """
    w = board.lattice_width
    a_new, b_new = a, b
    while True:
        a_new = spread(a_new, w) & open_after & ~a
        a |= a_new
        if a & b:
            break
        b_new = spread(b_new, w) & open_after & ~b
        b |= b_new
        if a & b:
            break
        if not a_new or not b_new:
            # Split: one part is complete; finish the other (it may be an area too).
            done, other = (a, b) if not a_new else (b, a)
            parts = [board.from_lattice(done)] if _is_area(board, rules, done) else []
            return parts + _explore_one_part(board, rules, other, open_after, 0)
    if not rules.score_on_type_reduction:
        return []
    return _explore_one_part(board, rules, a | b, open_after, stop_cells)


def _explore_one_part(board: Board, rules: RuleSet, reached: int, open_after: int, stop_cells: int) -> list[int]:
    """Grows the single part containing ``reached``: ``[]`` once it is known to stay open
    ground (it touches ``stop_cells``, or shows 4 landscapes), else the complete area."""
    w = board.lattice_width
    unseen = list(board.lattice_land_masks)
    seen = 0
    frontier = reached
    count_water = rules.lake_is_landscape
    water = board.water_lands
    while True:
        if reached & stop_cells:
            return []
        found = [i for i, mask in enumerate(unseen) if mask and frontier & mask]
        if found:
            for i in found:
                unseen[i] = 0
                seen |= 1 << i
            t = seen.bit_count() if count_water else (seen & ~water).bit_count()
            if t >= 4:
                return []
        frontier = spread(frontier, w) & open_after & ~reached
        if not frontier:
            return [board.from_lattice(reached)]
        reached |= frontier


def _is_area(board: Board, rules: RuleSet, lattice: int) -> bool:
    """Whether a zone (lattice bitset) has at most 3 counted landscapes."""
    return landscape_count(board, rules, _lattice_lands(board, lattice)) <= 3


def score_parts(
    board: Board,
    rules: RuleSet,
    parts: list[int],
    pioneers: tuple[int, ...],
    closed: int,
    points: tuple[int, ...],
    removed: tuple[int, ...],
    areas: tuple[ScoredArea, ...],
    turn: int,
) -> tuple[tuple[int, ...], int, tuple[int, ...], tuple[int, ...], tuple[ScoredArea, ...]]:
    """Scores and closes each area in ``parts`` (§4.3-4.4)."""
    pioneer_list = list(pioneers)
    point_list = list(points)
    removed_list = list(removed)
    new_areas = list(areas)
    for cells in parts:
        lands = board.lands_of(cells)
        t = landscape_count(board, rules, lands)
        value = cells.bit_count() * (4 - t)
        counts = tuple((own & cells).bit_count() for own in pioneer_list)
        top = max(counts)
        awards = [0] * len(counts)
        if top:
            leaders = [p for p, c in enumerate(counts) if c == top]
            share = value // len(leaders)
            for p in leaders:
                awards[p] = share
                point_list[p] += share
        for p, c in enumerate(counts):
            if c:
                pioneer_list[p] &= ~cells
                removed_list[p] += c
        closed |= cells
        landscape_ids = tuple(ls.id for i, ls in enumerate(board.landscapes) if lands >> i & 1)
        new_areas.append(ScoredArea(tuple(bit_indices(cells)), landscape_ids, t, value, counts, tuple(awards), turn))
    return tuple(pioneer_list), closed, tuple(point_list), tuple(removed_list), tuple(new_areas)


def describe_score(state: State) -> str:
    """Per-seat scores and every scored area: size, landscapes, value and who got what."""
    context = state.context
    board = context.board
    lines = []
    for p, points in enumerate(state.points):
        on_board = count_of(state.pioneers[p].bit_count(), "pioneer")
        lines.append(
            f"{context.seat_colors[p]:<7} {points:>4} points  ({on_board} on the board, {state.removed[p]} removed)"
        )
    if not state.areas:
        lines.append("No area scored yet.")
    for k, area in enumerate(state.areas, start=1):
        awards = ", ".join(f"{context.seat_colors[p]} +{a}" for p, a in enumerate(area.awards) if a) or "nobody scores"
        holders = ", ".join(f"{context.seat_colors[p]} {c}" for p, c in enumerate(area.counts) if c) or "no pioneers"
        first = board.names[area.cells[0]]
        size = count_of(area.size, "cell")
        lines.append(
            f"area {k} (turn {area.turn}, at {first}): {size}, landscapes {''.join(area.landscapes)} "
            f"(t={area.t}), value {area.value}; pioneers: {holders}; {awards}"
        )
    # The winners and the end reason are said once, by whoever shows the game's end (the
    # terminal names the players; the web page words the reason in the player's language).
    return "\n".join(lines)


def score_sheet(state: State) -> dict[str, Any]:
    """The data of :func:`describe_score` as tables the web client translates.

    Each table has a ``caption`` and ``headers`` (i18n keys) and ``rows`` of cells: a
    number, plain text (cell names, landscape letters), ``{"seat": p}`` (shown by the
    player's name), ``{"seat": p, "gain": n}``, ``{"seat": p, "count": n}`` or a list
    of these.  Seats are never named by colour: the page shows names.
    """
    board = state.context.board
    players = [
        [{"seat": p}, points, state.pioneers[p].bit_count(), state.removed[p]] for p, points in enumerate(state.points)
    ]
    areas = [
        [
            k,
            area.turn,
            board.names[area.cells[0]],
            area.size,
            "".join(area.landscapes),
            area.value,
            [{"seat": p, "count": c} for p, c in enumerate(area.counts) if c],
            [{"seat": p, "gain": a} for p, a in enumerate(area.awards) if a],
        ]
        for k, area in enumerate(state.areas, start=1)
    ]
    return {
        "tables": [
            {
                "id": "players",
                "caption": "sheet.players",
                "headers": ["sheet.player", "sheet.points", "sheet.pioneers_on_board", "sheet.pioneers_removed"],
                "rows": players,
            },
            {
                "id": "areas",
                "caption": "sheet.areas",
                "headers": [
                    "sheet.area",
                    "sheet.turn",
                    "sheet.at",
                    "sheet.cells",
                    "sheet.landscapes",
                    "sheet.value",
                    "sheet.pioneers",
                    "sheet.awards",
                ],
                "rows": areas,
            },
        ]
    }
