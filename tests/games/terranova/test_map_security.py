"""Maps from untrusted input (issue #22): names are built-in ids, maps are bounded, boards cheap.

* A string map value is a built-in id only: the engine never opens a file for it, and an
  error quotes at most a short prefix of the bad value.
* Files are read only by the explicit ``read_map_file`` (the command line), at most
  ``MAX_FILE_BYTES`` of them.
* ``parse_map`` refuses maps beyond the limits before building anything, and the largest
  allowed maps build a board in about linear work and small memory.
"""

from __future__ import annotations

import json
import pathlib
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tabletop.core.errors import ConfigError
from tabletop.core.protocol import GameConfig
from tabletop.games.terranova import GAME, board_for
from tabletop.games.terranova import board as board_module
from tabletop.games.terranova.mapfile import (
    MAX_CELLS,
    MAX_COORDINATE,
    MAX_FILE_BYTES,
    MAX_ID_LENGTH,
    MAX_LANDSCAPES,
    MAX_SPAN,
    MAX_TEXT_LENGTH,
    MapError,
    load_map,
    parse_map,
    read_map_file,
)
from tabletop.grid.hex import DIRECTIONS

from .helpers import holey

LANDS = {c: {} for c in "ABCDEFGH"}


def rows_map(rows: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"id": "big", "landscapes": LANDS, "rows": rows, **extra}


def one_row(length: int) -> dict[str, Any]:
    return rows_map([{"r": 0, "q0": 0, "cells": ("ABCDEFGH" * (length // 8 + 1))[:length]}])


def square(width: int, height: int) -> dict[str, Any]:
    pattern = "ABCDEFGH" * (width // 8 + 2)
    return rows_map([{"r": r, "q0": 0, "cells": pattern[r % 8 : r % 8 + width]} for r in range(height)])


def hexagon(radius: int) -> dict[str, Any]:
    rows = []
    for r in range(-radius, radius + 1):
        q0, q1 = max(-radius, -radius - r), min(radius, radius - r)
        rows.append({"r": r, "q0": q0, "cells": "".join("ABCDEFGH"[(q + 2 * r) % 8] for q in range(q0, q1 + 1))})
    return rows_map(rows)


def grid(step: int) -> dict[str, Any]:
    """A sparse lattice over the whole 64 x 64 span: long lines full of gaps."""
    rows = []
    for r in range(MAX_SPAN):
        text = "".join(
            "ABCDEFGH"[(q // 8 + r // 8) % 8] if r % step == 0 or q % step == 0 else "." for q in range(MAX_SPAN)
        )
        rows.append({"r": r - MAX_SPAN // 2, "q0": -MAX_SPAN // 2, "cells": text})
    return rows_map(rows)


@pytest.fixture
def map_shaped_file(tmp_path: Path) -> Path:
    path = tmp_path / "secret_island.json"
    path.write_text(json.dumps(hexagon(4)), encoding="utf-8")
    return path


@pytest.fixture
def no_file_access(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Fails any attempt to open a file outside the built-in maps directory."""
    touched: list[str] = []
    real_open = pathlib.Path.open

    def guarded_open(self: pathlib.Path, *args: Any, **kwargs: Any) -> Any:
        if "maps" not in self.parts:
            touched.append(str(self))
            raise AssertionError(f"the engine opened {self}")
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "open", guarded_open)
    yield touched
    assert not touched


# --- a string is a built-in map id, never a path ---------------------------------------


@pytest.mark.parametrize("how", ["load_map", "board_for", "new_initial_state"])
def test_a_path_as_map_name_is_refused_without_reading_the_file(
    how: str, map_shaped_file: Path, no_file_access: list[str]
) -> None:
    name = str(map_shaped_file)
    with pytest.raises(ConfigError) as info:
        if how == "load_map":
            load_map(name)
        elif how == "board_for":
            board_for(name)
        else:
            GAME.new_initial_state(GameConfig(2, map=name))
    assert isinstance(info.value, MapError)
    assert "unknown map" in str(info.value) and "isola" in str(info.value)
    assert not no_file_access


@pytest.mark.parametrize("name", ["/dev/zero", "/etc/passwd", "/etc/shadow", "../../../etc/hosts", "isola.json"])
def test_system_files_are_unknown_map_names(name: str, no_file_access: list[str]) -> None:
    with pytest.raises(MapError, match=r"unknown map .*built-in map \(isola"):
        load_map(name)


def test_an_unknown_name_is_quoted_short() -> None:
    secret = "s3cr3t-" * 200
    with pytest.raises(MapError) as info:
        board_for(secret)
    message = str(info.value)
    assert "s3cr3t-s3cr3t" in message and "…" in message
    assert secret[:60] not in message
    assert len(message) < 200


def test_builtin_maps_still_load_by_id() -> None:
    assert load_map("isola").id == "isola"
    assert board_for("isola") is board_for(None)
    assert GAME.new_initial_state(GameConfig(2, map="isola")).board.num_cells == 168


def test_a_path_object_or_read_map_file_reads_the_file(map_shaped_file: Path) -> None:
    assert read_map_file(map_shaped_file) == load_map(map_shaped_file) == parse_map(hexagon(4))


def test_read_map_file_stops_at_the_size_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_text(json.dumps(hexagon(4)) + " " * MAX_FILE_BYTES, encoding="utf-8")
    with pytest.raises(MapError, match="bigger than 1,000,000 bytes"):
        read_map_file(big)
    small = tmp_path / "small.json"
    small.write_text(json.dumps(hexagon(4)), encoding="utf-8")
    with pytest.raises(MapError, match="bigger than 10 bytes"):
        read_map_file(small, max_bytes=10)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_read_map_file_refuses_dev_zero_after_reading_a_limited_amount() -> None:
    tracemalloc.start()
    try:
        with pytest.raises(MapError, match="bigger than"):
            read_map_file(Path("/dev/zero"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * MAX_FILE_BYTES


@pytest.mark.parametrize("depth", [1000, 100_000])
def test_deeply_nested_map_file_is_a_map_error(tmp_path: Path, depth: int) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * depth + "]" * depth, encoding="utf-8")
    with pytest.raises(MapError, match="nested too deeply"):
        read_map_file(path)


def test_an_inline_map_nested_too_deep_for_json_is_a_config_error() -> None:
    # The setup cache writes an inline map as JSON for its key: a map too deep to write
    # is checked, and refused, as any bad map.
    deep: dict[str, Any] = {}
    inner = deep
    for _ in range(100_000):
        inner["a"] = inner = {}
    with pytest.raises(ConfigError):
        GAME.new_initial_state(GameConfig(2, map=deep))


def test_error_messages_quote_bad_values_short() -> None:
    nested: list[Any] = []
    for _ in range(5000):
        nested = [nested]
    for data in (
        rows_map([nested]),
        rows_map(nested),
        {"format": "x" * 10_000},
        rows_map([{"r": 0, "q0": 0, "cells": "AB"}], name=nested),
        {"id": "a", "landscapes": {"A": nested}, "rows": []},
    ):
        with pytest.raises(MapError) as info:
            parse_map(data)
        assert len(str(info.value)) < 300


# --- limits ------------------------------------------------------------------------------


def test_one_row_of_1400_cells_is_refused() -> None:
    # The issue's 1,577-byte body: 8.6 s and 2.1 GB to build a board on main.
    with pytest.raises(MapError, match="MAX_SPAN"):
        parse_map(one_row(1400))


def test_100_by_100_map_is_refused() -> None:
    with pytest.raises(MapError, match="MAX_SPAN"):
        parse_map(square(100, 100))


def test_million_cells_are_refused_before_they_are_read() -> None:
    rows = [{"r": 0, "q0": 0}] * 1_000_000  # malformed, but the count is checked first
    with pytest.raises(MapError, match=f"at most {MAX_CELLS} .*MAX_CELLS"):
        parse_map(rows_map(rows))
    with pytest.raises(MapError, match="MAX_CELLS"):
        parse_map({"id": "x", "landscapes": LANDS, "cells": [None] * 1_000_000})


def test_too_many_cells_in_allowed_rows_are_refused() -> None:
    rows = [{"r": r, "q0": 0, "cells": "ABCDEFGH" * 4} for r in range(MAX_CELLS // 32 + 1)]
    with pytest.raises(MapError, match=f"more than {MAX_CELLS} cells"):
        parse_map(rows_map(rows))


@pytest.mark.parametrize(("q", "r"), [(MAX_COORDINATE + 1, 0), (0, -MAX_COORDINATE - 1), (10**100, 0), (0, -(10**100))])
def test_coordinates_out_of_range_are_refused(q: int, r: int) -> None:
    cells = [[q, r, "A"], [0, 0, "B"], [1, 0, "C"], [2, 0, "D"]]
    with pytest.raises(MapError, match="MAX_COORDINATE") as info:
        parse_map({"id": "far", "landscapes": {k: {} for k in "ABCD"}, "cells": cells})
    assert len(str(info.value)) < 200
    with pytest.raises(MapError, match="MAX_COORDINATE"):
        parse_map(rows_map([{"r": r, "q0": q, "cells": "ABCD"}]))


def test_span_limit_applies_to_cells_lists_too() -> None:
    cells = [[q, 0, "ABCD"[q % 4]] for q in range(-32, 33)]  # 65 values of q
    with pytest.raises(MapError, match="spans 65 values of q"):
        parse_map({"id": "wide", "landscapes": {k: {} for k in "ABCD"}, "cells": cells})


def test_landscape_and_text_limits() -> None:
    many = {chr(0x100 + i): {} for i in range(MAX_LANDSCAPES + 1)}
    with pytest.raises(MapError, match="MAX_LANDSCAPES"):
        parse_map(rows_map([{"r": 0, "q0": 0, "cells": "ABCD"}], landscapes=many))
    base = hexagon(3)
    with pytest.raises(MapError, match="MAX_ID_LENGTH"):
        parse_map(dict(base, id="x" * (MAX_ID_LENGTH + 1)))
    for key in ("name", "author"):
        with pytest.raises(MapError, match="MAX_TEXT_LENGTH"):
            parse_map(dict(base, **{key: "x" * (MAX_TEXT_LENGTH + 1)}))
    for key in ("name", "colour", "pattern"):
        lands = dict(LANDS, A={key: "x" * (MAX_TEXT_LENGTH + 1)})
        with pytest.raises(MapError, match="MAX_TEXT_LENGTH"):
            parse_map(dict(base, landscapes=lands))
    with pytest.raises(MapError, match="lone surrogate"):
        parse_map(dict(base, name="bad \ud800 name"))
    assert parse_map(dict(base, id="x" * MAX_ID_LENGTH, name="n" * MAX_TEXT_LENGTH)).name == "n" * MAX_TEXT_LENGTH


# --- the largest allowed maps build cheaply ------------------------------------------


LARGEST = {
    "row": lambda: one_row(MAX_SPAN),
    "square": lambda: square(MAX_SPAN // 2, MAX_CELLS // (MAX_SPAN // 2)),
    "hexagon": lambda: hexagon(17),  # 919 cells
    "grid": lambda: grid(8),  # 960 cells over the full 64 x 64 span
}


@pytest.mark.parametrize("shape", LARGEST)
def test_largest_allowed_maps_build_in_small_memory(shape: str) -> None:
    island = parse_map(LARGEST[shape]())
    assert len(island.cells) <= MAX_CELLS
    tracemalloc.start()
    try:
        board = board_module.Board(island)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    n = board.num_cells
    # On main these boards took 40-470 MB (a path bitset for every pair of cells on a line).
    assert peak < 12_000_000
    # No table grows with cells times line length until it is used ...
    assert not board.paths and not board.slide_moves and board._rays is None
    # ... and the bit layouts stay linear: 6 copies with one padding bit per run of cells,
    # and a lattice no bigger than the span allows.
    assert len(board.line_cells) <= 6 * 2 * n + 2
    assert board.lattice_all.bit_length() <= (MAX_SPAN + 1) * MAX_SPAN
    # and a game plays on it
    state = GAME.new_initial_state(GameConfig(4, map=island.to_json(), seed=1))
    for _ in range(60):
        if state.is_terminal():
            break
        state = state.apply(state.legal_moves()[len(state.legal_moves()) // 2])


def test_lazy_paths_and_slides_agree_with_the_rays() -> None:
    for source in (holey(), grid(8), "isola"):
        board = board_for(source)
        n = board.num_cells
        expected: dict[tuple[int, int], tuple[int, int, int]] = {}
        for src in range(n):
            for d, ray in enumerate(board.rays[src]):
                mask = 0
                for steps, dst in enumerate(ray, start=1):
                    mask |= 1 << dst
                    expected[src, dst] = (mask, d, steps)
        for src in range(0, n, 7 if n > 300 else 1):
            for dst in range(n):
                assert board.path(src, dst) == expected.get((src, dst))
                slide = board.slide(src, dst)
                if (src, dst) in expected:
                    assert slide is not None and (slide.src, slide.dst) == (src, dst)
                    assert str(slide) == f"{board.names[src]}-{board.names[dst]}"
                    assert board.slide(src, dst) is slide
                else:
                    assert slide is None
        for i, (q, r) in enumerate(board.coords):
            for d, (dq, dr) in enumerate(DIRECTIONS):
                assert board.next_cell[d][i] == board.index.get((q + dq, r + dr), -1)


def test_lazy_tables_stay_bounded() -> None:
    board = board_module.Board(parse_map(hexagon(17)))
    n = board.num_cells
    for src in range(n):
        for d in range(6):
            for dst in board.ray(src, d):
                board.slide(src, dst)
    assert 0 < len(board.slide_moves) <= board_module.LAZY_ENTRIES_PER_CELL * n
    assert 0 < len(board.paths) <= board_module.LAZY_ENTRIES_PER_CELL * n


def test_board_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(board_module, "_BOARDS", type(board_module._BOARDS)())
    for k in range(board_module.MAX_CACHED_BOARDS + 5):
        board_for(dict(hexagon(3), id=f"m{k}"))
    assert len(board_module._BOARDS) == board_module.MAX_CACHED_BOARDS
    big = [dict(hexagon(17), id=f"big{k}") for k in range(board_module.MAX_CACHED_CELLS // 919 + 2)]
    for data in big:
        board_for(data)
    assert sum(b.num_cells for b in board_module._BOARDS.values()) <= board_module.MAX_CACHED_CELLS
    # the most recently used board stays
    assert board_for(big[-1]) is board_module._BOARDS[next(reversed(board_module._BOARDS))]


def test_boards_are_cached_by_the_validated_map_not_the_notes() -> None:
    a = board_for(dict(hexagon(3), notes="x" * 100_000))
    assert a is board_for(hexagon(3))
    assert len(a.key) < 5_000


def test_lint_does_not_try_millions_of_cuts_on_a_large_allowed_map() -> None:
    from tabletop.games.terranova.maplint import MAX_POCKET_CUTS, check_map

    results = {r.rule: r for r in check_map(parse_map(grid(8)))}  # on main: 440 million cuts
    assert not results["M7"].passed
    assert "not measured" in results["M7"].figures and f"{MAX_POCKET_CUTS:,}" in results["M7"].issues[0].message
