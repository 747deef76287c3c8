"""Bots on real positions whose best play is known: score now what can be scored now.

Positions come from the shared test position builders (``tests/builders.py``); the bots
themselves only ever see the protocol.
"""

from __future__ import annotations

import pytest
from tests.builders import medina_position, terranova_position
from tests.games.terranova.helpers import parallelogram

from tabletop.ai.agent import make_agent
from tabletop.core.protocol import State

BOTS = ["greedy", "mcts:2"]


def play_turn(spec: str, state: State) -> State:
    """Lets the bot play every action of the current player's turn."""
    agent = make_agent(spec, seed=1)
    seat, turn = state.current_player, state.turn
    while not state.is_terminal() and state.current_player == seat and state.turn == turn:
        state = state.apply(agent.choose_move(state))
    return state


@pytest.mark.parametrize(("spec", "points"), [("greedy", 15), ("mcts:2", 18), ("alphabeta:3", 18)])
def test_terranova_closes_the_forest_for_points_now(spec: str, points: int) -> None:
    # P(7,3) "FFMAPSH": columns q=0,1 are forest (6 cells).  Stones on (2,0) and (2,1)
    # leave one gap, (2,2).  Yellow (seat 0) has the only pioneer in the forest, so
    # moving it next to the gap and placing a stone there closes 6 forest cells:
    # 6 x (4 - 1) = 18 points.  The rest (A P S H, 4 landscapes) stays open ground,
    # where red has 4 pioneers to yellow's 1: the forest decides the game.
    # Yellow's other pioneer (6,1) cannot reach the forest: with it able to slide in,
    # closing 5 cells with both pioneers would end the game at once (only red could
    # still move, end condition E2) with yellow ahead 15-0, which MCTS rightly prefers.
    state = terranova_position(
        parallelogram(7, 3, "FFMAPSH"),
        {0: [(1, 1), (6, 1)], 1: [(4, 1), (6, 0), (3, 2), (5, 2)]},
        stones=[(2, 0), (2, 1)],
    )
    # Greedy completes only its 4 best first actions (by their immediate value, mostly
    # ties here), so it may close 5 of the 6 cells (15).  A three-ply alpha-beta search
    # finds all 18, and so does MCTS: the rest of this small game is short enough for
    # random rollouts, so its root is not ranked by the evaluation (ranked, it tried the
    # stone that closes 5 cells first and settled for 15).
    after = play_turn(spec, state)
    assert after.scores()[0] >= points


@pytest.mark.parametrize("spec", BOTS)
def test_medina_claims_the_big_palace_before_the_next_player_can(spec: str) -> None:
    # An unfinished orange palace of 4 pieces with 2 merchants beside it is worth
    # 6 points plus the orange tile (4).  Every seat holds domes: if seat 0 does not
    # dome it this turn, seat 1 will.
    state = medina_position("orange:E5 E6 E7 F7", "M:D5 D6", num_players=3)
    after = play_turn(spec, state)
    assert after.scores()[0] >= 10
