"""The Medina game object: protocol conformance, configuration and metadata."""

from __future__ import annotations

import pytest

from tabletop.core.errors import ConfigError
from tabletop.core.protocol import GameConfig, OptionValue
from tabletop.core.registry import make
from tabletop.testing.conformance import check_game

GAME = make("medina", engine="python")


def test_registered() -> None:
    assert GAME.id == "medina" and GAME.name == "Medina"
    assert GAME.bench_player_counts == (3, 4)
    assert (GAME.min_players, GAME.max_players) == (2, 4)


def test_protocol_conformance() -> None:
    check_game(GAME, n_games=1, seed=7, check_every=3)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_player_count_is_checked(n: int) -> None:
    # 2 players: the first edition (the default ruleset) is for 3 or 4.
    with pytest.raises(ConfigError, match=r"(3 or 4|2 to 4) players"):
        GAME.new_initial_state(GameConfig(num_players=n))


def test_map_must_be_none() -> None:
    with pytest.raises(ConfigError, match="map"):
        GAME.new_initial_state(GameConfig(num_players=3, map="isola"))


@pytest.mark.parametrize(
    ("variants", "flag"),
    [
        ({"no_such_flag": True}, "no_such_flag"),
        ({"abandoned_palace_claimable": 1}, "abandoned_palace_claimable"),
        ({"start_merchant": "nobody"}, "start_merchant"),
        ({"tower_values": "A1:4"}, "tower_values"),
        ({"edition": 3}, "edition"),
        ({"well": "Z99"}, "well"),
        ({"neutral_domes": "2:2"}, "neutral_domes"),
        ({"tie_break": "coin"}, "tie_break"),
    ],
)
def test_bad_variants_name_the_flag(variants: dict[str, object], flag: str) -> None:
    with pytest.raises(ConfigError, match=flag):
        GAME.new_initial_state(GameConfig(num_players=4, variants=variants))  # type: ignore[arg-type]


def test_unknown_ruleset() -> None:
    with pytest.raises(ConfigError, match="ruleset"):
        GAME.new_initial_state(GameConfig(num_players=4, ruleset="nope"))


def test_start_player() -> None:
    state = GAME.new_initial_state(GameConfig(num_players=4, start_player=2))
    assert state.current_player == 2
    after = state.apply(state.parse_move("start@H7"))
    assert after.current_player == 2 and after.placements_left == 2
    with pytest.raises(ConfigError, match="start_player"):
        GAME.new_initial_state(GameConfig(num_players=3, start_player=3))


def test_canonical_config_keeps_only_changed_flags() -> None:
    config = GameConfig(
        num_players=3, ruleset="boardspace", variants={"abandoned_palace_claimable": True, "hide_supplies": False}
    )
    canon = GAME.canonical_config(config)
    assert dict(canon.variants) == {"hide_supplies": False}
    assert GAME.canonical_config(canon) == canon


def test_random_start_merchant_is_seeded() -> None:
    config = GameConfig(num_players=3, seed=5, variants={"start_merchant": "random"})
    a, b = GAME.new_initial_state(config), GAME.new_initial_state(config)
    assert a == b
    assert a.ply == 0 and "merchant_start" not in a.legal_kinds()
    assert a.to_json()["start_merchant"] is not None


def test_initial_draw_is_nothing_unless_the_start_square_is_drawn() -> None:
    flags: dict[str, OptionValue] = {"start_merchant_anywhere": True}
    for config in [GameConfig(3, seed=1), GameConfig(4, seed=2, start_player=3), GameConfig(3, seed=3, variants=flags)]:
        drawn = GAME.initial_draw(config)  # type: ignore[attr-defined]
        assert drawn is not None
        state_config, draw = drawn
        assert draw is None and state_config == GAME.new_initial_state(config).config
    random_square = GameConfig(3, seed=5, variants={"start_merchant": "random"})
    assert GAME.initial_draw(random_square) is None  # type: ignore[attr-defined]
    with pytest.raises(ConfigError):
        GAME.initial_draw(GameConfig(2))  # type: ignore[attr-defined]


def test_tower_values_variant() -> None:
    state = GAME.new_initial_state(GameConfig(num_players=3, variants={"tower_values": "A1:1,R1:1,A13:1,R13:1"}))
    assert [t["value"] for t in state.to_json()["board"]["towers"]] == [1, 1, 1, 1]


def test_presets_build() -> None:
    for name in GAME.rulesets:
        GAME.new_initial_state(GameConfig(num_players=4, ruleset=name))


def test_a_checked_setup_is_not_reused_by_a_config_that_only_compares_equal() -> None:
    # Setups are cached by the config without its seed; `True == 1` and `3.0 == 3` in
    # Python, but only one of each pair is valid.
    GAME.new_initial_state(GameConfig(num_players=3, variants={"new_chain_may_touch_one": True}, seed=1))
    with pytest.raises(ConfigError, match="new_chain_may_touch_one"):
        GAME.new_initial_state(GameConfig(num_players=3, variants={"new_chain_may_touch_one": 1}, seed=2))
    GAME.new_initial_state(GameConfig(num_players=3, seed=3))
    with pytest.raises(ConfigError, match="3 or 4 players"):
        GAME.new_initial_state(GameConfig(num_players=3.0, seed=4))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="start_player"):
        GAME.new_initial_state(GameConfig(num_players=3, start_player=True, seed=5))
    with pytest.raises(ConfigError):
        GAME.new_initial_state(GameConfig(num_players=3, variants={"tower_values": ["A1:4"]}))  # type: ignore[dict-item]


def test_each_game_keeps_its_own_seed_and_flags() -> None:
    flags: dict[str, OptionValue] = {"start_merchant": "random", "hide_supplies": False}
    first = GAME.new_initial_state(GameConfig(num_players=3, seed=1, variants=flags))
    second = GAME.new_initial_state(GameConfig(num_players=3, seed=2, variants=flags))
    assert (first.config.seed, second.config.seed) == (1, 2)
    assert first.config.variants == second.config.variants == flags
    assert first.config.variants is not second.config.variants  # each config its own dict
    plain = GameConfig(num_players=3, seed=9)
    assert GAME.new_initial_state(plain).config == plain
