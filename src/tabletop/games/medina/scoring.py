"""Medina's final scoring (§5.4; 2e §5.4 adds the well bonus): a per-palace breakdown plus
palace and tower tiles, and the second edition's tie-break (2e §5.5, E13)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tabletop.core.errors import count_of
from tabletop.games.medina.board import SQUARE_NAMES, ortho_dilate, ortho_dilate_any
from tabletop.games.medina.moves import color_names
from tabletop.games.medina.state import State


@dataclass(frozen=True, slots=True)
class PalaceScore:
    """The points one owned palace earns its owner.

    Attributes:
        palace: the palace id (index in ``State.palaces``).
        owner: the owning seat.
        color: colour index.
        pieces: palace pieces (1 point each).
        stables: stables of the palace (1 point each).
        merchants: merchants adjacent to a piece or stable (each counted once).
        walls: wall pieces adjacent to a piece or stable.
        well: the well bonus (2e): 4 per yellow square holding a piece or stable.
    """

    palace: int
    owner: int
    color: int
    pieces: int
    stables: int
    merchants: int
    walls: int
    well: int = 0

    @property
    def total(self) -> int:
        """The palace's points."""
        return self.pieces + self.stables + self.merchants + self.walls + self.well


@dataclass(frozen=True, slots=True)
class ScoreBreakdown:
    """Everyone's score: owned palaces plus the tiles held.

    Attributes:
        palaces: the breakdown of every owned palace, in palace id order.
        palace_tiles: per seat, the value of the palace tiles held.
        tower_tiles: per seat, the value of the tower tiles held.
    """

    palaces: tuple[PalaceScore, ...]
    palace_tiles: tuple[int, ...]
    tower_tiles: tuple[int, ...]

    def totals(self) -> tuple[int, ...]:
        """Each seat's total."""
        totals = [a + b for a, b in zip(self.palace_tiles, self.tower_tiles, strict=True)]
        for p in self.palaces:
            totals[p.owner] += p.total
        return tuple(totals)


def palace_score(s: State, pid: int) -> PalaceScore:
    """The breakdown of palace ``pid`` (as if owned; unowned palaces score for nobody)."""
    pal = s.palaces[pid]
    comps = pal.pieces | pal.stables
    # A11: with stable_adjacency_scores off, merchants next only to a stable do not
    # count (old Boardspace); walls next to a stable always do.
    merchant_reach = comps if s.rules.stable_adjacency_scores else pal.pieces
    return PalaceScore(
        palace=pid,
        owner=pal.owner,
        color=pal.color,
        pieces=pal.pieces.bit_count(),
        stables=pal.stables.bit_count(),
        merchants=(ortho_dilate(merchant_reach) & s.merchants).bit_count(),
        walls=(ortho_dilate_any(comps) & s.walls).bit_count(),
        well=4 * (comps & s.yellow).bit_count(),
    )


def score_breakdown(s: State) -> ScoreBreakdown:
    """The full breakdown of the scores if the game ended now."""
    palace_tiles, tower_tiles = tile_points(s)
    palaces = tuple(palace_score(s, i) for i, p in enumerate(s.palaces) if p.owner >= 0)
    return ScoreBreakdown(palaces, tuple(palace_tiles), tuple(tower_tiles))


def tile_points(s: State) -> tuple[list[int], list[int]]:
    """Per seat, the value of the palace tiles and of the tower tiles it holds."""
    n = s.num_players
    palace_tiles = [0] * n
    tower_tiles = [0] * n
    for col, holder in enumerate(s.palace_tiles):
        if holder >= 0:
            palace_tiles[holder] += col + 1
    values = s.rules.tower_value_tuple()
    for slot, holder in enumerate(s.tower_tiles):  # NEUTRAL (-2) and nobody (-1) score nothing
        if holder >= 0:
            tower_tiles[holder] += values[slot]
    return palace_tiles, tower_tiles


def scores(s: State) -> tuple[int, ...]:
    """Each seat's total if the game ended now (:func:`score_breakdown`'s totals, computed directly)."""
    palace_tiles, tower_tiles = tile_points(s)
    totals = [p + t for p, t in zip(palace_tiles, tower_tiles, strict=True)]
    stable_reach = s.rules.stable_adjacency_scores
    merchants = s.merchants
    walls = s.walls
    yellow = s.yellow
    for pal in s.palaces:
        if pal.owner >= 0:
            comps = pal.pieces | pal.stables
            totals[pal.owner] += (
                pal.pieces.bit_count()
                + pal.stables.bit_count()
                + (ortho_dilate(comps if stable_reach else pal.pieces) & merchants).bit_count()
                + (ortho_dilate_any(comps) & walls).bit_count()
                + 4 * (comps & yellow).bit_count()
            )
    return tuple(totals)


def tie_break_winner(s: State, tied: tuple[int, ...]) -> int:
    """The winner among ``tied`` seats by ``tie_break="largest_palace"`` (2e §5.5, BGA): the
    largest player-owned palace, then the one whose palace of that size was claimed first."""

    def key(seat: int) -> tuple[int, int]:
        sizes = [(pal.size, -order) for order, pid in enumerate(s.claims) if (pal := s.palaces[pid]).owner == seat]
        if not sizes:
            return (0, -len(s.claims))
        return max(sizes)

    return max(tied, key=key)


def describe_score(s: State) -> str:
    """A human-readable per-palace breakdown with tiles and totals."""
    sheet = score_breakdown(s)
    values = s.rules.tower_value_tuple()
    colors = color_names(s.rules.edition)
    towers = s.geo.towers
    lines: list[str] = []
    totals = sheet.totals()
    for seat in range(s.num_players):
        lines.append(f"Player {seat + 1}: {totals[seat]}")
        for ps in sheet.palaces:
            if ps.owner != seat:
                continue
            pal = s.palaces[ps.palace]
            well = f" + well {ps.well}" if ps.well else ""
            lines.append(
                f"  {colors[ps.color]} palace at {SQUARE_NAMES[pal.dome]}: {count_of(ps.pieces, 'piece')}"
                f" + {count_of(ps.stables, 'stable')} + {count_of(ps.merchants, 'merchant')}"
                f" + {count_of(ps.walls, 'wall')}{well} = {ps.total}"
            )
        tiles = [f"{colors[c]} palace tile ({c + 1})" for c, h in enumerate(s.palace_tiles) if h == seat]
        tiles += [
            f"tower {SQUARE_NAMES[towers[t]]} tile ({values[t]})" for t, h in enumerate(s.tower_tiles) if h == seat
        ]
        if tiles:
            lines.append(f"  tiles: {', '.join(tiles)} = {sheet.palace_tiles[seat] + sheet.tower_tiles[seat]}")
    return "\n".join(lines)


def score_sheet(s: State) -> dict[str, Any]:
    """The data of :func:`describe_score` as tables the web client translates.

    The shape is Terra Nova's (``terranova.scoring.score_sheet``): i18n keys for
    captions and headers, and cells that are numbers, square names, ``{"seat": p}`` or
    ``{"text": key, "params": {...}}`` (a palace colour is the param ``color``).
    """
    sheet = score_breakdown(s)
    values = s.rules.tower_value_tuple()
    colors = color_names(s.rules.edition)
    towers = s.geo.towers
    second = s.rules.edition == 2  # the well column
    totals = sheet.totals()
    palaces = [
        [
            {"seat": ps.owner},
            {"text": "sheet.palace", "params": {"color": colors[ps.color]}},
            SQUARE_NAMES[s.palaces[ps.palace].dome],
            ps.pieces,
            ps.stables,
            ps.merchants,
            ps.walls,
            *((ps.well,) if second else ()),
            ps.total,
        ]
        for ps in sheet.palaces
    ]
    tiles = []
    for seat in range(s.num_players):
        palace_tiles = [
            {"text": "sheet.palace_tile", "params": {"color": colors[c], "value": c + 1}}
            for c, holder in enumerate(s.palace_tiles)
            if holder == seat
        ]
        tower_tiles = [
            {"text": "sheet.tower_tile", "params": {"square": SQUARE_NAMES[towers[t]], "value": values[t]}}
            for t, holder in enumerate(s.tower_tiles)
            if holder == seat
        ]
        palace_points = totals[seat] - sheet.palace_tiles[seat] - sheet.tower_tiles[seat]
        tiles.append(
            [
                {"seat": seat},
                palace_points,
                palace_tiles,
                tower_tiles,
                sheet.palace_tiles[seat] + sheet.tower_tiles[seat],
                totals[seat],
            ]
        )
    return {
        "tables": [
            {
                "id": "players",
                "caption": "sheet.players",
                "headers": [
                    "sheet.player",
                    "sheet.palace_points",
                    "sheet.palace_tiles",
                    "sheet.tower_tiles",
                    "sheet.tile_points",
                    "sheet.total",
                ],
                "rows": tiles,
            },
            {
                "id": "palaces",
                "caption": "sheet.palaces",
                "headers": [
                    "sheet.owner",
                    "sheet.palace_header",
                    "sheet.at",
                    "sheet.pieces",
                    "sheet.stables",
                    "sheet.merchants",
                    "sheet.walls",
                    *(("sheet.well",) if second else ()),
                    "sheet.total",
                ],
                "rows": palaces,
            },
        ]
    }
