"""A native state's Python state built from its exported fields, not by replay
(``NativeGame.python_state_of``: the Rust position's ``export()``, then the game's
``State.from_fields``; ``docs/native.md``, "The protocol state").

Random games of every preset and player count the native engine plays run on both
engines with the same moves; at positions along the way the state built directly from the
native fields must equal the Python engine's state that the moves reached (the replayed
one): equal, the same ``to_json`` and the same legal moves.  Where the export lacks a
field (Terra Nova's scored ``areas``: the Rust engine keeps only their count) the direct
build declines and the state replays; that must happen only then.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tabletop.core.protocol import Game, GameConfig
from tabletop.core.registry import make
from tabletop.native import NativeGame, NativeState, native_game
from tabletop.native.check import native_plays
from tests.native import needs_native

pytestmark = needs_native("terranova", "medina")


def _preset_configs(game: Game) -> list[GameConfig]:
    """Every preset at every player count that the native engine plays."""
    return [
        GameConfig(num_players=n, ruleset=ruleset, seed=17 * n + i)
        for i, ruleset in enumerate(game.rulesets)
        for n in range(game.min_players, game.max_players + 1)
        if native_plays(game, GameConfig(num_players=n, ruleset=ruleset))
    ]


CASES = [
    (game_id, config)
    for game_id in ("terranova", "medina")
    for config in _preset_configs(make(game_id, engine="python"))
]


def _play_both(game_id: str, config: GameConfig, seed: int) -> list[tuple[NativeState, Any]]:
    """A kind-first random game on both engines, move for move (uniform moves seldom
    close a Terra Nova area): the positions as (native, Python)."""
    native = native_game(make(game_id, engine="python"))
    python_game = make(game_id, engine="python")
    rng = random.Random(seed)
    state: NativeState = native.new_initial_state(config)
    python: Any = python_game.new_initial_state(config)
    positions = [(state, python)]
    while not state.is_terminal():
        move = rng.choice(list(state.legal_moves_of_kind(rng.choice(list(state.legal_kinds())))))
        state = state.apply(move)
        python = python.apply(python.parse_move(python.move_to_str(move)))
        positions.append((state, python))
    return positions


def _scored_areas(state: NativeState) -> int:
    return int(state.native.export().get("num_areas", 0))


@pytest.mark.parametrize(("game_id", "config"), CASES, ids=[f"{g}-{c.ruleset}-{c.num_players}p" for g, c in CASES])
def test_the_state_built_from_native_fields_is_the_replayed_one(game_id: str, config: GameConfig) -> None:
    assert any(c.ruleset == "default" for g, c in CASES if g == game_id)  # every game has cases
    for seed in range(2):
        positions = _play_both(game_id, config, seed)
        native: NativeGame = native_game(make(game_id, engine="python"))
        step = max(1, len(positions) // 15)
        built = 0
        for state, replayed in [*positions[::step], positions[-1]]:
            direct = native.python_state_of(state)
            if direct is None:
                # Only where an exported field is missing: Terra Nova's areas.
                assert game_id == "terranova" and _scored_areas(state) > 0, state
                continue
            built += 1
            assert direct == replayed
            assert direct.to_json() == replayed.to_json()
            assert list(direct.legal_moves()) == list(replayed.legal_moves())
            assert direct.outcome() == replayed.outcome()
        assert built >= 2
        # The native state's own Python state (the protocol's `python_state`) is the same.
        last, replayed = positions[-1]
        assert last.python_state() == replayed and last.to_json() == replayed.to_json()


def test_a_medina_state_never_replays() -> None:
    # Medina's export names every field that the native engine's rules change: each of its
    # positions is built directly (a dropped field would fail the equality above instead).
    native = native_game(make("medina", engine="python"))
    for state, _ in _play_both("medina", GameConfig(3, seed=5), 5):
        assert native.python_state_of(state) is not None


def test_a_terra_nova_state_is_built_directly_until_an_area_is_scored() -> None:
    native = native_game(make("terranova", engine="python"))
    kinds = set()
    for state, replayed in _play_both("terranova", GameConfig(2, seed=3), 3):
        direct = native.python_state_of(state)
        kinds.add(direct is None)
        assert (direct is None) == (_scored_areas(state) > 0) == (len(replayed.areas) > 0)
    assert kinds == {True, False}  # the game scored an area: both cases were seen
