"""The action and observation encodings of both games (``Game.encoding``), as properties.

For random positions of every game and player count (Terra Nova also on small custom
maps): the mask is exactly the legal moves, ``decode(encode(m)) == m`` for every legal
move, and the observation of every seat is the same after the game is saved as a
record (``GameRecord.dumps``/``loads``, the project's own save format) and replayed.
Needs no NumPy: these run with or without the ``rl`` extra.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop import GameConfig, GameRecord, PlayerInfo, make, replay
from tabletop.ai.agent import random_move
from tabletop.core.encoding import encoding_of
from tabletop.core.protocol import State
from tabletop.native import python_state
from tests.games.terranova.helpers import d37, parallelogram

CONFIGS = [
    ("terranova", 2, None),
    ("terranova", 3, None),
    ("terranova", 4, None),
    ("terranova", 2, "d37"),
    ("terranova", 3, "p7x5gap"),
    ("medina", 3, None),
    ("medina", 4, None),
]
MAPS = {"d37": d37, "p7x5gap": lambda: parallelogram(7, 5, "FMAPSHA", missing=[(3, 2)])}


def _config(game_id: str, players: int, map_name: str | None, seed: int) -> GameConfig:
    board = MAPS[map_name]() if map_name else None
    return GameConfig(num_players=players, seed=seed, map=board)


def _play(game_id: str, config: GameConfig, plies: int, seed: int) -> tuple[State, list[object]]:
    state = make(game_id).new_initial_state(config)
    rng = random.Random(seed)
    moves = []
    for _ in range(plies):
        if state.is_terminal():
            break
        move = random_move(state, rng)
        moves.append(move)
        state = state.apply(move)
    return state, moves


@pytest.mark.parametrize(("game_id", "players", "map_name"), CONFIGS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), plies=st.integers(0, 400))
def test_mask_round_trip_and_saved_observation(
    game_id: str, players: int, map_name: str | None, seed: int, plies: int
) -> None:
    config = _config(game_id, players, map_name, seed)
    enc = encoding_of(make(game_id), config)
    initial = make(game_id).new_initial_state(config)
    state, moves = _play(game_id, config, plies, seed)

    legal = list(state.legal_moves())
    actions = enc.legal_actions(state)
    assert actions == sorted(set(actions))
    assert sorted(enc.encode(m) for m in legal) == actions
    for move in legal:
        assert enc.decode(enc.encode(move)) == move
    mask = enc.action_mask(state)
    assert len(mask) == enc.num_distinct_actions
    assert [a for a, bit in enumerate(mask) if bit] == actions
    assert all(enc.decode(a) in legal for a in actions)

    record = GameRecord.from_states(initial, moves, [PlayerInfo(f"p{i}", "random") for i in range(players)])  # type: ignore[arg-type]
    loaded = replay(GameRecord.loads(record.dumps()))
    assert enc.legal_actions(loaded) == actions
    for seat in range(players):
        planes, vector = enc.observe(state, seat)
        assert len(planes) == len(enc.spec.planes) * enc.spec.plane_size
        assert len(vector) == len(enc.spec.vector)
        assert enc.observe(loaded, seat) == (planes, vector)


@pytest.mark.parametrize(("game_id", "players", "map_name"), CONFIGS)
def test_every_index_decodes_or_is_refused(game_id: str, players: int, map_name: str | None) -> None:
    enc = encoding_of(make(game_id), _config(game_id, players, map_name, 0))
    decodable = 0
    for action in range(enc.num_distinct_actions):
        try:
            move = enc.decode(action)
        except ValueError:
            continue
        decodable += 1
        assert enc.encode(move) == action
        assert enc.action_to_str(action) == str(move)
    assert decodable > 0
    for bad in (-1, enc.num_distinct_actions):
        with pytest.raises(ValueError):
            enc.decode(bad)


def test_observation_is_relative_to_the_observer() -> None:
    game = make("terranova")
    config = GameConfig(num_players=3, seed=5)
    enc = encoding_of(game, config)
    state, _ = _play("terranova", config, 12, 5)
    spec = enc.spec
    hw = spec.plane_size
    for seat in range(3):
        planes, vector = enc.observe(state, seat)
        for player in range(3):
            rel = (player - seat) % 3
            base = spec.plane(f"pioneers:+{rel}") * hw
            count = sum(planes[base : base + hw])
            assert count == python_state(state).pioneers[player].bit_count()  # type: ignore[attr-defined]
        assert vector[spec.vector.index(f"to_move:+{(state.current_player - seat) % 3}")] == 1.0


def test_shapes() -> None:
    tn = encoding_of(make("terranova"), GameConfig(num_players=2))
    assert (tn.num_distinct_actions, tn.spec.shape, len(tn.spec.vector)) == (14449, (24, 15, 15), 23)
    md = encoding_of(make("medina"), GameConfig(num_players=4))
    assert (md.num_distinct_actions, md.spec.shape, len(md.spec.vector)) == (2107, (29, 13, 18), 90)


def test_a_game_without_the_hook_is_refused() -> None:
    from tabletop.core.errors import ConfigError
    from tests.ai.toy_game import GAME

    with pytest.raises(ConfigError, match="no action and observation encoding"):
        encoding_of(GAME, GameConfig(num_players=2))  # type: ignore[arg-type]
