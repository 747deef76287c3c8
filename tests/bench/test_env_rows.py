"""The vector env rows, the parallel env row and the yardsticks of ``tabletop bench env``
run and count steps."""

from __future__ import annotations

import pytest

from tabletop import make
from tabletop.bench.env import bench_env
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
