"""Island map files (spec §2.4) and the loader's validation (spec §2.5, V1-V4).

A map is data, not code: any valid file can be played with ``--map FILE``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabletop.core.errors import ConfigError

MAPS_DIR = Path(__file__).parent / "maps"
AXIAL_DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


class MapError(ConfigError):
    """A map file that cannot be used; the message names the problem."""


@dataclass(frozen=True, slots=True)
class Landscape:
    """One landscape of a map."""

    id: str
    name: str
    water: bool = False
    color: str = "#999999"
    pattern: str = ""


@dataclass(frozen=True, slots=True)
class IslandMap:
    """A validated island map.

    Attributes:
        id: short identifier (``"isola"``).
        name: display name.
        author: who made it.
        landscapes: the declared landscapes, in declaration order.
        cells: ``(q, r, landscape_id)`` for every cell, sorted by ``(r, q)``.
    """

    id: str
    name: str
    author: str
    landscapes: tuple[Landscape, ...]
    cells: tuple[tuple[int, int, str], ...]

    def to_json(self) -> dict[str, Any]:
        """The map in the §2.4 file format (``rows`` form)."""
        rows: dict[int, dict[int, str]] = {}
        for q, r, land in self.cells:
            rows.setdefault(r, {})[q] = land
        row_list = []
        for r in sorted(rows):
            q0, q1 = min(rows[r]), max(rows[r])
            row_list.append({"r": r, "q0": q0, "cells": "".join(rows[r].get(q, ".") for q in range(q0, q1 + 1))})
        return {
            "format": "terranova-map",
            "version": 1,
            "id": self.id,
            "name": self.name,
            "author": self.author,
            "landscapes": {
                ls.id: {"name": ls.name, "water": ls.water, "colour": ls.color, "pattern": ls.pattern}
                for ls in self.landscapes
            },
            "rows": row_list,
        }


def builtin_maps() -> tuple[str, ...]:
    """Ids of the maps shipped with tabletop."""
    return tuple(sorted(p.stem for p in MAPS_DIR.glob("*.json")))


def load_map(source: str | Path | Mapping[str, Any]) -> IslandMap:
    """Loads a map from a built-in id, a file path or already-parsed JSON.

    Raises:
        MapError: if the file cannot be read or the map is invalid.
    """
    if isinstance(source, Mapping):
        return parse_map(source)
    text_source = str(source)
    path = MAPS_DIR / f"{text_source}.json" if text_source in builtin_maps() else Path(text_source)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MapError(f"no map {text_source!r}: not a built-in map ({', '.join(builtin_maps())}) or a file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MapError(f"cannot read map file {text_source!r}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise MapError(f"map file {text_source!r} is not valid JSON: {exc}") from None
    return parse_map(data)


def parse_map(data: Mapping[str, Any]) -> IslandMap:
    """Builds and validates a map from parsed JSON (§2.4 format, checks V1-V4).

    Raises:
        MapError: naming the first problem found.
    """
    if not isinstance(data, Mapping):
        raise MapError("a map must be a JSON object")
    if data.get("format", "terranova-map") != "terranova-map" or data.get("version", 1) != 1:
        raise MapError(f"unsupported map format {data.get('format')!r} version {data.get('version')!r}")
    map_id = data.get("id")
    if not isinstance(map_id, str) or not map_id:
        raise MapError("map needs a non-empty string 'id'")
    raw_lands = data.get("landscapes")
    if not isinstance(raw_lands, Mapping) or not raw_lands:
        raise MapError("map needs a non-empty 'landscapes' object")
    landscapes = []
    for land_id, spec in raw_lands.items():
        if len(land_id) != 1 or land_id == ".":
            raise MapError(f"landscape id {land_id!r} must be a single character other than '.'")
        if not isinstance(spec, Mapping):
            raise MapError(f"landscape {land_id!r} must be an object")
        landscapes.append(
            Landscape(
                id=land_id,
                name=str(spec.get("name", land_id)),
                water=bool(spec.get("water", False)),
                color=str(spec.get("colour", spec.get("color", "#999999"))),
                pattern=str(spec.get("pattern", "")),
            )
        )
    cells = _read_cells(data)
    declared = {ls.id for ls in landscapes}
    seen: set[tuple[int, int]] = set()
    for q, r, land in cells:
        if (q, r) in seen:
            raise MapError(f"V1: cell ({q},{r}) is listed twice")
        seen.add((q, r))
        if land not in declared:
            raise MapError(f"V2: cell ({q},{r}) has undeclared landscape {land!r}")
    unused = declared - {land for _, _, land in cells}
    if unused:
        raise MapError(f"V2: declared landscapes never used: {', '.join(sorted(unused))}")
    if not cells:
        raise MapError("V3: the map has no cells")
    start = next(iter(seen))
    reached = {start}
    stack = [start]
    while stack:
        q, r = stack.pop()
        for dq, dr in AXIAL_DIRECTIONS:
            n = (q + dq, r + dr)
            if n in seen and n not in reached:
                reached.add(n)
                stack.append(n)
    if len(reached) != len(seen):
        raise MapError(f"V3: the cells are not connected ({len(seen) - len(reached)} cells cut off)")
    if len(declared) < 4:
        raise MapError(f"V4: at least 4 distinct landscapes are needed, found {len(declared)}")
    return IslandMap(
        id=map_id,
        name=str(data.get("name", map_id)),
        author=str(data.get("author", "")),
        landscapes=tuple(landscapes),
        cells=tuple(sorted(cells, key=lambda c: (c[1], c[0]))),
    )


def _read_cells(data: Mapping[str, Any]) -> list[tuple[int, int, str]]:
    has_rows, has_cells = "rows" in data, "cells" in data
    if has_rows == has_cells:
        raise MapError("map needs exactly one of 'rows' or 'cells'")
    cells: list[tuple[int, int, str]] = []
    if has_rows:
        rows = data["rows"]
        if not isinstance(rows, list):
            raise MapError("'rows' must be a list")
        for i, row in enumerate(rows):
            if (
                not isinstance(row, Mapping)
                or not _is_int(row.get("r"))
                or not _is_int(row.get("q0"))
                or not isinstance(row.get("cells"), str)
            ):
                raise MapError(f"rows[{i}] must be an object with integer 'r', 'q0' and a string 'cells'")
            for offset, land in enumerate(row["cells"]):
                if land != ".":
                    cells.append((row["q0"] + offset, row["r"], land))
    else:
        raw = data["cells"]
        if not isinstance(raw, list):
            raise MapError("'cells' must be a list of [q, r, landscape]")
        for i, item in enumerate(raw):
            if (
                not isinstance(item, list)
                or len(item) != 3
                or not _is_int(item[0])
                or not _is_int(item[1])
                or not isinstance(item[2], str)
            ):
                raise MapError(f"cells[{i}] must be [q, r, landscape], got {item!r}")
            cells.append((item[0], item[1], item[2]))
    return cells


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
