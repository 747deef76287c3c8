"""The native game's cache of initial setups: keyed by the position, not the seed.

Building a native initial state (the Python position's JSON, parsed in Rust) costs more
than a random Medina game's moves, so ``NativeGame`` keeps one per initial position
and every seed that draws the same position shares it; a seed that draws another
position (a random start square) gets its own.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tabletop
from tabletop.ai.agent import random_move
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import GameConfig
from tabletop.native import native_class
from tests.native import needs_native

pytestmark = needs_native("terranova", "medina")


def test_seeds_that_draw_the_same_position_share_one_native_setup() -> None:
    game: Any = tabletop.make("medina", engine="native")
    first = game.new_initial_state(GameConfig(num_players=3, seed=1))
    setups = dict(game._shared)
    second = game.new_initial_state(GameConfig(num_players=3, seed=2))
    assert game._shared == setups  # the second seed found the first one's setup
    assert first.config.seed == 1 and second.config.seed == 2


@pytest.mark.parametrize("game_id", ["medina", "terranova"])
def test_positions_drawn_from_the_seed_play_as_the_python_engine(game_id: str) -> None:
    variants = {"start_merchant": "random"} if game_id == "medina" else {}
    native: Any = tabletop.make(game_id, engine="native")
    python = tabletop.make(game_id, engine="python")
    native._shared.clear()
    for seed in range(24):
        config = GameConfig(num_players=3, seed=seed, variants=variants)
        state, reference = native.new_initial_state(config), python.new_initial_state(config)
        rng = random.Random(seed)
        for _ in range(6):
            assert list(state.legal_moves()) == list(reference.legal_moves())
            assert state.current_player == reference.current_player
            move = random_move(reference, rng)
            state, reference = state.apply(move), reference.apply(move)
    # Random start squares (Medina) and start players (both games) give several setups,
    # each shared by the seeds that drew it.
    assert 1 < len(native._shared) < 24


@pytest.mark.parametrize(("game_id", "players"), [("terranova", 2), ("terranova", 4), ("medina", 3)])
def test_a_game_started_from_a_known_draw_is_the_python_engines_game(game_id: str, players: int) -> None:
    # After the first game of a draw, a new one starts from the kept Rust position
    # (`initial_draw`), with no Python state until one is asked for: then it is the
    # Python engine's initial state of the same config, and the game goes on as there.
    native: Any = tabletop.make(game_id, engine="native")
    python = tabletop.make(game_id, engine="python")
    native._shared.clear()
    native._drawn.clear()
    for seed in range(12):
        native.new_initial_state(GameConfig(num_players=players, seed=seed))
    built = len(native._shared)
    for seed in range(12, 40):
        config = GameConfig(num_players=players, seed=seed)
        state, reference = native.new_initial_state(config), python.new_initial_state(config)
        assert state.config == reference.config and state.config.seed == seed
        assert state.current_player == reference.current_player
        rng = random.Random(seed)
        for _ in range(8):
            move = random_move(reference, rng)
            state, reference = state.apply(move), reference.apply(move)
        assert state.to_json() == reference.to_json()  # replayed from the Python initial state
        assert state.python_state() == reference
    assert len(native._shared) == built  # every later seed drew a position seen before


def test_an_unseeded_game_draws_its_own_start() -> None:
    native: Any = tabletop.make("terranova", engine="native")
    python = tabletop.make("terranova", engine="python")
    assert python.initial_draw(GameConfig(num_players=3)) is None  # type: ignore[attr-defined]
    for _ in range(4):
        state = native.new_initial_state(GameConfig(num_players=3))
        assert state.config.start_player == state.current_player  # stored, so records replay it
        assert state.python_state().config == state.config


@given(seed=st.integers(min_value=-(2**63), max_value=2**63 - 1), players=st.integers(min_value=2, max_value=4))
@settings(max_examples=300, deadline=None)
def test_the_rust_start_player_draw_is_the_python_engines(seed: int, players: int) -> None:
    rust = native_class("terranova")
    config = GameConfig(num_players=players, seed=seed)
    assert rust.initial_draw(config) == tabletop.make("terranova", engine="python").initial_draw(config)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "config",
    [
        GameConfig(num_players=2),  # unseeded: each game draws its own
        GameConfig(num_players=2, seed=2**64),  # beyond 64 bits: the Python engine draws
        GameConfig(num_players=2, seed=True),
        GameConfig(num_players=9, seed=1),
        GameConfig(num_players=2, start_player=True),
    ],
)
def test_the_rust_draw_leaves_other_configs_to_the_python_engine(config: GameConfig) -> None:
    assert native_class("terranova").initial_draw(config) is None


def test_a_config_the_python_engine_refuses_finds_no_kept_start() -> None:
    native: Any = tabletop.make("terranova", engine="native")
    native.new_initial_state(GameConfig(num_players=2, seed=1))
    with pytest.raises(ConfigError):  # the same draw as a kept one, but no such game
        native.new_initial_state(GameConfig(num_players=2, seed=1, variants={"no_such_flag": True}))
    with pytest.raises(ConfigError):
        native.new_initial_state(GameConfig(num_players=2, start_player=7))


def _fields(state: Any) -> dict[str, Any]:
    """A state's exported fields, as lists (for comparing Rust with Python)."""
    return {
        name: [*value] if isinstance(value, tuple) else value
        for name, value in state.native.export().items()
        if name != "palaces"
    }


SECOND_EDITION_DRAWS = [
    {"ruleset": "second_edition"},
    {"ruleset": "boardspace_v2"},
    {"ruleset": "second_edition", "variants": {"well": "F6"}},
    {"ruleset": "second_edition", "variants": {"start_merchant": "player"}},
    {"ruleset": "second_edition", "variants": {"well": "none", "well_bonus_squares": "plaza_ring"}},
    {"ruleset": "second_edition", "start_player": 1},
]
"""Second-edition configs whose seeds draw the well, the starting merchant, or both."""


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("config", SECOND_EDITION_DRAWS, ids=str)
def test_a_second_edition_draw_is_placed_in_rust_as_the_python_engine_draws_it(
    players: int, config: dict[str, Any]
) -> None:
    native: Any = tabletop.make("medina", engine="native")
    python = tabletop.make("medina", engine="python")
    for seed in range(12):
        game_config = GameConfig(num_players=players, seed=seed, **config)
        state = native.new_initial_state(game_config)
        expected = python.new_initial_state(game_config)
        assert state.config == expected.config  # the draws recorded, as the Python game does
        # The Rust position (made by `with_draw` after the first seed) is the Python one's.
        loaded = native.load_state(expected)
        assert _fields(state) == _fields(loaded), seed
        assert state.python_state() == expected
    assert len(native._with_draw) == 1  # one kept start for every seed of the config


def test_a_second_edition_start_draws_in_rust_without_a_python_state() -> None:
    native: Any = tabletop.make("medina", engine="native")
    native.new_initial_state(GameConfig(num_players=3, ruleset="second_edition", seed=0))
    kept = dict(native._shared)
    rng = random.Random(1)
    for seed in range(1, 40):
        state = native.new_initial_state(GameConfig(num_players=3, ruleset="second_edition", seed=seed))
        while not state.is_terminal():
            state = state.apply(random_move(state, rng))
    assert native._shared == kept  # no new setup was built from a Python initial state
