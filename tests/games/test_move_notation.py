"""Every legal move prints its own notation and reads back from it, in both games.

``str(move)`` is the move's notation for the board it was made on (python-chess's
``Move.uci()``), the same text as ``state.move_to_str(move)``; ``state.parse_move``
reads it back against that state's board (``Move.from_uci``), on any map.
"""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.core.protocol import GameConfig, State
from tabletop.core.registry import make
from tests.games.terranova.helpers import d37, parallelogram

CONFIGS = [
    ("terranova", GameConfig(num_players=2, map="isola")),
    ("terranova", GameConfig(num_players=3, map="isola")),
    ("terranova", GameConfig(num_players=2, map=d37())),
    ("terranova", GameConfig(num_players=2, map=parallelogram(9, 3, "FFMMAPSHR"))),
    ("medina", GameConfig(num_players=3)),
    ("medina", GameConfig(num_players=4)),
]


def _random_position(game_id: str, config: GameConfig, seed: int, plies: int) -> State:
    rng = random.Random(seed)
    state = make(game_id, engine="python").new_initial_state(replace(config, seed=seed))
    for _ in range(plies):
        if state.is_terminal():
            break
        kind = rng.choice(list(state.legal_kinds()))
        state = state.apply(rng.choice(list(state.legal_moves_of_kind(kind))))
    return state


@settings(max_examples=12, deadline=None)
@given(
    case=st.sampled_from(range(len(CONFIGS))),
    seed=st.integers(0, 2**16),
    plies=st.integers(0, 120),
)
def test_every_legal_move_prints_and_reads_its_notation(case: int, seed: int, plies: int) -> None:
    game_id, config = CONFIGS[case]
    state = _random_position(game_id, config, seed, plies)
    for move in state.legal_moves():
        text = str(move)
        assert text == state.move_to_str(move)
        assert state.parse_move(text) == move
