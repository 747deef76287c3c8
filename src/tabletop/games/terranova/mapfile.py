"""Island map files (spec §2.4) and the loader's validation (spec §2.5, V1-V4).

A map is data, not code: any valid file can be played with ``--map FILE``.  Inside the
engine a map is a built-in id (a string; never a file name, since configs arrive from
records and over HTTP) or the map object itself; only :func:`read_map_file` (used by the
command line, and by :func:`load_map` for a :class:`~pathlib.Path`) reads files.  The
format (``docs/maps.md``)::

    {
      "format": "terranova-map", "version": 1,
      "id": "isola", "name": "Isola Nuova", "author": "...",
      "landscapes": {"F": {"name": "Forest", "water": false, "colour": "#2f7d4f", "pattern": "trees"}, ...},
      "rows": [{"r": -7, "q0": 1, "cells": "RRMMMPP"}, ...]
    }

``rows[i].cells`` character ``k`` is the cell ``(q0 + k, r)``; ``.`` is no cell.  Instead
of ``rows`` a file may give ``"cells": [[q, r, "F"], ...]``, never both.  Unknown keys
are ignored, so files can carry notes.  Maps are bounded (``MAX_CELLS``, ``MAX_SPAN``
and the other limits below), so no map costs much to load or to play.  The loader
rejects a file that cannot be played (V1-V4) with a :class:`MapError` that names every
problem it found; the stricter requirements for shipped maps (M1-M8) are checked by
:mod:`~tabletop.games.terranova.maplint`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from tabletop.core.errors import ConfigError, short_repr
from tabletop.core.files import FileTooLargeError, read_bounded

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

# Limits on a map (docs/maps.md, "Limits"), checked while a map is read and before any
# table is built: every board table stays small and builds in well under a second.  The
# shipped Isola Nuova has 168 cells, q and r from -7 to 7 and 8 landscapes.
MAX_CELLS: Final = 1000
"""The most cells a map may have (about six times Isola Nuova)."""
MAX_COORDINATE: Final = 64
"""The largest ``|q|`` and ``|r|`` of a cell."""
MAX_SPAN: Final = 64
"""The most distinct values of ``q`` (or of ``r``) a map's cells may span: the widest and
tallest a map can be, and the longest a ``rows[i].cells`` string may be."""
MAX_LANDSCAPES: Final = 32
"""The most landscapes a map may declare."""
MAX_ID_LENGTH: Final = 64
"""The longest map ``id``, in characters."""
MAX_TEXT_LENGTH: Final = 200
"""The longest ``name``, ``author``, landscape name, colour or pattern, in characters."""
MAX_FILE_BYTES: Final = 1_000_000
"""The biggest map file :func:`read_map_file` reads (Isola Nuova's file has 1.6 kB)."""


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


@functools.cache
def builtin_map_names() -> dict[str, str]:
    """The built-in maps' display names by id (read once: the files ship with the package)."""
    return {map_id: load_map(map_id).name for map_id in builtin_maps()}


def load_map(source: str | Path | Mapping[str, Any]) -> IslandMap:
    """Loads a built-in map by id, a map object, or (only for a :class:`Path`) a map file.

    A string is always a built-in map id, never a file name: map values arrive from
    records and over HTTP, where naming a file on the machine must not be possible.
    Code that means to read a file says so with a :class:`Path` (or
    :func:`read_map_file`); the command line does that for ``--map FILE``.

    Args:
        source: ``"isola"``, a parsed map object, or ``Path("my_island.json")``.

    Returns:
        The validated map.

    Raises:
        MapError: for a string that is not a built-in id (without touching any file),
            a file that cannot be read, or an invalid map.
    """
    if isinstance(source, Mapping):
        return parse_map(source)
    if isinstance(source, Path):
        return read_map_file(source)
    return parse_map(builtin_map_json(source))


def builtin_map_json(map_id: object) -> dict[str, Any]:
    """The parsed file of the built-in map ``map_id``.

    Raises:
        MapError: if ``map_id`` is not the id of a built-in map; the message lists
            them and quotes at most a short prefix of ``map_id``.
    """
    known = builtin_maps()
    if not isinstance(map_id, str) or map_id not in known:
        raise MapError(
            f"unknown map {short_repr(map_id)}: a map name must be a built-in map "
            f"({', '.join(known) or 'none'}); any other map is given as a map object"
        )
    data = json.loads((MAPS_DIR / f"{map_id}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def read_map_json(path: Path, *, max_bytes: int = MAX_FILE_BYTES) -> dict[str, Any]:
    """Reads a map file's JSON object, for the command line (``--map FILE``, ``map lint``).

    At most ``max_bytes`` + 1 bytes are read, so a huge file or a device such as
    ``/dev/zero`` is refused without filling memory.  A file without an ``id`` takes its
    file name (without ``.json``) as id.

    Raises:
        MapError: if the file cannot be read, is too big, is not UTF-8 JSON (nesting too
            deep included) or is not a JSON object.
    """
    try:
        raw = read_bounded(path, max_bytes)
    except OSError as exc:
        raise MapError(f"cannot read map file {str(path)!r}: {exc.strerror or exc}") from None
    except FileTooLargeError:
        raise MapError(f"map file {str(path)!r} is bigger than {max_bytes:,} bytes (MAX_FILE_BYTES)") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise MapError(f"cannot read map file {str(path)!r}: it is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise MapError(f"map file {str(path)!r} is not valid JSON: {exc}") from None
    except RecursionError:
        raise MapError(f"map file {str(path)!r} is not a map: its JSON is nested too deeply") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise MapError(f"map file {str(path)!r} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise MapError(f"map file {str(path)!r}: a map must be a JSON object, not {_json_type(data)}")
    if "id" not in data:
        data["id"] = path.stem
    return data


def read_map_file(path: Path, *, max_bytes: int = MAX_FILE_BYTES) -> IslandMap:
    """Reads and validates a map file (:func:`read_map_json`, then :func:`parse_map`).

    Raises:
        MapError: as :func:`read_map_json` and :func:`parse_map`; the message names the file.
    """
    data = read_map_json(path, max_bytes=max_bytes)
    try:
        return parse_map(data)
    except MapError as exc:
        raise MapError(f"map file {str(path)!r}: {exc}", problems=exc.problems) from None


def parse_map(data: Mapping[str, Any], *, default_id: str | None = None) -> IslandMap:
    """Builds and validates a map from parsed JSON (§2.4 format, limits, checks V1-V4).

    The limits (:data:`MAX_CELLS`, :data:`MAX_COORDINATE`, :data:`MAX_SPAN`, ...) are
    checked while reading, before any table is built, so an oversized map costs no
    more than reading its first few thousand entries.

    Args:
        data: the parsed JSON object.
        default_id: the id to use when ``data`` has none; without it a missing ``id``
            is an error.

    Returns:
        The validated map, cells sorted by ``(r, q)``.

    Raises:
        MapError: naming the problem; for V1-V4, every problem found, one per line of
            :attr:`MapError.problems`.
    """
    if not isinstance(data, Mapping):
        raise MapError(f"a map must be a JSON object, not {_json_type(data)}")
    if "format" in data and data["format"] != FORMAT:
        raise MapError(f"unknown map format {short_repr(data['format'])}: expected {FORMAT!r}")
    if "version" in data and (not _is_int(data["version"]) or data["version"] != VERSION):
        raise MapError(f"unsupported map version {short_repr(data['version'])}: this tabletop reads version {VERSION}")
    map_id = data.get("id", default_id)
    if map_id is None:
        raise MapError("the map has no 'id'")
    if not isinstance(map_id, str) or not map_id.strip():
        raise MapError(f"the map's 'id' must be a non-empty string, not {short_repr(map_id)}")
    _check_text(map_id, "the map's 'id'", MAX_ID_LENGTH, "MAX_ID_LENGTH")
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
    if len(raw) > MAX_LANDSCAPES:
        raise MapError(f"the map declares {len(raw)} landscapes; at most {MAX_LANDSCAPES} are allowed (MAX_LANDSCAPES)")
    landscapes = []
    for k, (land_id, spec) in enumerate(raw.items()):
        if (
            not isinstance(land_id, str)
            or len(land_id) != 1
            or land_id == NO_CELL
            or land_id.isspace()
            or not _is_text(land_id)
        ):
            raise MapError(f"landscape id {short_repr(land_id)} must be a single character other than '.' and blanks")
        if not isinstance(spec, Mapping):
            raise MapError(f"landscape {land_id!r} must be an object, not {short_repr(spec)}")
        what = f"landscape {land_id!r}"
        water = spec.get("water", False)
        if not isinstance(water, bool):
            raise MapError(f"{what}: 'water' must be true or false, not {short_repr(water)}")
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
            raise MapError(f"'rows' must be a list of rows, not {_json_type(rows)}")
        if len(rows) > MAX_CELLS:
            raise MapError(f"'rows' lists {len(rows)} rows; at most {MAX_CELLS} are allowed (MAX_CELLS)")
        for i, row in enumerate(rows):
            if not isinstance(row, Mapping):
                raise MapError(
                    f"rows[{i}] must be an object {{'r': int, 'q0': int, 'cells': str}}, not {short_repr(row)}"
                )
            for key in ("r", "q0"):
                if not _is_int(row.get(key)):
                    raise MapError(f"rows[{i}]: {key!r} must be an integer, not {short_repr(row.get(key))}")
            text = row.get("cells")
            if not isinstance(text, str):
                raise MapError(f"rows[{i}]: 'cells' must be a string of landscape ids, not {short_repr(text)}")
            if len(text) > MAX_SPAN:
                raise MapError(
                    f"rows[{i}]: 'cells' has {len(text)} characters; a row is at most {MAX_SPAN} cells wide (MAX_SPAN)"
                )
            r, q0 = row["r"], row["q0"]
            for offset, land in enumerate(text):
                if land != NO_CELL:
                    _check_cell(q0 + offset, r, len(cells), f"rows[{i}]")
                    cells.append((q0 + offset, r, land))
    else:
        raw = data["cells"]
        if not isinstance(raw, list):
            raise MapError(f"'cells' must be a list of [q, r, landscape], not {_json_type(raw)}")
        if len(raw) > MAX_CELLS:
            raise MapError(f"'cells' lists {len(raw)} cells; at most {MAX_CELLS} are allowed (MAX_CELLS)")
        for i, item in enumerate(raw):
            if (
                not isinstance(item, list)
                or len(item) != 3
                or not _is_int(item[0])
                or not _is_int(item[1])
                or not isinstance(item[2], str)
                or len(item[2]) != 1
            ):
                raise MapError(f"cells[{i}] must be [q, r, landscape id] with integers q, r, not {short_repr(item)}")
            _check_cell(item[0], item[1], len(cells), f"cells[{i}]")
            cells.append((item[0], item[1], item[2]))
    if cells:
        for name, values in (("q", [c[0] for c in cells]), ("r", [c[1] for c in cells])):
            low, high = min(values), max(values)
            if high - low + 1 > MAX_SPAN:
                raise MapError(
                    f"the map spans {high - low + 1} values of {name} ({low} to {high}); "
                    f"at most {MAX_SPAN} are allowed (MAX_SPAN)"
                )
    return cells


def _check_cell(q: int, r: int, count: int, where: str) -> None:
    """Refuses the next cell if it is one too many or lies too far out."""
    if count >= MAX_CELLS:
        raise MapError(f"{where}: the map has more than {MAX_CELLS} cells (MAX_CELLS)")
    if not (-MAX_COORDINATE <= q <= MAX_COORDINATE and -MAX_COORDINATE <= r <= MAX_COORDINATE):
        raise MapError(
            f"{where}: cell ({short_repr(q, 12)},{short_repr(r, 12)}) is out of range; "
            f"q and r must lie between -{MAX_COORDINATE} and {MAX_COORDINATE} (MAX_COORDINATE)"
        )


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
        raise MapError(f"{what} {key!r} must be a string, not {short_repr(value)}")
    _check_text(value, f"{what} {key!r}", MAX_TEXT_LENGTH, "MAX_TEXT_LENGTH")
    return value


def _check_text(value: str, what: str, limit: int, limit_name: str) -> None:
    if len(value) > limit:
        raise MapError(f"{what} has {len(value)} characters; at most {limit} are allowed ({limit_name})")
    if not _is_text(value):
        raise MapError(f"{what} is not valid Unicode text (it holds a lone surrogate): {short_repr(value)}")


def _is_text(value: str) -> bool:
    """Whether ``value`` can be written as UTF-8 (no lone surrogates such as ``'\\ud800'``)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _json_type(value: object) -> str:
    """The JSON name of a value's type, for messages."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    for kind, name in names.items():
        if isinstance(value, kind):
            return name
    return "null" if value is None else type(value).__name__


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
