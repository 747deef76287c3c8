"""``tabletop bench batch`` measures a tiny arena on the local backends and leaves Ray out without it.

No timing is asserted: only that the rows are the backends asked for, in order, with
finite positive figures and ratios taken against the yardstick of the same run.
"""

from __future__ import annotations

import math
import sys

import pytest
from typer.testing import CliRunner

from tabletop.arena.tournament import TournamentConfig
from tabletop.bench.batch import BACKENDS, RAY_MISSING, YARDSTICK, BatchRow, bench_batch
from tabletop.cli.main import app

TINY = TournamentConfig("medina", ("random", "random", "random"), 4, seed=1)
LOCAL = tuple(spec for spec in BACKENDS if not spec.ray)


def _well_formed(row: BatchRow, base: BatchRow, runs: int) -> None:
    assert row.games == TINY.games and row.runs == runs
    for figure in (row.wall_s, row.cpu_s, row.games_per_second, row.cpu_ms_per_game):
        assert math.isfinite(figure) and figure > 0, row
    assert row.wall_ratio == pytest.approx(row.wall_s / base.wall_s)
    assert row.cpu_ratio == pytest.approx(row.cpu_s / base.cpu_s)
    assert row.games_per_second == pytest.approx(row.games / row.wall_s)
    assert row.cpu_ms_per_game == pytest.approx(1000 * row.cpu_s / row.games)


def test_local_rows_are_well_formed_against_the_yardstick() -> None:
    result = bench_batch(TINY, repeat=2, backends=LOCAL)
    assert [row.name for row in result.rows] == [spec.name for spec in LOCAL]
    base = result.rows[0]
    assert base.name == YARDSTICK.name and base.wall_ratio == 1.0 and base.cpu_ratio == 1.0
    for row in result.rows:
        _well_formed(row, base, runs=2)
    assert result.ray_start is None and result.ray_stop_wall_s is None and result.notes == ()


def test_bad_settings_are_refused_before_any_game() -> None:
    with pytest.raises(ValueError, match="repeat"):
        bench_batch(TINY, repeat=0, backends=LOCAL)
    with pytest.raises(ValueError, match="yardstick"):
        bench_batch(TINY, repeat=1, backends=BACKENDS[2:])  # Ray rows only (or none, without Ray)


def test_the_command_without_ray_prints_the_local_rows_and_one_line_about_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed
    result = CliRunner().invoke(app, ["bench", "batch", "--games", "4", "--repeat", "1"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert sum(RAY_MISSING in line for line in lines) == 1
    assert any("local, 1 process" in line for line in lines)
    assert any("local, 2 processes" in line for line in lines)
    assert not any("ray, " in line or "starting Ray" in line for line in lines)


def test_the_command_refuses_a_bad_bot_list_in_one_line() -> None:
    result = CliRunner().invoke(app, ["bench", "batch", "--bots", "random", "--games", "4"])
    assert result.exit_code == 2
    assert "--bots" in result.output
