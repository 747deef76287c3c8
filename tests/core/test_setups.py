"""``tabletop.core.setups``: the seedless key of a config, and checking once per key."""

from __future__ import annotations

import pytest

from tabletop.core.errors import ConfigError
from tabletop.core.protocol import GameConfig
from tabletop.core.setups import SetupCache, seedless_key


def test_the_key_leaves_out_the_seed_and_nothing_else() -> None:
    assert seedless_key(GameConfig(3, seed=1)) == seedless_key(GameConfig(3, seed=2))
    assert seedless_key(GameConfig(3)) != seedless_key(GameConfig(4))
    assert seedless_key(GameConfig(3)) != seedless_key(GameConfig(3, ruleset="english"))
    assert seedless_key(GameConfig(3)) != seedless_key(GameConfig(3, start_player=0))
    assert seedless_key(GameConfig(3)) != seedless_key(GameConfig(3, map="isola"))


def test_values_that_only_compare_equal_have_different_keys() -> None:
    assert seedless_key(GameConfig(3, variants={"f": True})) != seedless_key(GameConfig(3, variants={"f": 1}))
    assert seedless_key(GameConfig(3)) != seedless_key(GameConfig(3.0))  # type: ignore[arg-type]
    assert seedless_key(GameConfig(3, start_player=1)) != seedless_key(GameConfig(3, start_player=True))


def test_flags_in_any_order_and_inline_maps_by_content() -> None:
    assert seedless_key(GameConfig(2, variants={"a": 1, "b": 2})) == seedless_key(
        GameConfig(2, variants={"b": 2, "a": 1})
    )
    assert seedless_key(GameConfig(2, map={"x": 1, "y": [2]})) == seedless_key(GameConfig(2, map={"y": [2], "x": 1}))
    assert seedless_key(GameConfig(2, map={"x": 1})) != seedless_key(GameConfig(2, map={"x": 2}))


def test_no_key_for_values_that_cannot_be_one() -> None:
    assert seedless_key(GameConfig(2, variants={"f": ["a"]})) is None  # type: ignore[dict-item]
    assert seedless_key(GameConfig(2, map={"x": object()})) is None
    deep: dict[str, object] = {}
    inner = deep
    for _ in range(100_000):  # hostile: deeper than JSON can be written
        inner["a"] = inner = {}
    assert seedless_key(GameConfig(2, map=deep)) is None


def test_checked_once_per_key_and_refused_every_time() -> None:
    checked: list[GameConfig] = []

    def check(config: GameConfig) -> int:
        checked.append(config)
        if config.num_players > 4:
            raise ConfigError("too many")
        return config.num_players

    cache = SetupCache(check, size=2)
    assert [cache.get(GameConfig(3, seed=s)) for s in range(5)] == [3] * 5
    assert len(checked) == 1
    for _ in range(2):
        with pytest.raises(ConfigError):
            cache.get(GameConfig(5))
    assert len(checked) == 3
    cache.get(GameConfig(2))
    cache.get(GameConfig(4))  # a third key: the full cache starts again
    cache.get(GameConfig(3))
    assert len(checked) == 6
    unkeyed = GameConfig(2, variants={"f": ["a"]})  # type: ignore[dict-item]
    cache.get(unkeyed)
    cache.get(unkeyed)
    assert len(checked) == 8
