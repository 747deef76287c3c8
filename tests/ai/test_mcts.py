"""MCTS correctness on small Coins positions whose best move is known by hand."""

from __future__ import annotations

import time

import pytest
from toy_game import GAME, LEFT, RIGHT

from tabletop.ai.evaluators import Evaluator, RandomRollout, ScoreValue, TruncatedRollout, heuristic_margin
from tabletop.ai.mcts import MCTS, MCTSAgent, MCTSConfig, SearchNode
from tabletop.arena.match import new_game
from tabletop.core.protocol import GameConfig

ROLLOUT = MCTSConfig(simulations=400, evaluator=RandomRollout())
HEURISTIC = MCTSConfig(simulations=400, evaluator=TruncatedRollout(depth=0, value=ScoreValue(scale=2.0)))


@pytest.mark.parametrize("config", [ROLLOUT, HEURISTIC], ids=["rollout", "heuristic"])
def test_avoids_the_greedy_trap_two_players(config: MCTSConfig) -> None:
    # 3 9 1 2: taking the 3 hands the 9 to the opponent; taking the 2 wins 11 to 4.
    state = GAME.position((3, 9, 1, 2))
    assert MCTSAgent(config, seed=1).choose_move(state) == RIGHT


@pytest.mark.parametrize("config", [ROLLOUT, HEURISTIC], ids=["rollout", "heuristic"])
def test_plans_over_several_actions_of_one_turn(config: MCTSConfig) -> None:
    # Two actions a turn: the 1 on the left opens the 50 for the same player's second
    # action.  A search that assumed the players alternate would see the 50 go away.
    state = GAME.position((1, 50, 1, 1, 1, 1, 1, 2), actions=2)
    agent = MCTSAgent(config, seed=3)
    assert agent.choose_move(state) == LEFT
    assert agent.choose_move(state.apply(LEFT)) == LEFT


@pytest.mark.parametrize("config", [ROLLOUT, HEURISTIC], ids=["rollout", "heuristic"])
def test_three_players_take_what_wins_now(config: MCTSConfig) -> None:
    # Seat 1 leads 8-0-0.  Seat 0 must take the 9 now (a shared win at 9-9-1), or
    # seat 1 takes it and wins alone.
    state = GAME.position((9, 1, 1), num_players=3, points=(0, 8, 0))
    assert MCTSAgent(config, seed=2).choose_move(state) == LEFT


def test_values_are_backed_up_per_seat_not_negated() -> None:
    state = GAME.position((5, 1), num_players=3)
    search = MCTS(MCTSConfig(simulations=50, evaluator=RandomRollout()), seed=0)
    root = search.search(state)
    for child in root.children:
        # Every seat's value sum stays within [0, visits]; with win shares they add up to visits.
        assert sum(child.value_sums) == pytest.approx(child.visits)
        assert all(0.0 <= v <= child.visits for v in child.value_sums)
    best = search.best_child(root)
    assert best.move == LEFT and best.mean(0) > 0.9


def test_named_steps_select_expand_evaluate_backup() -> None:
    search = MCTS(MCTSConfig(simulations=1, evaluator=RandomRollout()), seed=0)
    root = SearchNode(None, GAME.position((1, 2, 3)))
    path = search.select(root)
    assert path == [root]
    child = search.expand(root)
    assert child in root.children and child.state.ply == 1
    values = search.evaluate(child)
    assert len(values) == 2
    search.backup([root, child], values)
    assert root.visits == child.visits == 1
    assert root.value_sums == child.value_sums == list(values)


def test_same_seed_same_search() -> None:
    state = GAME.new_initial_state(GameConfig(num_players=3, seed=5))

    def visits(seed: int) -> list[tuple[str, int]]:
        root = MCTS(MCTSConfig(simulations=300, evaluator=RandomRollout()), seed=seed).search(state)
        return [(str(c.move), c.visits) for c in root.children]

    assert visits(7) == visits(7)


def test_subtree_is_reused_between_moves() -> None:
    state = GAME.position((4, 1, 7, 3, 2, 8, 5, 6))
    agent = MCTSAgent(MCTSConfig(simulations=200, evaluator=RandomRollout()), seed=0)
    move = agent.choose_move(state)
    reply = agent.choose_move(state.apply(move))  # the opponent's seat, same tree
    after = state.apply(move).apply(reply)
    agent.choose_move(after)
    stats = agent.search.last_stats
    assert stats is not None and stats.reused_visits > 0
    assert stats.root_visits == stats.reused_visits + 200


def test_deadline_stops_the_search() -> None:
    state = GAME.position(tuple(range(1, 40)))
    agent = MCTSAgent(MCTSConfig(simulations=None, time_limit=30.0, evaluator=RandomRollout()), seed=0)
    move = agent.choose_move(state, deadline=time.monotonic() - 1.0)  # already past
    stats = agent.search.last_stats
    assert stats is not None and stats.simulations <= 1  # not the 30 s of its own limit
    assert state.is_legal(move)


def test_a_budget_is_required() -> None:
    with pytest.raises(ValueError, match="budget"):
        MCTSConfig(simulations=None, time_limit=None)
    with pytest.raises(ValueError, match="at least one"):
        MCTSConfig(simulations=0)


def test_a_stop_before_the_search_still_gives_a_move() -> None:
    state = GAME.position((1, 2, 3, 4))
    agent = MCTSAgent(MCTSConfig(simulations=10_000, evaluator=RandomRollout()), seed=0)
    agent.stop()
    assert state.is_legal(agent.choose_move(state))
    stats = agent.search.last_stats
    assert stats is not None and stats.simulations == 1


@pytest.mark.parametrize(("evaluator", "ranked"), [(TruncatedRollout(depth=0), True), (RandomRollout(), False)])
def test_the_root_is_ranked_only_where_the_heuristic_values_the_leaves(evaluator: Evaluator, ranked: bool) -> None:
    config = MCTSConfig(
        simulations=20,
        evaluator=evaluator,
        prior=heuristic_margin,
        rank_after=2**62,
        rank_only_with_heuristic_leaf=True,
    )
    search = MCTS(config, seed=0)
    root = search.search(GAME.position((3, 9, 1, 2, 8, 4)))
    assert (root.ranked is not None) is ranked


@pytest.mark.parametrize(("rank_after", "deeper_ranked"), [(16, True), (2**62, False)])
def test_busy_nodes_below_the_root_are_ranked_after_rank_after_visits(rank_after: int, deeper_ranked: bool) -> None:
    # A Terra Nova opening: about 200 moves a node, so busy nodes still have untried moves.
    state = new_game("terranova", 2, seed=1)
    config = MCTSConfig(
        simulations=1000,
        evaluator=TruncatedRollout(depth=0),
        prior=heuristic_margin,
        rank_after=rank_after,
        widening=1.5,
    )
    root = MCTS(config, seed=0).search(state)
    assert root.ranked is not None  # the root is ranked at once either way
    busy = [child for child in root.children if child.visits > 16]
    assert busy and all((child.ranked is not None) is deeper_ranked for child in busy)
