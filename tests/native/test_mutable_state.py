"""The native engines' mutable states (``state.native.mutable_copy()``): ``apply_action``
changes the position in place, as OpenSpiel's states do, and plays exactly the games of
the immutable states' ``apply``; the immutable states behind the protocol never change.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import tabletop
from tabletop.core.protocol import GameConfig
from tests.native import needs_native

GAMES = [("terranova", 2), ("terranova", 4), ("medina", 3), ("medina", 4)]

pytestmark = needs_native("terranova", "medina")


def initial_core(game_id: str, num_players: int, seed: int) -> Any:
    game = tabletop.make(game_id, engine="native")
    return game.new_initial_state(GameConfig(num_players=num_players, seed=seed)).native


@pytest.mark.parametrize(("game_id", "num_players"), GAMES)
def test_in_place_games_are_the_immutable_games(game_id: str, num_players: int) -> None:
    for seed in range(3):
        immutable = initial_core(game_id, num_players, seed)
        mutable = immutable.mutable_copy()
        rng = random.Random(seed)
        steps = 0
        while not immutable.is_terminal():
            legal = list(immutable.legal_actions())
            assert list(mutable.legal_actions()) == legal
            assert mutable.current_player == immutable.current_player
            action = rng.choice(legal)
            immutable = immutable.apply(action)
            assert mutable.apply_action(action) is None
            steps += 1
        assert mutable.is_terminal()
        assert mutable.returns() == immutable.returns()
        assert mutable.state().export() == immutable.export()
        assert steps > 20


@pytest.mark.parametrize(("game_id", "num_players"), GAMES)
def test_copies_and_listed_actions_do_not_follow_later_moves(game_id: str, num_players: int) -> None:
    initial = initial_core(game_id, num_players, 0)
    before = initial.export()
    mutable = initial.mutable_copy()
    listed = mutable.legal_actions()
    first = list(listed)
    snapshot, twin = mutable.state(), mutable.clone()
    mutable.apply_action(first[0])
    assert list(listed) == first
    assert list(twin.legal_actions()) == first
    assert snapshot.export() == before
    assert initial.export() == before  # the shared initial position is untouched
    assert mutable.state().export() != before


@pytest.mark.parametrize(("game_id", "num_players"), GAMES)
def test_an_illegal_action_is_refused_and_changes_nothing(game_id: str, num_players: int) -> None:
    mutable = initial_core(game_id, num_players, 0).mutable_copy()
    before = mutable.state().export()
    legal = set(mutable.legal_actions())
    illegal = next(a for a in range(mutable.state().num_distinct_actions) if a not in legal)
    for action in (illegal, -1, 10**9):
        with pytest.raises(ValueError, match="action"):
            mutable.apply_action(action)
    assert mutable.state().export() == before
