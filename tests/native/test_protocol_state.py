"""The native protocol state (``tabletop._native.NativeState``) against bad input.

A native state answers the protocol's calls in Rust; what it is handed comes from the
layers above and, through the server, from the network.  Whatever it is given that is
not a legal move of its game gets the protocol's error and changes nothing.
"""

from __future__ import annotations

import copy
import math
import random
from typing import Any

import pytest

import tabletop
from tabletop.core.errors import IllegalMoveError
from tabletop.core.protocol import GameConfig
from tabletop.native import NativeState, python_state
from tests.native import needs_native

pytestmark = needs_native("terranova", "medina")

GAMES = [("terranova", 2), ("medina", 3)]


def mid_game(game_id: str, players: int, plies: int = 12) -> Any:
    state = tabletop.make(game_id, engine="native").new_initial_state(GameConfig(num_players=players, seed=4))
    rng = random.Random(4)
    for _ in range(plies):
        state = state.apply(rng.choice(state.legal_moves()))
    return state


@pytest.mark.parametrize(("game_id", "players"), GAMES)
@pytest.mark.parametrize("bad", [None, "pass", 3, 2.5, math.nan, b"\x00", object(), [1, 2], {"kind": "move"}])
def test_what_is_not_a_move_is_an_illegal_move(game_id: str, players: int, bad: object) -> None:
    state = mid_game(game_id, players)
    before = state.to_json()
    with pytest.raises(IllegalMoveError):
        state.apply(bad)
    assert not state.is_legal(bad)
    assert state.to_json() == before


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_a_move_of_the_other_game_or_not_legal_now_is_refused(game_id: str, players: int) -> None:
    state = mid_game(game_id, players)
    other = mid_game(*next(g for g in GAMES if g[0] != game_id))
    with pytest.raises(IllegalMoveError):
        state.apply(other.legal_moves()[0])
    earlier = tabletop.make(game_id, engine="native").new_initial_state(GameConfig(num_players=players, seed=4))
    stale = [m for m in earlier.legal_moves() if not state.is_legal(m)]
    assert stale, "the first position's moves should not all be legal twelve moves later"
    with pytest.raises(IllegalMoveError):
        state.apply(stale[0])


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_a_move_another_position_just_listed_is_still_checked(game_id: str, players: int) -> None:
    # `apply` takes a move on trust only from the position whose own legal-move sequence
    # handed it out last; another position's, even one dropped since, is checked.
    state = mid_game(game_id, players)
    earlier = state.game.new_initial_state(GameConfig(num_players=players, seed=4))
    assert earlier.context.moves is state.context.moves  # one game: one move table
    listed = earlier.legal_moves()
    index = next(i for i, m in enumerate(listed) if not state.is_legal(m))
    before = state.to_json()
    with pytest.raises(IllegalMoveError):
        state.apply(listed[index])
    del earlier
    rng = random.Random(5)
    churn = state
    for _ in range(20):  # new states, which may reuse the dropped one's memory
        if churn.is_terminal():
            break
        churn = churn.apply(rng.choice(churn.legal_moves()))
    with pytest.raises(IllegalMoveError):
        state.apply(listed[index])
    assert state.to_json() == before


@pytest.mark.parametrize(("game_id", "players"), GAMES)
@pytest.mark.parametrize("bad", [-1, 2**31, 2**70, -(2**70), 2.0, math.inf, "0", None, True])
def test_bad_action_ids_are_illegal_moves(game_id: str, players: int, bad: object) -> None:
    state = mid_game(game_id, players)
    with pytest.raises(IllegalMoveError):
        state.apply_action(bad)
    with pytest.raises((KeyError, TypeError, OverflowError, ValueError)):
        state.move_of_action(bad)


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_kinds_and_moves_agree_with_the_python_engine(game_id: str, players: int) -> None:
    state = mid_game(game_id, players, plies=20)
    reference = python_state(state)
    assert tuple(state.legal_kinds()) == tuple(reference.legal_kinds())
    for kind in [*state.legal_kinds(), "no such kind", ""]:
        assert list(state.legal_moves_of_kind(kind)) == list(reference.legal_moves_of_kind(kind))
    with pytest.raises(TypeError):
        state.legal_moves_of_kind(None)
    for i, move in enumerate(state.legal_moves()):
        assert python_state(state.apply(move)) == reference.apply(move)
        assert state.move_of_action(state.context.moves.encode(move)) is move
        if i > 20:
            break


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_a_native_state_is_an_immutable_value(game_id: str, players: int) -> None:
    state = mid_game(game_id, players)
    assert isinstance(state, NativeState)
    assert copy.copy(state) is state and copy.deepcopy(state) is state
    with pytest.raises(AttributeError):
        state.current_player = 0
    with pytest.raises(AttributeError):
        state.pioneers  # noqa: B018 - a game's fields are python_state(state)'s
    assert hash(state) == hash(python_state(state))
    assert state == mid_game(game_id, players) and state != python_state(state)


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_the_python_state_is_rebuilt_after_the_states_before_are_gone(game_id: str, players: int) -> None:
    # A native state keeps the steps that led to it, not the states: the loop below
    # drops each one, and the last still rebuilds its Python state by replay.
    native = tabletop.make(game_id, engine="native").new_initial_state(GameConfig(num_players=players, seed=9))
    python = tabletop.make(game_id, engine="python").new_initial_state(GameConfig(num_players=players, seed=9))
    rng = random.Random(9)
    for _ in range(40):
        move = rng.choice(python.legal_moves())
        native, python = native.apply(move), python.apply(move)
    assert native.python_state() == python
    assert native.to_json() == python.to_json()
