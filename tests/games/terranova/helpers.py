"""Test boards and a position builder for Terra Nova tests.

``position(...)`` builds a play-phase state directly (no setup phase), as spec §7 asks:
pieces are given as axial coordinates, the named player is about to take action 1 and
s(X) is each pioneer's listed cell.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from tabletop.games.terranova import State
from tabletop.grid.hex import disc

LANDSCAPES: dict[str, dict[str, Any]] = {
    "F": {"name": "Forest"},
    "M": {"name": "Meadow"},
    "A": {"name": "Farmland"},
    "P": {"name": "Pasture"},
    "S": {"name": "Steppe"},
    "H": {"name": "Hills"},
    "R": {"name": "Rocks"},
    "L": {"name": "Lake", "water": True},
}
EXTRA = "BCDEGIJKNOQTUVWXYZ"


def map_from_cells(map_id: str, cells: Iterable[tuple[int, int, str]]) -> dict[str, Any]:
    """A map JSON object (``cells`` form) declaring exactly the landscapes used."""
    cell_list = [[q, r, land] for q, r, land in cells]
    used = sorted({c[2] for c in cell_list})
    lands = {k: LANDSCAPES.get(k, {"name": k}) for k in used}
    return {
        "format": "terranova-map",
        "version": 1,
        "id": map_id,
        "name": map_id,
        "landscapes": lands,
        "cells": cell_list,
    }


def d37() -> dict[str, Any]:
    """``D3-7``: the radius-3 disc, landscape by column q: F M A L P S H for q = -3..3."""
    by_q = {-3: "F", -2: "M", -1: "A", 0: "L", 1: "P", 2: "S", 3: "H"}
    return map_from_cells("d3-7", [(q, r, by_q[q]) for q, r in disc(3)])


def parallelogram(width: int, height: int, columns: str, missing: Iterable[tuple[int, int]] = ()) -> dict[str, Any]:
    """``P(W,H) "xyz…"``: 0 ≤ q < W, 0 ≤ r < H, landscape of column q = columns[q]."""
    gone = set(missing)
    cells = [(q, r, columns[q]) for r in range(height) for q in range(width) if (q, r) not in gone]
    return map_from_cells(f"p{width}x{height}", cells)


def disc168() -> dict[str, Any]:
    """The 168-cell island of spec §2.3 M2 with 8 landscapes in pie slices (a stand-in for isola)."""
    coords = [(q, r) for q in range(-7, 8) for r in range(-7, 8) if q * q + q * r + r * r <= 43]
    coords += [(7, 0), (-7, 0), (0, 7), (0, -7), (7, -7)]
    order = "FMAPSHRL"
    cells = []
    for q, r in coords:
        x, y = math.sqrt(3) * (q + r / 2), 1.5 * r
        if (x - 3) ** 2 + (y + 2) ** 2 < 9:
            land = "L"  # an inland lake off centre
        else:
            angle = (math.atan2(y, x) + math.pi) / (2 * math.pi)
            land = order[min(6, int(angle * 7))]
        cells.append((q, r, land))
    return map_from_cells("disc168", cells)


def holey() -> dict[str, Any]:
    """A radius-5 disc with five inner cells missing and six landscapes by sector (lake included)."""
    missing = {(1, 0), (1, 1), (-2, 1), (0, -3), (2, -2)}
    cells = []
    for q, r in disc(5):
        if (q, r) in missing:
            continue
        angle = math.atan2(1.5 * r, math.sqrt(3) * (q + r / 2))
        cells.append((q, r, "FMAPSL"[int((angle + math.pi) / (2 * math.pi) * 6) % 6]))
    return map_from_cells("holey", cells)


def cell(state: State, h: tuple[int, int]) -> int:
    """The index of axial cell ``h``."""
    return state.board.index[h]


def cells_of(state: State, seat: int) -> set[tuple[int, int]]:
    """The axial cells of a seat's pioneers."""
    board = state.board
    return {board.coords[i] for i in board.cells_of(state.pioneers[seat])}
