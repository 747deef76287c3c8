"""The command line is the only place that reads map files, and it reads them carefully."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tabletop.cli.main import app
from tabletop.games.terranova.mapfile import MAX_FILE_BYTES, load_map

runner = CliRunner()


def one_error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, output
    assert "Traceback" not in output
    return lines[0]


@pytest.fixture
def island_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_island.json"
    data = load_map("isola").to_json()
    del data["id"]  # a file without an id takes its file name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_selfplay_with_a_map_file_stores_the_map_inline(island_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "records"
    result = runner.invoke(app, ["selfplay", "terranova", "--map", str(island_file), "--out", str(out)])
    assert result.exit_code == 0, result.output
    [record] = out.glob("*.json")
    data = json.loads(record.read_text(encoding="utf-8"))
    assert data["config"]["map"]["id"] == "my_island"
    assert runner.invoke(app, ["replay", str(record)]).exit_code == 0


def test_selfplay_with_a_builtin_map_id(tmp_path: Path) -> None:
    out = tmp_path / "records"
    result = runner.invoke(app, ["selfplay", "terranova", "--map", "isola", "--out", str(out)])
    assert result.exit_code == 0, result.output
    [record] = out.glob("*.json")
    assert json.loads(record.read_text(encoding="utf-8"))["config"]["map"] == "isola"


@pytest.mark.parametrize("command", [["selfplay", "terranova"], ["play", "terranova", "--seats", "random,random"]])
def test_a_map_file_too_big_is_refused_in_one_line(command: list[str], tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_FILE_BYTES + 1))
    result = runner.invoke(app, [*command, "--map", str(big)])
    assert result.exit_code == 2
    assert "bigger than 1,000,000 bytes" in one_error_line(result.output)


def test_a_missing_map_file_is_refused_in_one_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["selfplay", "terranova", "--map", str(tmp_path / "none.json")])
    assert result.exit_code == 2
    assert "cannot read map file" in one_error_line(result.output)


def test_replay_refuses_a_record_naming_a_map_file(island_file: Path, tmp_path: Path) -> None:
    record = {
        "format": "tabletop-record",
        "version": 1,
        "game": "terranova",
        "config": {"num_players": 2, "map": str(island_file), "seed": 1},
        "players": [{"name": "a"}, {"name": "b"}],
        "actions": [],
    }
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    for command in ("replay", "render"):
        result = runner.invoke(
            app, [command, str(path), *(["-o", str(tmp_path / "b.svg")] if command == "render" else [])]
        )
        assert result.exit_code == 2
        assert "records never name map files" in one_error_line(result.output)


@pytest.mark.parametrize("command", ["replay", "render", "map lint"])
def test_deeply_nested_json_gets_one_line(command: str, tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 1000 + "]" * 1000, encoding="utf-8")
    result = runner.invoke(app, [*command.split(), str(path)])
    assert result.exit_code == 2
    assert "nested too deeply" in one_error_line(result.output)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_map_lint_refuses_dev_zero() -> None:
    result = runner.invoke(app, ["map", "lint", "/dev/zero"])
    assert result.exit_code == 2
    assert "bigger than" in one_error_line(result.output)


def test_map_lint_reports_a_limit(tmp_path: Path) -> None:
    path = tmp_path / "row.json"
    lands = {c: {} for c in "ABCDEFGH"}
    path.write_text(
        json.dumps({"id": "row", "landscapes": lands, "rows": [{"r": 0, "q0": 0, "cells": "ABCDEFGH" * 175}]})
    )
    result = runner.invoke(app, ["map", "lint", str(path)])
    assert result.exit_code == 2
    assert "FAIL  V1-V4" in result.output and "MAX_SPAN" in result.output
