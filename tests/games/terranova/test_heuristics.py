"""Terra Nova's evaluation (``heuristics.evaluate``) on hand-made positions, and greedy play.

Positions are built with ``helpers.position`` (spec §7 conventions: the named seat is
about to take action 1).  Each test compares two positions whose better one is obvious
to a player and checks that the evaluation ranks them the same way.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from tabletop.ai.agent import make_agent
from tabletop.core.protocol import GameConfig
from tabletop.games.terranova import GAME, State
from tabletop.games.terranova.heuristics import URGENCY, evaluate, going_on, territories
from tests.builders import terranova_position as position

from .helpers import d37, disc168, parallelogram


def margin(state: State, seat: int = 0) -> float:
    """The seat's estimated final score minus the best rival's."""
    values = evaluate(state)
    return values[seat] - max(v for i, v in enumerate(values) if i != seat)


def play(state: State, moves: Iterable[str]) -> State:
    for text in moves:
        state = state.apply(state.parse_move(text))
    return state


# P(9,3) "FFMMAPSHR" with stones on (4,0) and (4,1): a stone on (4,2) closes columns 0-3
# (12 cells, forest and meadow: 24 points).  Yellow (seat 0) slides (7,1) -> (5,1) to
# be next to the gap, then places it.
CLOSE = ("h2-f2", "#e3")


def closing_position(left_yellow: list[tuple[int, int]], left_red: list[tuple[int, int]]) -> State:
    return position(
        parallelogram(9, 3, "FFMMAPSHR"),
        {0: [*left_yellow, (7, 1), (6, 2)], 1: [*left_red, (8, 0), (6, 0)]},
        stones=[(4, 0), (4, 1)],
    )


def test_closing_an_area_you_win_beats_closing_one_the_rival_wins() -> None:
    won = play(closing_position([(0, 1), (2, 2)], [(1, 0)]), CLOSE)
    lost = play(closing_position([(0, 1)], [(1, 0), (2, 2)]), CLOSE)
    assert won.points == (24, 0) and lost.points == (0, 24)
    assert margin(won) > margin(lost) + 30


def test_closing_an_area_you_win_beats_leaving_it_open() -> None:
    before = closing_position([(0, 1), (2, 2)], [(1, 0)])
    closed = play(before, CLOSE)
    # The same slide, then a stone that closes nothing.
    open_ = play(before, ("h2-f2", "#f1"))
    assert open_.points == (0, 0)
    assert margin(closed) > margin(open_)
    # The rival would rather the area stayed open than see yellow score it.
    assert margin(closed, 1) < margin(open_, 1)


WEST = [(-3, 0), (-3, 2), (-2, -1), (-3, 1)]
EAST = [(3, 0), (3, -2), (2, -1), (2, 1)]


def test_a_pioneer_that_contests_a_rival_region_takes_territory() -> None:
    # D3-7: yellow's four pioneers hold the west, red's four the east.  Moving one of
    # yellow's into the east takes ground from red.
    rival_alone = position(d37(), {0: [(-1, 0), *WEST[1:]], 1: EAST})
    contested = position(d37(), {0: [(1, 1), *WEST[1:]], 1: EAST})
    before, after = territories(rival_alone), territories(contested)
    assert after[1] < before[1]
    assert margin(contested) > margin(rival_alone)


def test_a_stone_on_the_rivals_side_beats_one_on_your_own() -> None:
    base = position(d37(), {0: [(-1, 0), *WEST[1:]], 1: EAST})
    moved = play(base, ("c4-d4",))  # (-1,0) -> (0,0), the middle
    on_rival = play(moved, ("#e4",))  # (1,0): as near to red as to yellow
    on_own = play(moved, ("#c4",))  # (-1,0): in yellow's west
    assert margin(on_rival) > margin(on_own)


def test_dead_ground_is_worth_nothing_and_a_finished_game_is_its_score() -> None:
    # West of the wall (columns 0-3) is a zone without pioneers: nobody can score it.
    board, wall = parallelogram(9, 3, "FFMMAPSHR"), [(4, 0), (4, 1), (4, 2)]
    dead = position(board, {0: [(7, 1)], 1: [(8, 0)]}, stones=wall)
    live = position(board, {0: [(7, 1), (1, 1)], 1: [(8, 0)]}, stones=wall)
    east = 12 * (1 + URGENCY / 12)  # the whole east zone, weighed
    assert sum(territories(dead)) <= east + 1e-9
    assert territories(live)[0] > territories(dead)[0]
    finished = play(position(parallelogram(7, 1, "AABCDDE"), {0: [(0, 0), (1, 0)], 1: [(6, 0)]}), ("b1-c1", "#d1"))
    assert finished.is_terminal()
    assert evaluate(finished) == (6.0, 6.0)


def test_waiting_loses_value_as_the_stall_rule_nears() -> None:
    state = position(d37(), {0: [(-3, 0), (-2, 1), (0, 0)], 1: [(3, 0)]})
    fresh, late = state.replace(stall=0), state.replace(stall=18)
    assert margin(late) < margin(fresh)
    assert evaluate(state.replace(stall=20))[0] == 0.0  # E5 is due: nothing more will score


def test_a_seat_that_cannot_move_threatens_the_end() -> None:
    # T22's position: red's only pioneer at (0,0) is walled in; E2 ends the game.
    stuck = position(d37(), {0: [(-1, 0), (-1, 1), (0, 1), (3, -3)], 1: [(0, 0)]}, stones=[(1, 0), (1, -1), (0, -1)])
    free = position(d37(), {0: [(-1, 0), (-1, 1), (0, 1), (3, -3)], 1: [(0, 0)]}, stones=[(1, 0), (1, -1)])
    assert going_on(stuck) == 0.0
    assert going_on(free) > 0.0
    assert evaluate(stuck) == (0.0, 0.0)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_evaluate_is_defined_through_a_random_game(num_players: int) -> None:
    import random

    from tabletop.ai.agent import random_move

    rng = random.Random(num_players)
    state: State = GAME.new_initial_state(GameConfig(num_players, seed=num_players, map=disc168()))
    while not state.is_terminal():
        values = evaluate(state)
        assert len(values) == num_players
        assert all(v >= p for v, p in zip(values, state.points, strict=True))
        state = state.apply(random_move(state, rng))
    assert evaluate(state) == tuple(float(p) for p in state.points)


@pytest.mark.slow
def test_greedy_self_play_scores_points() -> None:
    # The issue: greedy against itself ended every 2-player game by the stall rule at 0-0.
    # One real game from a fixed seed (its length bounds the time, about 500 actions).
    state: State = GAME.new_initial_state(GameConfig(2, seed=3))
    agents = [make_agent("greedy", seed=11), make_agent("greedy", seed=12)]
    while not state.is_terminal():
        state = state.apply(agents[state.current_player].choose_move(state))
    outcome = state.outcome()
    assert outcome is not None
    assert max(outcome.scores) > 0
    assert outcome.termination != "stall"
