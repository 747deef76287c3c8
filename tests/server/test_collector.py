"""The server's collector: survivors of a full pass frozen, everything walked again after a thaw."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from tabletop.server.collector import OLDEST, Collector


class _Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class _Node:
    """A cycle's member (a weak reference tells whether the collector freed it)."""

    def __init__(self) -> None:
        self.other: _Node | None = None


@pytest.fixture
def clock() -> _Clock:
    return _Clock()


@pytest.fixture
def collector(clock: _Clock) -> Iterator[Collector]:
    collector = Collector(thaw_every_s=600.0, now=clock)
    collector.start()
    try:
        yield collector
    finally:
        collector.stop()


def _in_oldest_generation(obj: object) -> bool:
    return any(o is obj for o in gc.get_objects(OLDEST))


def test_start_freezes_what_exists_and_stop_hands_it_back() -> None:
    before = [object(), []]
    collector = Collector()
    collector.start()
    assert gc.get_freeze_count() > 0
    assert not _in_oldest_generation(before)
    collector.stop()
    assert gc.get_freeze_count() == 0
    assert collector._on_collection not in gc.callbacks


def test_what_survives_a_full_pass_is_not_walked_by_the_next(collector: Collector) -> None:
    survivor: list[object] = [[]]
    gc.collect(1)
    assert _in_oldest_generation(survivor)  # promoted, not frozen: only a full pass freezes
    gc.collect()
    assert not _in_oldest_generation(survivor)
    assert gc.get_freeze_count() > 0


def test_a_cycle_that_died_frozen_is_freed_by_the_first_full_pass_after_the_thaw(
    collector: Collector, clock: _Clock
) -> None:
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    alive = weakref.ref(a)
    gc.collect()  # survives, frozen
    del a, b
    gc.collect()
    assert alive() is not None  # frozen: not walked
    clock.t += 599.0
    gc.collect()
    assert alive() is not None and collector.thaws == 0
    clock.t += 1.0
    gc.collect()
    assert alive() is None
    assert collector.thaws == 1
    assert gc.get_freeze_count() > 0  # what survived that pass is frozen again
