"""Fuzzing the untrusted inputs: map objects, map files and records (issue #22).

Whatever arrives (arbitrary JSON-like values, or a valid map or record with a few parts
dropped, replaced, blown up or nested deep), loading it either works or raises the
project's documented error (``MapError`` for maps, ``RecordError`` for records), never
anything else: no ``TypeError``, ``RecursionError``, ``OverflowError``, ``MemoryError``.
"""

from __future__ import annotations

import copy
import json
import math
import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.core.errors import RecordError
from tabletop.core.protocol import GameConfig
from tabletop.core.record import GameRecord, PlayerInfo, replay
from tabletop.games.terranova import GAME, board_for
from tabletop.games.terranova.mapfile import IslandMap, MapError, load_map, parse_map, read_map_file

from .helpers import d37

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _deep(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


SPECIAL: list[Callable[[], Any]] = [  # factories: a drawn value may be edited in place
    lambda: "\ud800",
    lambda: "x\udfffy",
    lambda: "x" * 100_000,
    lambda: "F" * 5000,
    lambda: "a1" + "9" * 5000,
    lambda: ".",
    lambda: "",
    lambda: " ",
    lambda: 10**100,
    lambda: -(10**100),
    lambda: 2**63,
    lambda: 10**4000,
    lambda: float("nan"),
    lambda: float("inf"),
    lambda: -float("inf"),
    lambda: 1e308,
    lambda: -0.0,
    lambda: True,
    lambda: None,
    lambda: [],
    lambda: {},
    lambda: _deep(500),  # deeper still is refused by json.loads (see the file and text tests)
    lambda: [{"r": 0, "q0": 0, "cells": "F"}] * 3000,
    lambda: [[0, 0, "F"]] * 3000,
    lambda: ["a1"] * 3000,
]

leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.integers(0, len(SPECIAL) - 1).map(lambda i: SPECIAL[i]()),
)
json_values = st.recursive(
    leaves,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=20,
)


@st.composite
def mutated(draw: st.DrawFn, base: Any) -> Any:
    """``base`` with 1-3 random edits: a key dropped, a value replaced, an element added."""
    value = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        value = _mutate(draw, value)
    return value


def _mutate(draw: st.DrawFn, node: Any) -> Any:
    if isinstance(node, dict) and node and draw(st.integers(0, 4)) > 0:
        key = draw(st.sampled_from(sorted(node, key=str)))
        action = draw(st.sampled_from(["descend", "descend", "drop", "replace", "add"]))
        if action == "drop":
            del node[key]
        elif action == "replace":
            node[key] = draw(json_values)
        elif action == "add":
            node[draw(st.text(max_size=8))] = draw(json_values)
        else:
            node[key] = _mutate(draw, node[key])
        return node
    if isinstance(node, list) and node and draw(st.integers(0, 4)) > 0:
        index = draw(st.integers(0, len(node) - 1))
        action = draw(st.sampled_from(["descend", "descend", "drop", "replace", "add"]))
        if action == "drop":
            del node[index]
        elif action == "replace":
            node[index] = draw(json_values)
        elif action == "add":
            node.insert(index, draw(json_values))
        else:
            node[index] = _mutate(draw, node[index])
        return node
    return draw(json_values)


def _map_bases() -> list[dict[str, Any]]:
    isola = load_map("isola").to_json()
    cells_form = d37()
    return [isola, cells_form]


def _record_bases() -> list[dict[str, Any]]:
    bases = []
    for map_value in (None, "isola", d37()):
        rng = random.Random(3)
        initial = GAME.new_initial_state(GAME.canonical_config(GameConfig(2, map=map_value, seed=3)))
        state, moves = initial, []
        for _ in range(12):
            move = rng.choice(list(state.legal_moves()))
            moves.append(move)
            state = state.apply(move)
        bases.append(GameRecord.from_states(initial, moves, [PlayerInfo("a"), PlayerInfo("b", "random")]).to_json())
    return bases


MAP_BASES = _map_bases()
RECORD_BASES = _record_bases()
maps = st.one_of(json_values, st.sampled_from(MAP_BASES).flatmap(mutated))
records = st.one_of(json_values, st.sampled_from(RECORD_BASES).flatmap(mutated))


def check_map(value: Any) -> None:
    try:
        island = parse_map(value)
    except MapError as exc:
        assert len(str(exc)) < 20_000
        return
    assert isinstance(island, IslandMap)
    board = board_for(island.to_json())  # any valid map builds a board
    assert board.num_cells == len(island.cells)


def check_record(value: Any) -> None:
    try:
        record = GameRecord.from_json(value)
        replay(record)
    except RecordError as exc:
        assert len(str(exc)) < 20_000


@FUZZ
@given(maps)
def test_parse_map_raises_only_map_errors(value: Any) -> None:
    check_map(value)


@FUZZ
@given(records)
def test_records_raise_only_record_errors(value: Any) -> None:
    check_record(value)


def _dumps(value: Any) -> str:
    return json.dumps(value, allow_nan=True, default=str)


file_texts = st.one_of(
    maps.map(_dumps),
    st.text(max_size=200),
    st.sampled_from(["[" * 5000, "{" * 2000 + "}" * 2000, '{"id": 1' + "0" * 5000 + "}", "NaN", "\ufeff{}"]),
)


@FUZZ
@given(text=file_texts, raw=st.binary(max_size=64))
def test_map_files_raise_only_map_errors(text: str, raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for name, content in (("a.json", text.encode("utf-8", "surrogatepass")), ("b.json", raw)):
            path = Path(folder) / name
            path.write_bytes(content)
            try:
                island = read_map_file(path)
            except MapError:
                continue
            assert isinstance(island, IslandMap)


@FUZZ
@given(st.one_of(records.map(_dumps), st.text(max_size=200)))
def test_record_text_raises_only_record_errors(text: str) -> None:
    try:
        record = GameRecord.loads(text)
        replay(record)
    except RecordError:
        pass


def test_special_values_everywhere() -> None:
    """Each special value in place of each top-level field of a valid map and record."""
    for base, check in ((MAP_BASES[0], check_map), (RECORD_BASES[2], check_record)):
        for key in base:
            for special in SPECIAL:
                check(dict(base, **{key: special()}))
        if base is RECORD_BASES[2]:
            for key in base["config"]:
                for special in SPECIAL:
                    check(dict(base, config=dict(base["config"], **{key: special()})))
    assert math.isnan(float("nan"))
