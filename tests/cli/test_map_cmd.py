"""``tabletop map lint``: every check printed as passed or failed, non-zero exit on failure."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tabletop.cli.main import app
from tabletop.cli.map_cmd import map_app
from tabletop.games.terranova.mapfile import load_map

runner = CliRunner()


def test_lint_builtin_isola_passes() -> None:
    result = runner.invoke(map_app, ["lint", "isola"])
    assert result.exit_code == 0, result.output
    for rule in [f"M{i}" for i in range(1, 9)]:
        assert f"pass  {rule} " in result.output
    assert "pass  V1-V4" in result.output
    assert "All 8 checks passed." in result.output


def test_lint_through_the_main_app(tmp_path: Path) -> None:
    path = tmp_path / "isola_copy.json"
    path.write_text(json.dumps(load_map("isola").to_json()), encoding="utf-8")
    result = runner.invoke(app, ["map", "lint", str(path)])
    assert result.exit_code == 0, result.output
    assert "168 cells" in result.output


def test_lint_failing_map_exits_1_and_names_problems(tmp_path: Path) -> None:
    cells = [[q, r, land] for q, r, land in load_map("isola").cells]
    for cell in cells:  # swap a forest cell on the west coast with a steppe cell
        if cell[:2] == [-7, 0]:
            cell[2] = "S"
        elif cell[:2] == [3, 4]:
            cell[2] = "F"
    data = {k: v for k, v in load_map("isola").to_json().items() if k != "rows"}
    path = tmp_path / "split.json"
    path.write_text(json.dumps(dict(data, cells=cells)), encoding="utf-8")
    result = runner.invoke(map_app, ["lint", str(path)])
    assert result.exit_code == 1
    assert "pass  M1 size" in result.output
    assert "FAIL  M4 regions" in result.output
    assert "landscape F is in 2 patches; stray cells: (3,4)" in result.output
    assert "checks failed:" in result.output
    assert "Traceback" not in result.output


def test_lint_unloadable_map_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"id": "bad", "landscapes": {"A": {}}, "cells": [[0, 0, "A"], [0, 0, "A"]]}', encoding="utf-8")
    result = runner.invoke(map_app, ["lint", str(path)])
    assert result.exit_code == 2
    assert "FAIL  V1-V4" in result.output
    assert "V1: 1 cell(s) listed twice: (0,0)" in result.output
    assert "V4: at least 4 distinct landscapes" in result.output


def test_lint_missing_file(tmp_path: Path) -> None:
    result = runner.invoke(map_app, ["lint", str(tmp_path / "none.json")])
    assert result.exit_code == 2
    assert "cannot read map file" in result.output
