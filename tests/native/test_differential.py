"""The native engines against the Python engines, move by move (``tabletop.native.check``).

Every game with a native engine, every player count, every preset, every flag value and
random flag mixes: legal moves (same objects, same order), kinds, scores, outcome and
the exported fields at every step.  ``python -m tabletop.native.check GAME --games 10000``
runs the long version (``docs/native.md`` records its result).
"""

from __future__ import annotations

import pytest

from tabletop.core.protocol import GameConfig
from tabletop.core.registry import available_games, make
from tabletop.native import has_native
from tabletop.native.check import Mismatch, compare, configs, play_both, variant_configs
from tests.native import needs_native

NATIVE_GAMES = [game_id for game_id in available_games() if has_native(game_id)]
GAMES_IN_MAKE_TEST = {"terranova": 120}
"""Random games per game in ``make test`` (100 for a game not listed)."""

pytestmark = needs_native("terranova", "medina")


def _cases() -> list[tuple[str, GameConfig, int]]:
    cases = []
    for game_id in NATIVE_GAMES:
        game = make(game_id, engine="python")
        count = GAMES_IN_MAKE_TEST.get(game_id, 100)
        for i, config in enumerate(configs(game, count, seed=1000)):
            cases.append((game_id, config, 1000 + i))
    return cases


@pytest.mark.slow
@pytest.mark.parametrize(("game_id", "config", "seed"), _cases(), ids=lambda value: None)
def test_random_games_agree_at_every_step(game_id: str, config: GameConfig, seed: int) -> None:
    assert play_both(make(game_id, engine="python"), config, seed) > 0


@pytest.mark.parametrize("game_id", NATIVE_GAMES)
def test_every_preset_and_flag_value_is_covered(game_id: str) -> None:
    game = make(game_id, engine="python")
    listed = list(variant_configs(game))
    assert {ruleset for ruleset, _ in listed} == set(game.rulesets)
    for spec in game.options:
        for value in spec.choices or ():
            assert value == spec.default or ("default", {spec.name: value}) in listed


@pytest.mark.parametrize("game_id", NATIVE_GAMES)
def test_the_comparison_can_fail(game_id: str) -> None:
    # Two different positions of the same game must be told apart.
    python = make(game_id, engine="python").new_initial_state(GameConfig(num_players=3, seed=1))
    native = make(game_id, engine="native").new_initial_state(GameConfig(num_players=3, seed=1))
    compare(python, native, "start")
    moved = native.apply(native.legal_moves()[0])
    with pytest.raises(Mismatch):
        compare(python, moved, "after one move")
