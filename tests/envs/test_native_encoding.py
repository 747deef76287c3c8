"""The native encoder (``native/src/vector.rs``, ``terranova/encode.rs``, ``medina/encode.rs``)
against the Python encodings, its oracle: for random positions of both games at every
player count (Terra Nova also on small custom maps), mid-turn included, every seat's
planes and vector, the mask and the ascending list of legal actions are the same, value
for value.  Needs no NumPy."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop import make
from tabletop.core.encoding import encoding_of
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import GameConfig
from tabletop.core.registry import player_counts
from tabletop.native import has_native, native_module, python_state
from tests.envs.test_encoding import CONFIGS, _config

pytestmark = pytest.mark.skipif(not has_native("terranova"), reason="the extension tabletop._native is not built")


def _mid_turn(game_id: str, state: object) -> bool:
    """Whether the player to act has acted already this turn (Terra Nova's actions 2-3,
    Medina's second placement)."""
    py = python_state(state)  # type: ignore[arg-type]
    if game_id == "terranova":
        return py.phase == "play" and py.action > 0  # type: ignore[attr-defined]
    return py.phase == "play" and py.placements_left == 1  # type: ignore[attr-defined]


@pytest.mark.parametrize(("game_id", "players", "map_name"), CONFIGS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), plies=st.integers(0, 300))
def test_native_observation_and_mask_equal_the_python_encoding(
    game_id: str, players: int, map_name: str | None, seed: int, plies: int
) -> None:
    config = _config(game_id, players, map_name, seed)
    game = make(game_id, engine="native")
    native = encoding_of(game, config)
    oracle = encoding_of(make(game_id, engine="python"), config)
    state = game.new_initial_state(config)
    rng = random.Random(seed)
    mid_turn = 0
    for ply in range(plies + 1):
        if ply % 7 == 0 or ply == plies or state.is_terminal():
            py = python_state(state)
            for seat in range(players):
                assert native.observe(state, seat) == oracle.observe(py, seat), (ply, seat)
            assert native.action_mask(state) == oracle.action_mask(py)
            listed = native.native_encoder(state).legal_actions(state)  # type: ignore[attr-defined]
            assert listed == ([] if py.is_terminal() else oracle.legal_actions(py))
            mid_turn += _mid_turn(game_id, state)
        if state.is_terminal() or ply == plies:
            break
        state = state.apply(rng.choice(state.legal_moves()))


def test_mid_turn_positions_are_among_those_compared() -> None:
    """The comparison above meets turns in progress (its every 7th ply lands in them)."""
    game = make("terranova", engine="native")
    state = game.new_initial_state(_config("terranova", 2, None, 1))
    rng = random.Random(1)
    seen = 0
    ply = 0
    while not state.is_terminal():
        if ply % 7 == 0:
            seen += _mid_turn("terranova", state)
        state = state.apply(rng.choice(state.legal_moves()))
        ply += 1
    assert seen > 0


@pytest.mark.parametrize("game_id", ["terranova", "medina"])
def test_bad_buffers_and_seats_are_refused(game_id: str) -> None:
    from array import array

    game = make(game_id, engine="native")
    config = _config(game_id, player_counts(game)[0], None, 0)
    encoding = encoding_of(game, config)
    state = game.new_initial_state(config)
    encoder = encoding.native_encoder(state)  # type: ignore[attr-defined]
    planes = array("f", bytes(4 * encoder.planes_len))
    vector = array("f", bytes(4 * encoder.vector_len))
    with pytest.raises(ValueError, match="seat"):
        encoder.observe_into(state, 7, planes, vector)
    with pytest.raises(ValueError, match="items"):
        encoder.observe_into(state, 0, array("f", bytes(8)), vector)
    with pytest.raises(ValueError, match="planes"):
        encoder.observe_into(state, 0, bytes(4 * encoder.planes_len), vector)
    with pytest.raises(TypeError, match="native"):
        encoder.mask_into(object(), bytearray(encoder.num_actions))


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("ruleset", ["second_edition", "boardspace_v2"])
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), plies=st.integers(0, 300))
def test_the_second_edition_observation_and_mask_equal_the_python_encoding(
    players: int, ruleset: str, seed: int, plies: int
) -> None:
    # SecondEditionEncoding (2,342 actions, the well's and neutral planes, tea and tower
    # merchants in the vector), the 2-player board's fixed planes included.
    config = GameConfig(num_players=players, ruleset=ruleset, seed=seed)
    game = make("medina", engine="native")
    native = encoding_of(game, config)
    oracle = encoding_of(make("medina", engine="python"), config)
    assert native.num_distinct_actions == 2342
    state = game.new_initial_state(config)
    encoder = native.native_encoder(state)  # type: ignore[attr-defined]
    rng = random.Random(seed)
    for ply in range(plies + 1):
        if ply % 5 == 0 or ply == plies or state.is_terminal():
            py = python_state(state)
            for seat in range(players):
                assert native.observe(state, seat) == oracle.observe(py, seat), (ply, seat)
            assert native.action_mask(state) == oracle.action_mask(py)
            assert encoder.legal_actions(state) == oracle.legal_actions(py)
        if state.is_terminal() or ply == plies:
            break
        state = state.apply(rng.choice(state.legal_moves()))


def test_an_encoder_refuses_a_position_of_the_other_edition() -> None:
    first = make("medina", engine="native").new_initial_state(GameConfig(num_players=3))
    second = make("medina", engine="native").new_initial_state(GameConfig(num_players=3, ruleset="second_edition"))
    encoder = native_module().NativeEncoder(first)  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="edition"):
        encoder.mask_into(second, bytearray(encoder.num_actions))


def test_the_vector_env_refuses_the_second_edition() -> None:
    from tabletop.envs.vector import VectorGames

    with pytest.raises(ConfigError, match="first edition only"):
        VectorGames("medina", 2, num_players=2, ruleset="second_edition", variants={"well": "F6", "start_square": "E5"})
