"""The vector env rows, the parallel env row and the yardsticks of ``tabletop bench env``
run and count steps."""

from __future__ import annotations

import pytest

from tabletop import make
from tabletop.bench.env import EnvBench, bench_env, read_against
from tabletop.native import has_native


@pytest.mark.skipif(not has_native("medina"), reason="the extension tabletop._native is not built")
@pytest.mark.parametrize("adapter", ["vector-1", "vector-64-t2"])
def test_vector_rows_count_every_game_s_steps(adapter: str) -> None:
    pytest.importorskip("numpy")
    result = bench_env(make("medina"), 3, adapter, seconds=0.01)
    envs = int(adapter.split("-")[1])
    assert result.steps > 0 and result.steps % envs == 0
    assert result.steps_per_second > 0 and result.cpu_seconds > 0


def test_amazons_yardstick_and_pgx_without_a_python() -> None:
    pytest.importorskip("pyspiel")
    result = bench_env(make("terranova"), 2, "amazons-obs", seconds=0.01)
    assert result.steps > 0 and result.games >= 1
    with pytest.raises(ImportError, match="pgx-python"):
        bench_env(make("terranova"), 2, "pgx-64", seconds=0.01)


def test_the_parallel_env_row_plays_whole_games() -> None:
    pytest.importorskip("pettingzoo")
    result = bench_env(make("medina"), 3, "pettingzoo-parallel", seconds=0.01)
    assert result.games >= 1 and result.steps > result.games  # a game is many steps


def test_rows_are_read_against_their_yardstick_on_its_clock() -> None:
    # Two threads are read on the wall clock (their CPU time counts both), the OpenSpiel
    # adapter against Amazons on CPU time; a row without its yardstick in the run: nothing.
    results = {
        "vector-64": EnvBench("vector-64", 2, 1000, 10, seconds=1.0, cpu_seconds=1.0),
        "vector-64-t2": EnvBench("vector-64-t2", 2, 1800, 18, seconds=1.0, cpu_seconds=2.0),
        "openspiel": EnvBench("openspiel", 2, 300, 1, seconds=2.0, cpu_seconds=1.0),
        "amazons-obs": EnvBench("amazons-obs", 2, 200, 1, seconds=1.0, cpu_seconds=1.0),
    }
    assert read_against("vector-64-t2", results) == (1.8, "vector-64", "wall")
    assert read_against("openspiel", results) == (1.5, "amazons-obs", "cpu")
    assert read_against("vector-64", results) is None
    assert read_against("vector-1024-t2", {**results, "vector-1024-t2": results["vector-64-t2"]}) is None
