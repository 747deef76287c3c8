"""A benchmark and its yardstick alternate, so that the machine's drift moves both alike."""

from __future__ import annotations

from collections import Counter

import pytest

from tabletop.bench.engine import PlayoutBench, Rate, alternated


def test_slices_alternate_and_add_up() -> None:
    calls: list[tuple[str, float, int]] = []

    def ours(seconds: float, seed: int) -> PlayoutBench:
        calls.append(("ours", seconds, seed))
        return PlayoutBench("g", 2, games=3, actions=30, seconds=seconds, terminations=Counter({"score": 3}))

    def stick(seconds: float, seed: int) -> Rate:
        calls.append(("stick", seconds, seed))
        return Rate(100, seconds / 2)

    result, reference = alternated(ours, stick, 2.0, seed=5, rounds=4)
    assert [c[0] for c in calls] == ["ours", "stick"] * 4
    assert {c[1] for c in calls} == {0.5}
    assert len({c[2] for c in calls if c[0] == "ours"}) == 4  # each slice plays its own games
    assert (result.games, result.actions, result.seconds) == (12, 120, 2.0)
    assert result.terminations == Counter({"score": 12})
    assert reference == Rate(400, 1.0) and reference.per_second == 400


def test_without_a_yardstick_the_benchmark_still_runs() -> None:
    def ours(seconds: float, seed: int) -> PlayoutBench:
        return PlayoutBench("g", 2, games=1, actions=10, seconds=seconds)

    result, reference = alternated(ours, lambda seconds, seed: None, 1.0, rounds=2)
    assert reference is None and result.actions == 20


@pytest.mark.parametrize(("seconds", "rounds"), [(0.0, 4), (-1.0, 4), (float("nan"), 4), (1.0, 0)])
def test_bad_slices_are_refused(seconds: float, rounds: int) -> None:
    def ours(seconds: float, seed: int) -> PlayoutBench:
        raise AssertionError("not called")

    with pytest.raises(ValueError, match="alternated"):
        alternated(ours, lambda seconds, seed: None, seconds, rounds=rounds)
