"""The native MCTS bot (``tabletop.native.mcts``): specs, legal moves on both engines'
states, determinism, deadlines and stop(), and its place in the bot lists."""

from __future__ import annotations

import random
import time
from dataclasses import replace
from typing import Any

import pytest

from tabletop.ai.agent import agent_kinds, make_agent, random_move, think
from tabletop.core.errors import ConfigError
from tabletop.native import NativeState, native_module
from tabletop.native.mcts import NativeMctsAgent, NativeSearchConfig, agent_factories, level_config, to_native
from tests.native import midgame, needs_native

pytestmark = needs_native("terranova", "medina")

GAMES = [("terranova", 2), ("terranova", 4), ("medina", 3), ("medina", 4)]


def test_level_specs_read_as_the_mcts_ones() -> None:
    assert level_config(None) == (NativeSearchConfig(10_000), "native:3")
    assert level_config("1")[0].simulations == 1_000
    config, name = level_config("2@0.5s")
    assert (config.simulations, config.seconds, config.cpu_time, name) == (None, 0.5, False, "native:2@0.5s")
    config, name = level_config("@0.25cpu")
    assert (config.seconds, config.cpu_time, name) == (0.25, True, "native:3@0.25cpu")
    config, name = level_config("1,widening=1.5,uct=0.7")
    assert (config.widening, config.uct_c, config.simulations, name) == (
        1.5,
        0.7,
        1_000,
        "native:1,widening=1.5,uct=0.7",
    )
    for bad in ("0", "6", "x", "1@", "1@-1s", "1@nan", "1,depth=3", "1,uct=x", "1,widening=-1"):
        with pytest.raises(ConfigError):
            level_config(bad)


@pytest.fixture
def native_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Games from make(game_id) run on the native engine where it is built."""
    monkeypatch.setenv("TABLETOP_ENGINE", "auto")


def test_the_native_bot_is_offered_where_games_run_on_the_python_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop.server.routes.games import bot_specs

    # It loads Python states into the native engine, so it plays on either engine.
    monkeypatch.setenv("TABLETOP_ENGINE", "python")
    assert "native" in agent_kinds()
    assert make_agent("native:2").name == "native:2"
    assert [s for s in bot_specs() if s.startswith("native:")] == [f"native:{n}" for n in range(1, 6)]


@pytest.mark.usefixtures("native_engine")
def test_the_native_kind_is_registered_where_the_extension_is_built() -> None:
    assert "native" in agent_kinds() and "native" in agent_factories()
    agent = make_agent("native:2@0.5s", seed=3)
    assert agent.name == "native:2@0.5s"
    from tabletop.server.routes.games import bot_specs

    specs = bot_specs()
    assert "native" in specs and [s for s in specs if s.startswith("native:")] == [f"native:{n}" for n in range(1, 6)]


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_moves_are_legal_from_native_states(game_id: str, players: int) -> None:
    agent = NativeMctsAgent(NativeSearchConfig(150), seed=1)
    state = midgame(game_id, players, 0, seed=players)
    for _ in range(12):
        move = agent.choose_move(state)
        assert state.is_legal(move)
        state = state.apply(move)
    state = midgame(game_id, players, 80, seed=players)
    if not state.is_terminal():
        assert state.is_legal(agent.choose_move(state))
    assert agent.last_stats is not None and agent.last_stats.nodes <= 151
    assert agent.last_stats.bytes_per_node == 28


@pytest.mark.parametrize(("game_id", "players"), [("terranova", 3), ("medina", 3)])
def test_a_python_state_is_searched_at_any_position(game_id: str, players: int) -> None:
    agent = NativeMctsAgent(NativeSearchConfig(100), seed=2)
    state = midgame(game_id, players, 0, engine="python")
    assert to_native(state).python_state() is state
    for _ in range(20):  # the initial position, then mid-game ones
        move = agent.choose_move(state)
        assert state.is_legal(move)
        state = state.apply(move)
    assert not isinstance(state, NativeState)


def test_the_game_over_is_an_error() -> None:
    state = midgame("medina", 3, 10_000)
    assert state.is_terminal()
    with pytest.raises(ValueError, match="over"):
        NativeMctsAgent(NativeSearchConfig(10)).choose_move(state)


@pytest.mark.parametrize(("game_id", "players"), [("terranova", 2), ("medina", 3)])
def test_fixed_simulations_and_a_seed_give_the_same_game(game_id: str, players: int) -> None:
    def moves(seed: int) -> list[str]:
        agent = NativeMctsAgent(NativeSearchConfig(200), seed=seed)
        state = midgame(game_id, players, 0)
        played = []
        for _ in range(8):
            move = agent.choose_move(state)
            played.append(str(move))
            state = state.apply(move)
        return played

    assert moves(5) == moves(5)
    assert moves(5) != moves(6)


def test_a_deadline_cuts_the_search_short() -> None:
    agent = NativeMctsAgent(NativeSearchConfig(10_000_000), seed=1)
    state = midgame("medina", 3, 5)
    move = agent.choose_move(state, time.monotonic() + 0.2)
    assert state.is_legal(move)
    assert agent.last_stats is not None
    assert agent.last_stats.simulations < 10_000_000 and agent.last_stats.wall_seconds < 5
    # A deadline already past still gives a move (one simulation at least).
    assert state.is_legal(agent.choose_move(state, time.monotonic() - 1))


def test_stop_returns_the_best_move_so_far() -> None:
    agent = NativeMctsAgent(NativeSearchConfig(None, seconds=600), seed=1)
    state = midgame("terranova", 2, 30)
    pending = think(agent, state)
    time.sleep(0.2)
    move = pending.stop()
    assert state.is_legal(move)
    assert agent.last_stats is not None and agent.last_stats.wall_seconds < 60
    # The flag is cleared after a search: the next one runs to its own budget.
    agent.config = NativeSearchConfig(300)
    agent.choose_move(state)
    assert agent.last_stats.simulations == 300


@pytest.mark.usefixtures("native_engine")
def test_a_cpu_budget_counts_the_searching_threads_cpu_time() -> None:
    agent = make_agent("native:1@0.1cpu", seed=1)
    assert isinstance(agent, NativeMctsAgent)
    state = midgame("medina", 3, 5)
    start = time.thread_time()
    agent.choose_move(state)
    used = time.thread_time() - start
    assert agent.last_stats is not None and agent.last_stats.simulations > 8
    assert 0.1 <= used < 2


def test_the_rust_search_refuses_bad_options() -> None:
    core = midgame("medina", 3, 3).native
    with pytest.raises(ValueError, match="budget"):
        core.search(seed=1)
    with pytest.raises(ValueError, match="no option"):
        core.search(simulations=10, depth=3)
    with pytest.raises(ValueError, match="finite"):
        core.search(cpu_seconds=float("nan"))
    found = core.search(simulations=50, seed=1, widening=1.0)
    assert found["simulations"] == 50 and found["nodes"] <= 51
    assert sum(visits for _, visits, _ in found["children"]) == 50
    stop = native_module().SearchStop()  # type: ignore[union-attr]
    stop.set()
    assert core.search(stop=stop)["simulations"] <= 8


@pytest.mark.usefixtures("native_engine")
def test_tabletop_games_lists_the_native_levels() -> None:
    from typer.testing import CliRunner

    from tabletop.cli.main import app

    result = CliRunner().invoke(app, ["games"])
    assert result.exit_code == 0, result.output
    # Rich wraps at the width it read when the console was made, which this test cannot set.
    assert "native:1 .. native:5" in " ".join(result.output.split())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_terra_novas_rust_evaluation_is_the_python_one(players: int) -> None:
    for seed in range(3):
        state: Any = midgame("terranova", players, 0, seed=seed)
        rng = random.Random(seed)
        while True:
            assert state.native.evaluate() == pytest.approx(state.game.evaluate(state), abs=1e-9)
            if state.is_terminal():
                break
            for _ in range(5):
                if not state.is_terminal():
                    state = state.apply(random_move(state, rng))


@pytest.mark.usefixtures("native_engine")
def test_short_rollouts_with_the_evaluation() -> None:
    state = midgame("terranova", 3, 60)
    agent = make_agent("native:1,rollout=0", seed=1)
    assert isinstance(agent, NativeMctsAgent) and agent.config.rollout_limit == 0
    assert state.is_legal(agent.choose_move(state))
    found = state.native.search(simulations=200, seed=1, rollout_limit=10)  # type: ignore[attr-defined]
    assert found["simulations"] == 200
    with pytest.raises(ConfigError):
        level_config("1,rollout=1.5")
    with pytest.raises(ValueError, match="no evaluation"):
        make_agent("native:1,rollout=0").choose_move(midgame("medina", 3, 5))


@pytest.mark.parametrize(("game_id", "players"), [("terranova", 2), ("medina", 3)])
def test_leaf_evaluation_applies_where_the_game_has_one(game_id: str, players: int) -> None:
    state = midgame(game_id, players, 40)
    evaluated = NativeMctsAgent(NativeSearchConfig(300, leaf_evaluation=True), seed=4)
    plain = NativeMctsAgent(NativeSearchConfig(300), seed=4)
    assert state.is_legal(evaluated.choose_move(state))
    plain.choose_move(state)
    # Medina has no evaluation in Rust: the same search; Terra Nova's leaves differ.
    found = state.native.search(simulations=300, seed=1, **({"rollout_limit": 0} if game_id == "terranova" else {}))  # type: ignore[attr-defined]
    same = state.native.search(simulations=300, seed=1)  # type: ignore[attr-defined]
    assert (found["children"] == same["children"]) == (game_id == "medina")


def test_terra_nova_has_its_own_levels_and_medina_keeps_its_own() -> None:
    medina, _ = level_config("2")
    terranova, name = level_config("2,uct=0.3,rank=0,rankdeep=16,wpow=0.4,horizon=100,sims=500", "terranova")
    assert medina == level_config("2", "medina")[0] == NativeSearchConfig(3_000)
    assert (terranova.rollout_limit, terranova.uct_c, terranova.rank_root) == (0, 0.3, False)
    assert (terranova.rank_visits, terranova.widening_power, terranova.horizon, terranova.simulations) == (
        16,
        0.4,
        100,
        500,
    )
    assert name == "native:2,uct=0.3,rank=0,rankdeep=16,wpow=0.4,horizon=100,sims=500"
    for bad in ("1,rank=2", "1,rankdeep=1.5", "1,sims=0", "1,horizon=x"):
        with pytest.raises(ConfigError):
            level_config(bad, "terranova")


@pytest.mark.usefixtures("native_engine")
def test_a_native_level_searches_each_game_with_its_settings() -> None:
    agent = make_agent("native:1,uct=0.5", seed=1)
    assert isinstance(agent, NativeMctsAgent)
    assert agent.config_for("medina") == NativeSearchConfig(1_000, uct_c=0.5)
    assert agent.config_for("terranova") == replace(level_config("1", "terranova")[0], uct_c=0.5)
    # Medina has no evaluation in Rust: its settings must not ask for one.
    for state in (midgame("medina", 3, 5), midgame("terranova", 2, 60)):
        assert state.is_legal(agent.choose_move(state))


def one_ply_leads(state: Any) -> dict[int, float]:
    """Each legal action's estimated lead for the seat to act after it, by the Rust
    evaluation read from Python (a win adds 1000): what the search's prior ranks by."""
    seat = state.current_player
    leads = {}
    for action in state.native.legal_actions():
        child: Any = state.apply(state.move_of_action(action))
        estimate = child.native.evaluate()
        lead = estimate[seat] - max(e for i, e in enumerate(estimate) if i != seat)
        leads[action] = lead + (1000 * child.returns()[seat] if child.is_terminal() else 0)
    return leads


@pytest.mark.parametrize(("players", "plies"), [(2, 60), (2, 150), (3, 80)])
def test_a_ranked_root_searches_the_moves_the_evaluation_ranks_best(players: int, plies: int) -> None:
    state: Any = midgame("terranova", players, plies, seed=1)
    leads = one_ply_leads(state)
    options = {"simulations": 100, "seed": 1, "rollout_limit": 0, "widening": 1.0, "uct_c": 0.2}
    ranked = {action for action, _, _ in state.native.search(rank_root=True, **options)["children"]}
    # ceil(sqrt(99)) = 10 children: the ten best by the evaluation (ties either way).
    assert len(ranked) == 10 < len(leads)
    assert min(leads[a] for a in ranked) >= max(leads[a] for a in leads.keys() - ranked)
    unranked = {action for action, _, _ in state.native.search(**options)["children"]}
    assert len(unranked) == 10 and unranked != ranked


def test_the_only_winning_action_is_found() -> None:
    # Seed 1, ply 228 of a random 2-player game: the seat to act trails 3 to 15, and one
    # of its 26 actions ends the game with it ahead (found by scanning random games).
    state: Any = midgame("terranova", 2, 228, seed=1)
    leads = one_ply_leads(state)
    winning = [action for action, lead in leads.items() if lead > 500]
    assert len(winning) == 1 and len(leads) == 26 and state.scores() == (3, 15)
    agent = NativeMctsAgent(level_config("1", "terranova")[0], seed=1)
    assert state.context.moves.encode(agent.choose_move(state)) == winning[0]
    # Random expansion and rollouts find it too, but only by search.
    plain = state.native.search(simulations=1000, seed=1, uct_c=2.0)
    assert plain["action"] == winning[0]


def test_rollouts_to_the_end_where_the_game_ends_within_the_horizon() -> None:
    state: Any = midgame("terranova", 2, 60, seed=2)
    options = {"simulations": 200, "seed": 3, "rollout_limit": 0, "rank_root": True, "widening": 1.5}
    evaluated = state.native.search(**options)["children"]
    # A random game does not end within 3 actions: the leaves keep the evaluation.
    assert state.native.search(horizon=3, **options)["children"] == evaluated
    # It ends within 10,000: every leaf is a rollout to the end, worth 0, 1/2 or 1.
    rolled = state.native.search(horizon=10_000, **options)["children"]
    assert rolled != evaluated
    assert all(2 * mean * visits == pytest.approx(round(2 * mean * visits), abs=1e-3) for _, visits, mean in rolled)
    assert not all(
        2 * mean * visits == pytest.approx(round(2 * mean * visits), abs=1e-3) for _, visits, mean in evaluated
    )
