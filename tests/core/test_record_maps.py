"""Records from untrusted sources (issue #22): config.map never names a file, deep JSON is refused."""

from __future__ import annotations

import json
import pathlib
import random
from pathlib import Path
from typing import Any

import pytest

from tabletop.core.errors import RecordError
from tabletop.core.protocol import GameConfig
from tabletop.core.record import GameRecord, PlayerInfo, replay
from tabletop.games.terranova import GAME
from tabletop.games.terranova.mapfile import load_map
from tabletop.native import python_state


def record_json(map_value: object = None, **overrides: object) -> dict[str, Any]:
    data: dict[str, Any] = {
        "format": "tabletop-record",
        "version": 1,
        "game": "terranova",
        "config": {"num_players": 2, "ruleset": "default", "variants": {}, "map": map_value, "seed": 3},
        "players": [{"name": "Ann", "agent": "human"}, {"name": "Bot", "agent": "random"}],
        "date": "2026-11-22T10:00:00+00:00",
        "result": None,
        "actions": [],
    }
    data.update(overrides)
    return data


def test_a_record_naming_a_map_file_is_refused_without_reading_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "island.json"
    path.write_text(json.dumps(load_map("isola").to_json()), encoding="utf-8")
    opened: list[str] = []
    real_open = pathlib.Path.open

    def spy(self: pathlib.Path, *args: Any, **kwargs: Any) -> Any:
        opened.append(str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "open", spy)
    monkeypatch.setattr(pathlib.Path, "read_text", lambda self, *a, **k: opened.append(str(self)) or "")
    with pytest.raises(RecordError, match="records never name map files") as info:
        GameRecord.from_json(record_json(str(path)))
    assert "built-in map id (isola)" in str(info.value)
    assert str(path) not in opened


@pytest.mark.parametrize("name", ["/etc/shadow", "/dev/zero", "isola.json", "s3cr3t" * 100])
def test_unknown_map_names_in_records_are_refused_with_a_short_message(name: str) -> None:
    with pytest.raises(RecordError, match=r"config\.map must be a built-in map id") as info:
        GameRecord.loads(json.dumps(record_json(name)))
    assert len(str(info.value)) < 250


def test_builtin_and_inline_maps_still_replay() -> None:
    assert python_state(replay(GameRecord.from_json(record_json("isola")))).board.num_cells == 168  # type: ignore[attr-defined]
    inline = load_map("isola").to_json() | {"id": "copy"}
    assert python_state(replay(GameRecord.from_json(record_json(inline)))).board.map.id == "copy"  # type: ignore[attr-defined]


def test_a_record_made_with_a_map_file_carries_the_map_inline() -> None:
    data = load_map("isola").to_json() | {"id": "from_file"}
    initial = GAME.new_initial_state(GAME.canonical_config(GameConfig(2, map=data, seed=2)))
    rng = random.Random(2)
    moves, state = [], initial
    for _ in range(30):
        move = rng.choice(list(state.legal_moves()))
        moves.append(move)
        state = state.apply(move)
    record = GameRecord.from_states(initial, moves, [PlayerInfo("a"), PlayerInfo("b")])
    again = GameRecord.loads(record.dumps())
    assert isinstance(again.config.map, dict)
    assert replay(again).ply == 30


def test_medina_records_have_no_map_names() -> None:
    data = record_json("isola", game="medina")
    data["config"]["num_players"] = 3
    data["players"].append({"name": "Cy"})
    with pytest.raises(RecordError, match="medina has none"):
        GameRecord.from_json(data)


@pytest.mark.parametrize("opening", ["[", '{"a":', '{"format": "tabletop-record", "config": ['])
@pytest.mark.parametrize("depth", [1000, 100_000])
def test_deeply_nested_json_is_a_record_error(opening: str, depth: int) -> None:
    text = opening * depth + "1" + ("]" if opening.endswith("[") else "}") * depth
    with pytest.raises(RecordError, match="nested too deeply"):
        GameRecord.loads(text)


def test_header_fields_are_checked_not_coerced() -> None:
    nested: list[Any] = []
    for _ in range(5000):
        nested = [nested]
    for bad in (
        record_json(date=nested),
        record_json(players=[{"name": "a", "agent": nested}, {"name": "b"}]),
        record_json(config={"num_players": 2, "ruleset": nested}),
        record_json(result={"scores": [1, 2], "winners": [0], "termination": nested}),
        record_json(result={"scores": [float("inf")], "winners": [0], "termination": "x"}),
    ):
        with pytest.raises(RecordError) as info:
            GameRecord.from_json(bad)
        assert len(str(info.value)) < 300
