"""Island map files (spec §2.4) and the loader's validation (spec §2.5, V1-V4).

A map is data, not code: any valid file can be played with ``--map FILE``.  The format
(``docs/maps.md``)::

    {
      "format": "terranova-map", "version": 1,
      "id": "isola", "name": "Isola Nuova", "author": "...",
      "landscapes": {"F": {"name": "Forest", "water": false, "colour": "#2f7d4f", "pattern": "trees"}, ...},
      "rows": [{"r": -7, "q0": 1, "cells": "RRMMMPP"}, ...]
    }

``rows[i].cells`` character ``k`` is the cell ``(q0 + k, r)``; ``.`` is no cell.  Instead
of ``rows`` a file may give ``"cells": [[q, r, "F"], ...]``, never both.  Unknown keys
are ignored, so files can carry notes.  The loader rejects a file that cannot be played
(V1-V4) with a :class:`MapError` that names every problem it found; the stricter
requirements for shipped maps (M1-M8) are checked by :mod:`~tabletop.games.terranova.maplint`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from tabletop.core.errors import ConfigError

MAPS_DIR: Final = Path(__file__).parent / "maps"
AXIAL_DIRECTIONS: Final = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
FORMAT: Final = "terranova-map"
VERSION: Final = 1
MIN_LANDSCAPES: Final = 4
NO_CELL: Final = "."

# Colours and patterns for landscapes that a file leaves undecorated: distinct at a
# glance and by pattern, so even a bare map stays readable.
DEFAULT_COLORS: Final = ("#2f7d4f", "#9fd26b", "#e9c440", "#d8e8a8", "#e3b27a", "#a8744f", "#8d8d8d", "#3f8fd0")
DEFAULT_PATTERNS: Final = ("trees", "grass", "furrows", "dots", "dashes", "hatch", "rocks", "waves")

_MAX_LISTED: Final = 8  # coordinates quoted per problem before "and N more"


class MapError(ConfigError):
    """A map file that cannot be used; the message names every problem found.

    Attributes:
        problems: one line per problem (the message joins them).
    """

    def __init__(self, message: str, *, problems: tuple[str, ...] | None = None) -> None:
        super().__init__(message)
        self.problems: tuple[str, ...] = problems if problems is not None else (message,)


@dataclass(frozen=True, slots=True)
class Landscape:
    """One landscape of a map.

    Attributes:
        id: one character, as used in ``rows``.
        name: display name.
        water: whether it is water (a lake); only drawing and map linting care.
        color: fill colour for drawings (``colour`` in files).
        pattern: the name of its fill pattern, the cue that does not rely on colour.
    """

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

    def landscape(self, land_id: str) -> Landscape:
        """The landscape with id ``land_id``.

        Raises:
            KeyError: if the map declares no such landscape.
        """
        for ls in self.landscapes:
            if ls.id == land_id:
                return ls
        raise KeyError(land_id)

    def to_json(self) -> dict[str, Any]:
        """The map in the §2.4 file format (``rows`` form); ``parse_map`` reads it back."""
        rows: dict[int, dict[int, str]] = {}
        for q, r, land in self.cells:
            rows.setdefault(r, {})[q] = land
        row_list = []
        for r in sorted(rows):
            q0, q1 = min(rows[r]), max(rows[r])
            row_list.append({"r": r, "q0": q0, "cells": "".join(rows[r].get(q, NO_CELL) for q in range(q0, q1 + 1))})
        return {
            "format": FORMAT,
            "version": VERSION,
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
    """Ids of the maps shipped with tabletop (the files in ``maps/``), sorted."""
    return tuple(sorted(p.stem for p in MAPS_DIR.glob("*.json")))


def load_map(source: str | Path | Mapping[str, Any]) -> IslandMap:
    """Loads a map from a built-in id, a file path or already-parsed JSON.

    A file without an ``id`` takes its file name (without ``.json``) as id.

    Args:
        source: ``"isola"``, a path such as ``"my_island.json"``, or a parsed map object.

    Returns:
        The validated map.

    Raises:
        MapError: if the file cannot be read, is not JSON, or the map is invalid.
    """
    if isinstance(source, Mapping):
        return parse_map(source)
    text_source = str(source)
    is_builtin = not isinstance(source, Path) and text_source in builtin_maps()
    path = MAPS_DIR / f"{text_source}.json" if is_builtin else Path(text_source)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        known = ", ".join(builtin_maps()) or "none"
        raise MapError(f"no map {text_source!r}: neither a built-in map ({known}) nor a file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MapError(f"cannot read map file {text_source!r}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise MapError(f"map file {text_source!r} is not valid JSON: {exc}") from None
    try:
        return parse_map(data, default_id=path.stem)
    except MapError as exc:
        raise MapError(f"map file {text_source!r}: {exc}", problems=exc.problems) from None


def parse_map(data: Mapping[str, Any], *, default_id: str | None = None) -> IslandMap:
    """Builds and validates a map from parsed JSON (§2.4 format, checks V1-V4).

    Args:
        data: the parsed JSON object.
        default_id: the id to use when ``data`` has none (``load_map`` passes the file
            name); without it a missing ``id`` is an error.

    Returns:
        The validated map, cells sorted by ``(r, q)``.

    Raises:
        MapError: naming the problem; for V1-V4, every problem found, one per line of
            :attr:`MapError.problems`.
    """
    if not isinstance(data, Mapping):
        raise MapError(f"a map must be a JSON object, not {type(data).__name__}")
    if "format" in data and data["format"] != FORMAT:
        raise MapError(f"unknown map format {data['format']!r}: expected {FORMAT!r}")
    if "version" in data and (not _is_int(data["version"]) or data["version"] != VERSION):
        raise MapError(f"unsupported map version {data['version']!r}: this tabletop reads version {VERSION}")
    map_id = data.get("id", default_id)
    if map_id is None:
        raise MapError("the map has no 'id'")
    if not isinstance(map_id, str) or not map_id.strip():
        raise MapError(f"the map's 'id' must be a non-empty string, not {map_id!r}")
    name = _optional_str(data, "name", map_id, "the map's")
    author = _optional_str(data, "author", "", "the map's")
    landscapes = _read_landscapes(data.get("landscapes"))
    cells = _read_cells(data)
    problems = _validate(landscapes, cells)
    if problems:
        raise MapError("; ".join(problems), problems=tuple(problems))
    return IslandMap(
        id=map_id,
        name=name,
        author=author,
        landscapes=landscapes,
        cells=tuple(sorted(cells, key=lambda c: (c[1], c[0]))),
    )


def _read_landscapes(raw: object) -> tuple[Landscape, ...]:
    if raw is None:
        raise MapError("the map has no 'landscapes'")
    if not isinstance(raw, Mapping) or not raw:
        raise MapError("'landscapes' must be a non-empty object of landscape id to landscape")
    landscapes = []
    for k, (land_id, spec) in enumerate(raw.items()):
        if not isinstance(land_id, str) or len(land_id) != 1 or land_id == NO_CELL or land_id.isspace():
            raise MapError(f"landscape id {land_id!r} must be a single character other than '.' and blanks")
        if not isinstance(spec, Mapping):
            raise MapError(f"landscape {land_id!r} must be an object, not {spec!r}")
        what = f"landscape {land_id!r}"
        water = spec.get("water", False)
        if not isinstance(water, bool):
            raise MapError(f"{what}: 'water' must be true or false, not {water!r}")
        color_key = "colour" if "colour" in spec else "color"
        landscapes.append(
            Landscape(
                id=land_id,
                name=_optional_str(spec, "name", land_id, what),
                water=water,
                color=_optional_str(spec, color_key, DEFAULT_COLORS[k % len(DEFAULT_COLORS)], what),
                pattern=_optional_str(spec, "pattern", DEFAULT_PATTERNS[k % len(DEFAULT_PATTERNS)], what),
            )
        )
    return tuple(landscapes)


def _read_cells(data: Mapping[str, Any]) -> list[tuple[int, int, str]]:
    has_rows, has_cells = "rows" in data, "cells" in data
    if has_rows and has_cells:
        raise MapError("the map has both 'rows' and 'cells'; give exactly one")
    if not has_rows and not has_cells:
        raise MapError("the map has neither 'rows' nor 'cells'")
    cells: list[tuple[int, int, str]] = []
    if has_rows:
        rows = data["rows"]
        if not isinstance(rows, list):
            raise MapError(f"'rows' must be a list of rows, not {type(rows).__name__}")
        for i, row in enumerate(rows):
            if not isinstance(row, Mapping):
                raise MapError(f"rows[{i}] must be an object {{'r': int, 'q0': int, 'cells': str}}, not {row!r}")
            for key, check, kind in (("r", _is_int, "an integer"), ("q0", _is_int, "an integer")):
                if not check(row.get(key)):
                    raise MapError(f"rows[{i}]: {key!r} must be {kind}, not {row.get(key)!r}")
            if not isinstance(row.get("cells"), str):
                raise MapError(f"rows[{i}]: 'cells' must be a string of landscape ids, not {row.get('cells')!r}")
            for offset, land in enumerate(row["cells"]):
                if land != NO_CELL:
                    cells.append((row["q0"] + offset, row["r"], land))
    else:
        raw = data["cells"]
        if not isinstance(raw, list):
            raise MapError(f"'cells' must be a list of [q, r, landscape], not {type(raw).__name__}")
        for i, item in enumerate(raw):
            if (
                not isinstance(item, list)
                or len(item) != 3
                or not _is_int(item[0])
                or not _is_int(item[1])
                or not isinstance(item[2], str)
                or len(item[2]) != 1
            ):
                raise MapError(f"cells[{i}] must be [q, r, landscape id] with integers q, r, not {item!r}")
            cells.append((item[0], item[1], item[2]))
    return cells


def _validate(landscapes: tuple[Landscape, ...], cells: list[tuple[int, int, str]]) -> list[str]:
    """Checks V1-V4 and returns every problem found."""
    problems = []
    declared = {ls.id for ls in landscapes}
    seen: set[tuple[int, int]] = set()
    duplicates: list[tuple[int, int]] = []
    undeclared: dict[str, list[tuple[int, int]]] = {}
    for q, r, land in cells:
        if (q, r) in seen:
            duplicates.append((q, r))
        seen.add((q, r))
        if land not in declared:
            undeclared.setdefault(land, []).append((q, r))
    if duplicates:
        problems.append(f"V1: {len(duplicates)} cell(s) listed twice: {_coords(duplicates)}")
    for land, where in undeclared.items():
        problems.append(f"V2: landscape {land!r} is not declared but used by {len(where)} cell(s): {_coords(where)}")
    used = {land for _, _, land in cells}
    unused = [ls.id for ls in landscapes if ls.id not in used]
    if unused:
        problems.append(f"V2: declared landscape(s) never used: {', '.join(unused)}")
    if not cells:
        problems.append("V3: the map has no cells")
    else:
        cut_off = _cut_off(seen)
        if cut_off:
            problems.append(
                f"V3: the cells are not connected; {len(cut_off)} cell(s) are cut off from the main island: "
                f"{_coords(cut_off)}"
            )
    distinct = used & declared
    if len(distinct) < MIN_LANDSCAPES:
        problems.append(
            f"V4: at least {MIN_LANDSCAPES} distinct landscapes are needed on the board, found {len(distinct)}"
            + (f" ({', '.join(sorted(distinct))})" if distinct else "")
        )
    return problems


def _cut_off(cells: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """The cells outside the largest connected piece."""
    todo = set(cells)
    pieces = []
    while todo:
        start = todo.pop()
        piece, stack = [start], [start]
        while stack:
            q, r = stack.pop()
            for dq, dr in AXIAL_DIRECTIONS:
                n = (q + dq, r + dr)
                if n in todo:
                    todo.remove(n)
                    piece.append(n)
                    stack.append(n)
        pieces.append(piece)
    pieces.sort(key=lambda piece: (-len(piece), min((r, q) for q, r in piece)))
    return [c for piece in pieces[1:] for c in piece]


def _coords(cells: list[tuple[int, int]]) -> str:
    ordered = sorted(cells, key=lambda c: (c[1], c[0]))
    text = ", ".join(f"({q},{r})" for q, r in ordered[:_MAX_LISTED])
    return text + (f" and {len(ordered) - _MAX_LISTED} more" if len(ordered) > _MAX_LISTED else "")


def _optional_str(spec: Mapping[str, Any], key: str, default: str, what: str) -> str:
    value = spec.get(key, default)
    if not isinstance(value, str):
        raise MapError(f"{what} {key!r} must be a string, not {value!r}")
    return value


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
