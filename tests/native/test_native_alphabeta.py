"""The native alpha-beta yardstick (``tabletop.native.alphabeta``): specs, legal moves in
both games and on both engines' states, the options of ``alphabeta()``, Medina's Rust
evaluation against the Python one, and the error without the extension."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from tabletop.ai.agent import AnytimeAgent, agent_kinds, make_agent, random_move
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import GameConfig
from tabletop.core.registry import make
from tabletop.native import alphabeta
from tabletop.native.alphabeta import (
    DEFAULT_DEPTH,
    MAX_DEPTH,
    AlphaBetaSearchConfig,
    NativeAlphaBetaAgent,
    parse_spec,
)
from tests.native import midgame, needs_native

pytestmark = needs_native("terranova", "medina")


def test_specs_give_a_depth_a_width_and_cpu_seconds() -> None:
    assert parse_spec(None) == (AlphaBetaSearchConfig(DEFAULT_DEPTH), "native-ab")
    assert parse_spec("3") == (AlphaBetaSearchConfig(3), "native-ab:3")
    assert parse_spec("5@1cpu") == (AlphaBetaSearchConfig(5, 1.0), "native-ab:5@1cpu")
    assert parse_spec("@0.5cpu") == (AlphaBetaSearchConfig(MAX_DEPTH, 0.5), "native-ab@0.5cpu")
    assert parse_spec("4,width=0@2cpu") == (AlphaBetaSearchConfig(4, 2.0, 0), "native-ab:4,width=0@2cpu")
    assert AlphaBetaSearchConfig().width_for("medina") == alphabeta.WIDTHS["medina"]
    assert AlphaBetaSearchConfig(width=3).width_for("medina") == 3
    for bad in ("0", "65", "x", "5@1s", "5@1", "5@xcpu", "5@-1cpu", "5@infcpu", "5,width=-1", "5,depth=3"):
        with pytest.raises(ConfigError):
            parse_spec(bad)


@pytest.mark.parametrize(("game_id", "players"), [("terranova", 2), ("terranova", 3), ("medina", 3), ("medina", 4)])
@pytest.mark.parametrize("engine", ["native", "python"])
def test_the_spec_builds_a_bot_that_plays_a_legal_move(game_id: str, players: int, engine: str) -> None:
    assert "native-ab" in agent_kinds()
    agent = make_agent("native-ab:3")
    assert isinstance(agent, NativeAlphaBetaAgent) and agent.name == "native-ab:3"
    for plies in (0, 25):
        state = midgame(game_id, players, plies, engine=engine, seed=players)
        move = agent.choose_move(state)
        assert state.is_legal(move)
        assert agent.last_stats is not None and agent.last_stats.depth == 3


@pytest.mark.parametrize(("game_id", "players"), [("terranova", 2), ("medina", 3)])
def test_a_clocked_search_deepens_and_reports_its_depth(game_id: str, players: int) -> None:
    state: Any = midgame(game_id, players, 20)
    shallow = state.native.alphabeta(max_depth=1)
    assert (shallow["depth"], len(shallow["pv"]), shallow["action"]) == (1, 1, shallow["pv"][0])
    deep = state.native.alphabeta(max_depth=MAX_DEPTH, cpu_seconds=0.2)
    assert 1 <= deep["depth"] < MAX_DEPTH
    assert deep["nodes"] > shallow["nodes"]
    line = state.native
    for action in deep["pv"][: deep["depth"]]:
        assert line.is_legal(action)
        line = line.apply(action)


def test_the_search_is_deterministic_and_respects_the_width() -> None:
    state: Any = midgame("medina", 3, 30)
    first = state.native.alphabeta(max_depth=3, width=4)
    assert state.native.alphabeta(max_depth=3, width=4) == first
    wide = state.native.alphabeta(max_depth=3, width=0)
    assert wide["nodes"] > first["nodes"]


def test_the_alphabeta_options_are_checked() -> None:
    state: Any = midgame("medina", 3, 5)
    for options in ({"max_depth": 0}, {"max_depth": MAX_DEPTH + 1}, {"cpu_seconds": -1.0}, {"depth": 3}):
        with pytest.raises(ValueError):
            state.native.alphabeta(**options)
    with pytest.raises(OverflowError):  # a width is a u32
        state.native.alphabeta(width=-1)


def test_a_deadline_or_stop_ends_a_deep_search_with_a_legal_move() -> None:
    state = midgame("medina", 3, 20)
    agent = make_agent("native-ab:40")
    assert isinstance(agent, AnytimeAgent) and isinstance(agent, NativeAlphaBetaAgent)
    move = agent.choose_move(state, deadline=time.monotonic() + 0.1)
    assert state.is_legal(move)
    assert agent.last_stats is not None and 1 <= agent.last_stats.depth < 40
    # A deadline far away leaves the search to its depth.
    short = NativeAlphaBetaAgent(AlphaBetaSearchConfig(2))
    assert state.is_legal(short.choose_move(state, deadline=time.monotonic() + 600))
    assert short.last_stats is not None and short.last_stats.depth == 2


def test_a_finished_game_has_no_move() -> None:
    state: Any = midgame("medina", 3, 10_000)
    assert state.is_terminal()
    assert state.native.alphabeta(max_depth=2)["action"] is None
    with pytest.raises(ValueError, match="over"):
        NativeAlphaBetaAgent().choose_move(state)


@pytest.mark.parametrize(
    ("players", "ruleset"), [(3, "default"), (4, "default"), (2, "second_edition"), (3, "second_edition")]
)
def test_medinas_rust_evaluation_is_the_python_one(players: int, ruleset: str) -> None:
    for seed in range(3):
        config = GameConfig(num_players=players, seed=seed, ruleset=ruleset)
        state: Any = make("medina", engine="native").new_initial_state(config)
        rng = random.Random(seed)
        while True:
            assert state.native.evaluate() == pytest.approx(state.game.evaluate(state), abs=1e-9)
            if state.is_terminal():
                break
            for _ in range(3):
                if not state.is_terminal():
                    state = state.apply(random_move(state, rng))


def test_the_bench_reports_the_depth_reached_in_a_cpu_budget() -> None:
    from typer.testing import CliRunner

    from tabletop.cli.main import app

    args = ["bench", "alphabeta", "medina", "-n", "3", "--cpu-seconds", "0.05", "--positions", "1", "--width", "4"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "Medina alpha-beta" in result.output
    row = next(line for line in result.output.splitlines() if line.startswith("│ 3"))
    depth = int(row.split("│")[6])
    assert depth >= 1


def test_without_the_extension_the_bot_is_not_offered_and_says_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    assert set(alphabeta.agent_factories()) == {"native-ab"}
    monkeypatch.setattr(alphabeta, "native_module", lambda: None)
    assert alphabeta.agent_factories() == {}
    with pytest.raises(ConfigError, match="make native"):
        alphabeta.make_native_alphabeta("5@1cpu", None)
