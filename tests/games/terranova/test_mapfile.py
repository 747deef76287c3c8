"""The map loader: file format (spec §2.4) and validation V1-V4 (spec §2.5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tabletop.core.errors import ConfigError
from tabletop.games.terranova.mapfile import (
    IslandMap,
    Landscape,
    MapError,
    builtin_maps,
    load_map,
    parse_map,
    read_map_file,
)

LANDS = {"A": {"name": "Alpha"}, "B": {"name": "Beta"}, "C": {"name": "Gamma"}, "D": {"name": "Delta", "water": True}}


def small(**changes: Any) -> dict[str, Any]:
    """A valid 2-row map with 4 landscapes, with top-level keys replaced or removed (None)."""
    data: dict[str, Any] = {
        "format": "terranova-map",
        "version": 1,
        "id": "small",
        "landscapes": json.loads(json.dumps(LANDS)),
        "rows": [{"r": 0, "q0": 0, "cells": "AABB"}, {"r": 1, "q0": -1, "cells": "CCDD"}],
    }
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def error_of(data: Any) -> MapError:
    with pytest.raises(MapError) as info:
        parse_map(data)
    return info.value


# --- the shipped map ------------------------------------------------------------------


def test_isola_is_built_in_and_loads() -> None:
    assert "isola" in builtin_maps()
    island = load_map("isola")
    assert island.id == "isola"
    assert island.name == "Isola Nuova"
    assert len(island.cells) == 168
    assert [ls.id for ls in island.landscapes] == list("FMAPSHRL")
    assert [ls.id for ls in island.landscapes if ls.water] == ["L"]
    patterns = [ls.pattern for ls in island.landscapes]
    assert len(set(patterns)) == 8 and "" not in patterns


def test_isola_cells_are_sorted_by_row_then_column() -> None:
    cells = load_map("isola").cells
    assert list(cells) == sorted(cells, key=lambda c: (c[1], c[0]))


def test_to_json_round_trips() -> None:
    island = load_map("isola")
    assert parse_map(island.to_json()) == island
    assert parse_map(json.loads(json.dumps(island.to_json()))) == island


# --- format -----------------------------------------------------------------------------


def test_rows_and_cells_forms_are_equivalent() -> None:
    by_rows = parse_map(small())
    cells = [[q, r, land] for q, r, land in by_rows.cells]
    by_cells = parse_map(small(rows=None, cells=cells))
    assert by_rows == by_cells
    assert (-1, 1, "C") in by_rows.cells and (3, 0, "B") in by_rows.cells


def test_dot_means_no_cell() -> None:
    island = parse_map(small(rows=[{"r": 0, "q0": 0, "cells": "AB.CD"}, {"r": 1, "q0": 0, "cells": "AAABB"}]))
    coords = {(q, r) for q, r, _ in island.cells}
    assert (2, 0) not in coords
    assert len(island.cells) == 9


def test_defaults_water_name_colour_pattern_and_map_name() -> None:
    island = parse_map(small(landscapes={"A": {}, "B": {}, "C": {}, "D": {"water": True}}))
    a = island.landscape("A")
    assert a.name == "A" and a.water is False and a.color.startswith("#") and a.pattern
    assert island.landscape("D").water is True
    assert island.name == "small"
    assert island.author == ""
    assert len({ls.pattern for ls in island.landscapes}) == 4


def test_color_spelling_is_accepted() -> None:
    lands = dict(LANDS, A={"name": "Alpha", "color": "#123456"})
    assert parse_map(small(landscapes=lands)).landscape("A").color == "#123456"


def test_unknown_keys_are_ignored() -> None:
    data = small(notes="drawn on a napkin")
    data["landscapes"]["A"]["texture"] = "rough"
    data["rows"][0]["comment"] = "top"
    assert parse_map(data) == parse_map(small())


def test_format_and_version_may_be_left_out() -> None:
    assert parse_map(small(format=None, version=None)) == parse_map(small())


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"format": "medina-map"}, "unknown map format 'medina-map'"),
        ({"version": 2}, "unsupported map version 2"),
        ({"version": "1"}, "unsupported map version '1'"),
        ({"version": True}, "unsupported map version True"),
        ({"id": None}, "has no 'id'"),
        ({"id": ""}, "'id' must be a non-empty string"),
        ({"name": 7}, "'name' must be a string"),
        ({"landscapes": None}, "no 'landscapes'"),
        ({"landscapes": {}}, "'landscapes' must be a non-empty object"),
        ({"landscapes": ["A"]}, "'landscapes' must be a non-empty object"),
        ({"landscapes": {"AB": {}}}, "landscape id 'AB' must be a single character"),
        ({"landscapes": {".": {}}}, "landscape id '.' must be a single character"),
        ({"landscapes": {"A": "forest"}}, "landscape 'A' must be an object"),
        ({"landscapes": {"A": {"water": "yes"}}}, "'water' must be true or false"),
        ({"landscapes": {"A": {"colour": 3}}}, "'colour' must be a string"),
        ({"rows": None}, "neither 'rows' nor 'cells'"),
        ({"cells": [[0, 0, "A"]]}, "both 'rows' and 'cells'"),
        ({"rows": {"r": 0}}, "'rows' must be a list"),
        ({"rows": [[0, 0, "AB"]]}, "rows[0] must be an object"),
        ({"rows": [{"r": 0, "q0": 0, "cells": "ABCD"}, {"r": 1.5, "q0": 0, "cells": "A"}]}, "rows[1]: 'r'"),
        ({"rows": [{"r": 0, "cells": "ABCD"}]}, "rows[0]: 'q0' must be an integer"),
        ({"rows": [{"r": 0, "q0": 0, "cells": ["A"]}]}, "rows[0]: 'cells' must be a string"),
    ],
)
def test_malformed_files_are_rejected_with_a_message(changes: dict[str, Any], expected: str) -> None:
    assert expected in str(error_of(small(**changes)))


@pytest.mark.parametrize("item", [[0, 0], [0, "0", "A"], [0, 0, "AB"], [True, 0, "A"], {"q": 0}])
def test_malformed_cell_entries_are_rejected(item: Any) -> None:
    message = str(error_of(small(rows=None, cells=[[1, 0, "A"], item])))
    assert "cells[1] must be [q, r, landscape id]" in message


def test_a_map_must_be_an_object() -> None:
    assert "must be a JSON object" in str(error_of([1, 2, 3]))


def test_map_error_is_a_config_error() -> None:
    assert issubclass(MapError, ConfigError)
    assert issubclass(MapError, ValueError)


# --- V1-V4 ------------------------------------------------------------------------------


def test_v1_duplicate_coordinates() -> None:
    cells = [[0, 0, "A"], [1, 0, "B"], [2, 0, "C"], [3, 0, "D"], [1, 0, "A"]]
    error = error_of(small(rows=None, cells=cells))
    assert error.problems == ("V1: 1 cell(s) listed twice: (1,0)",)


def test_v1_duplicates_across_rows() -> None:
    rows = [{"r": 0, "q0": 0, "cells": "ABCD"}, {"r": 0, "q0": 3, "cells": "DA"}]
    assert "V1: 1 cell(s) listed twice: (3,0)" in str(error_of(small(rows=rows)))


def test_v2_undeclared_landscape() -> None:
    rows = [{"r": 0, "q0": 0, "cells": "ABCDX"}]
    assert "V2: landscape 'X' is not declared but used by 1 cell(s): (4,0)" in str(error_of(small(rows=rows)))


def test_v2_declared_but_unused_landscape() -> None:
    lands = dict(LANDS, E={"name": "Unused"})
    assert "V2: declared landscape(s) never used: E" in str(error_of(small(landscapes=lands)))


def test_v3_disconnected_cells() -> None:
    rows = [{"r": 0, "q0": 0, "cells": "AABB"}, {"r": 1, "q0": -1, "cells": "CCDD"}, {"r": 3, "q0": 0, "cells": "A"}]
    error = error_of(small(rows=rows))
    assert "V3: the cells are not connected; 1 cell(s) are cut off from the main island: (0,3)" in str(error)


def test_v3_a_gap_in_a_row_disconnects_only_if_nothing_bridges_it() -> None:
    bridged = [{"r": 0, "q0": 0, "cells": "AB.CD"}, {"r": 1, "q0": 0, "cells": "AAABB"}]
    parse_map(small(rows=bridged))
    split = [{"r": 0, "q0": 0, "cells": "AB..CD"}]
    assert "V3" in str(error_of(small(rows=split)))


def test_v3_empty_map() -> None:
    rows = [{"r": 0, "q0": 0, "cells": "...."}]
    problems = error_of(small(rows=rows)).problems
    assert "V3: the map has no cells" in problems


def test_v4_needs_four_landscapes() -> None:
    lands = {"A": {}, "B": {}, "C": {}}
    rows = [{"r": 0, "q0": 0, "cells": "AABBCC"}]
    assert "V4: at least 4 distinct landscapes are needed on the board, found 3 (A, B, C)" in str(
        error_of(small(landscapes=lands, rows=rows))
    )


def test_every_problem_is_reported_at_once() -> None:
    lands = dict(LANDS, E={})
    cells = [[0, 0, "A"], [0, 0, "B"], [5, 5, "X"]]
    problems = error_of(small(rows=None, cells=cells, landscapes=lands)).problems
    assert [p[:2] for p in problems] == ["V1", "V2", "V2", "V3", "V4"]


# --- loading files ------------------------------------------------------------------------


def test_load_from_file_and_default_id_from_file_name(tmp_path: Path) -> None:
    path = tmp_path / "my_island.json"
    path.write_text(json.dumps(small(id=None)), encoding="utf-8")
    island = read_map_file(path)
    assert island.id == "my_island"
    assert load_map(path) == island  # a Path, not a string, is read as a file


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(MapError, match=r"cannot read map file .*nowhere.json"):
        read_map_file(tmp_path / "nowhere.json")


def test_corrupt_json(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"id": "x", "rows": [', encoding="utf-8")
    with pytest.raises(MapError, match="is not valid JSON"):
        load_map(path)


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.json"
    path.write_bytes(b'{"id": "\xe9"}')
    with pytest.raises(MapError, match="cannot read map file"):
        load_map(path)


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(small(rows=[{"r": 0, "q0": 0, "cells": "ABCD"}] * 2)), encoding="utf-8")
    with pytest.raises(MapError) as info:
        load_map(path)
    assert "dup.json" in str(info.value)
    assert info.value.problems[0].startswith("V1:")


def test_load_accepts_parsed_json() -> None:
    assert load_map(small()) == parse_map(small())


def test_island_map_landscape_lookup() -> None:
    island = parse_map(small())
    assert island.landscape("B") == Landscape("B", "Beta", False, island.landscape("B").color, "grass")
    with pytest.raises(KeyError):
        island.landscape("Z")
    assert isinstance(island, IslandMap)
