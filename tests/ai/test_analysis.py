"""Hints and analysis (``ai/analysis.py``) on positions whose best turn is known."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.builders import medina_position, terranova_position
from tests.games.terranova.helpers import parallelogram
from toy_game import GAME, LEFT, RIGHT

from tabletop.ai.analysis import (
    BLUNDER,
    INACCURACY,
    MIN_STAKE,
    MISTAKE,
    Thresholds,
    analyse,
    analyse_record,
    hint,
    margin,
    split_turns,
    turn_value,
)
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import GameConfig, State
from tabletop.core.record import GameRecord, PlayerInfo


def forest_position() -> State:
    """Terra Nova: yellow closes 6 forest cells (18 points) by a slide and one stone.

    The same position as ``tests/ai/test_scenarios.py`` explains: P(7,3) "FFMAPSH",
    stones on (2,0) and (2,1) leave the gap (2,2).
    """
    return terranova_position(
        parallelogram(7, 3, "FFMAPSH"),
        {0: [(1, 1), (6, 1)], 1: [(4, 1), (6, 0), (3, 2), (5, 2)]},
        stones=[(2, 0), (2, 1)],
    )


def palace_position() -> State:
    """Medina: seat 0 can dome the orange palace (6 points plus the tile's 4) before seat 1 does."""
    return medina_position("orange:E5 E6 E7 F7", "M:D5 D6", num_players=3)


def after(state: State, actions: tuple[str, ...] | list[str]) -> State:
    for text in actions:
        move = state.parse_move(text)
        assert state.is_legal(move), text
        state = state.apply(move)
    return state


@pytest.mark.parametrize(("spec", "points"), [("greedy", 15), ("mcts:2", 18)])
def test_hint_closes_the_forest(spec: str, points: int) -> None:
    state = forest_position()
    suggestion = hint(state, spec, seed=1)
    assert suggestion.seat == 0 and suggestion.level == spec
    end = after(state, suggestion.actions)
    assert end.scores()[0] >= points
    assert end.current_player != 0 or end.turn != state.turn  # a whole turn
    assert suggestion.value > suggestion.current


@pytest.mark.parametrize("spec", ["greedy", "mcts:2"])
def test_hint_domes_the_palace(spec: str) -> None:
    state = palace_position()
    suggestion = hint(state, spec, seed=1)
    assert len(suggestion.actions) == 2  # a Medina turn: two placements
    assert any(a.startswith("dome@") for a in suggestion.actions)
    assert after(state, suggestion.actions).scores()[0] >= 10
    assert suggestion.to_json()["move"] == suggestion.actions[0]


def test_hint_refuses_a_finished_game_and_unknown_bots() -> None:
    over = GAME.position([])
    with pytest.raises(ValueError, match="over"):
        hint(over, "greedy")
    with pytest.raises(ConfigError):
        hint(palace_position(), "alphazero")


def test_leaving_the_palace_to_the_next_player_is_a_blunder() -> None:
    state = palace_position()
    played = [m for m in state.legal_moves() if state.move_to_str(m).startswith("merchant@")][:1]
    start = state.apply(played[0])
    played.append(next(m for m in start.legal_moves() if state.move_to_str(m).startswith("merchant@")))
    result = analyse(state, played, "greedy")
    (review,) = result.turns
    assert review.seat == 0 and review.ply == 0
    assert review.mark == BLUNDER
    assert any(a.startswith("dome@") for a in review.best)
    assert review.loss == pytest.approx(review.best_value - review.played_value)
    assert result.seats[0].blunders == 1 and result.seats[0].accuracy == 0.0


def test_playing_the_bots_own_turn_is_not_marked() -> None:
    state = palace_position()
    best = hint(state, "greedy", seed=0).actions
    moves = []
    for text in best:
        move = state.parse_move(text)
        moves.append(move)
        state = state.apply(move)
    review = analyse(palace_position(), moves, "greedy").turns[0]
    assert review.same and review.loss == 0.0 and review.mark is None


def test_the_answer_catches_the_greedy_trap() -> None:
    # Coins 3 9 1 2: taking the 3 lets the rival take the 9; the 2 is right.  Valued
    # straight after the turn (replies=0) the 3 looks better; after the answer it does not.
    trap = GAME.position([3, 9, 1, 2])
    assert turn_value(trap.apply(RIGHT), 0) > turn_value(trap.apply(LEFT), 0)
    assert turn_value(trap.apply(RIGHT), 0, replies=0) < turn_value(trap.apply(LEFT), 0, replies=0)
    review = analyse(trap, [LEFT], "mcts:2").turns[0]
    assert review.best == ("R",)
    assert review.mark is not None


def test_turns_not_begun_by_the_deadline_are_not_judged() -> None:
    state = GAME.new_initial_state(GameConfig(num_players=2, seed=4))
    moves = [LEFT] * 8
    result = analyse(state, moves, "greedy", deadline=time.monotonic() - 1.0)  # passed already
    assert result.turns == () and result.judged_until == 0 and not result.complete
    assert result.to_json()["complete"] is False
    whole = analyse(state, moves, "greedy")
    assert whole.complete and whole.judged_until == 8 and len(whole.turns) == 7  # the last coin is forced


def test_margin_is_own_estimate_minus_the_best_rival() -> None:
    state = GAME.position([4], num_players=3, points=[5, 7, 1])
    assert margin(state, 0) == pytest.approx((5 + 4 / 3) - (7 + 4 / 3))
    assert margin(state, 1) == pytest.approx(2.0)


def test_thresholds_mark_by_loss_and_scale_with_the_stake() -> None:
    limits = Thresholds(1.0, 2.0, 4.0)
    assert [limits.mark(x) for x in (0.0, 0.99, 1.0, 2.5, 4.0, 40.0)] == [
        None,
        None,
        INACCURACY,
        MISTAKE,
        BLUNDER,
        BLUNDER,
    ]
    assert Thresholds.for_stake(100).as_tuple() == (4.0, 8.0, 15.0)
    assert Thresholds.for_stake(0) == Thresholds.for_stake(MIN_STAKE)
    with pytest.raises(ValueError):
        Thresholds(2.0, 1.0, 4.0)
    with pytest.raises(ValueError):
        Thresholds(0.0, 1.0, 4.0)


def test_turns_group_the_actions_of_one_seat() -> None:
    state = GAME.new_initial_state(GameConfig(num_players=2, variants={"actions": 2}))
    moves = [LEFT, RIGHT, LEFT, LEFT, RIGHT]  # two full turns, then half of one
    turns = split_turns(state, moves)
    assert [(ply, start.current_player, len(ms)) for ply, start, ms in turns] == [(0, 0, 2), (2, 1, 2)]


@settings(max_examples=15, deadline=None)
@given(st.lists(st.sampled_from(["L", "R"]), min_size=8, max_size=8), st.integers(1, 3))
def test_every_judged_turn_is_a_legal_whole_turn(sides: list[str], actions: int) -> None:
    initial = GAME.new_initial_state(GameConfig(num_players=2, variants={"actions": actions, "length": 8}))
    moves, state = [], initial
    for side in sides:
        move = GAME.parse_move(side)
        move = move if state.is_legal(move) else state.legal_moves()[0]  # one coin left: only "L"
        moves.append(move)
        state = state.apply(move)
    record = GameRecord.from_states(initial, moves, [PlayerInfo("A"), PlayerInfo("B")])
    result = analyse_record(record, "greedy")
    for review in result.turns:
        start = after(initial, record.actions[: review.ply])
        end = after(start, review.best)
        assert end.is_terminal() or end.current_player != review.seat
        assert review.loss >= 0.0
        assert review.mark == result.thresholds.mark(review.loss)
    assert sum(s.turns for s in result.seats) == len(result.turns)
    assert result.players == ("A", "B")
