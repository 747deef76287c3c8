"""The legal moves in a match's view: the state's own listing where it has one, else move_to_str."""

from __future__ import annotations

import random

import pytest

from tabletop.core.protocol import GameConfig
from tabletop.core.registry import make
from tabletop.server.rooms import legal_notation


@pytest.mark.parametrize("engine", ["python", "auto"])  # the server's default, and native where built
@pytest.mark.parametrize(("game_id", "players"), [("terranova", 2), ("medina", 3)])
def test_each_kind_lists_what_move_to_str_says(game_id: str, players: int, engine: str) -> None:
    game = make(game_id, engine)
    rng = random.Random(3)
    state = game.new_initial_state(GameConfig(num_players=players, seed=3))
    for _ in range(60):
        if state.is_terminal():
            break
        for kind in state.legal_kinds():
            assert legal_notation(state, kind) == [state.move_to_str(m) for m in state.legal_moves_of_kind(kind)]
        kind = rng.choice(list(state.legal_kinds()))
        state = state.apply(rng.choice(list(state.legal_moves_of_kind(kind))))


def test_terra_nova_on_the_server_s_engine_lists_its_own() -> None:
    state = make("terranova", "python").new_initial_state(GameConfig(num_players=2, seed=0))
    assert hasattr(state, "legal_notation_of_kind")  # the labels, not move_to_str per move
