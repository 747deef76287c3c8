"""GameConfig.from_json: the one reader of a config (records, stored matches, bot workers)."""

from __future__ import annotations

import pytest

from tabletop.core.errors import ConfigError
from tabletop.core.protocol import GameConfig


@pytest.mark.parametrize(
    "config",
    [
        GameConfig(2),
        GameConfig(4, "english", {"return_rule": "strict", "stall_limit_rounds": None}, "isola", 7, 1),
        GameConfig(3, map={"id": "tiny", "rows": []}),
    ],
)
def test_round_trip(config: GameConfig) -> None:
    assert GameConfig.from_json(config.to_json()) == config


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ([], "a config"),
        ({}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"num_players": "2"}, "num_players"),
        ({"num_players": 2, "ruleset": 3}, "ruleset"),
        ({"num_players": 2, "variants": []}, "variants"),
        ({"num_players": 2, "variants": {"x": [1]}}, "variants"),
        ({"num_players": 2, "map": 5}, "map"),
        ({"num_players": 2, "seed": 1.5}, "seed"),
        ({"num_players": 2, "start_player": "0"}, "start_player"),
    ],
)
def test_wrong_types_are_config_errors_naming_the_field(data: object, field: str) -> None:
    with pytest.raises(ConfigError, match=field):
        GameConfig.from_json(data)
