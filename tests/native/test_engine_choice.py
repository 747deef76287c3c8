"""Choosing an engine (``make(game_id, engine=...)``) and the native game's protocol."""

from __future__ import annotations

import pytest

from tabletop.core.errors import ConfigError, IllegalMoveError
from tabletop.core.protocol import GameConfig
from tabletop.core.record import GameRecord, PlayerInfo, replay
from tabletop.core.registry import available_games, engine_of, make
from tabletop.native import NativeState, has_native, python_state
from tabletop.testing.conformance import check_game
from tests.native import needs_native

NATIVE_GAMES = [game_id for game_id in available_games() if has_native(game_id)]
needs_native_engines = needs_native("terranova", "medina")


def test_the_default_engine_is_native_where_built_else_python(monkeypatch: pytest.MonkeyPatch) -> None:
    import tabletop.native as native

    monkeypatch.delenv("TABLETOP_ENGINE", raising=False)
    assert engine_of(make("terranova")) == ("native" if has_native("terranova") else "python")
    monkeypatch.setattr(native, "native_module", lambda: None)
    assert make("terranova") is make("terranova", engine="python")


def test_an_unknown_engine_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="unknown engine 'rust'"):
        make("terranova", engine="rust")
    monkeypatch.setenv("TABLETOP_ENGINE", "fast")
    with pytest.raises(ConfigError, match="unknown engine 'fast'"):
        make("terranova")


def test_without_the_extension_auto_is_python_and_native_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import tabletop.native as native

    monkeypatch.setattr(native, "native_module", lambda: None)
    assert engine_of(make("terranova", engine="auto")) == "python"
    with pytest.raises(ConfigError, match="not built"):
        make("terranova", engine="native")


@needs_native_engines
@pytest.mark.parametrize("game_id", NATIVE_GAMES)
def test_the_environment_variable_picks_the_engine(game_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLETOP_ENGINE", "auto")
    assert engine_of(make(game_id)) == "native"
    monkeypatch.setenv("TABLETOP_ENGINE", "python")
    assert engine_of(make(game_id)) == "python"


@needs_native_engines
@pytest.mark.parametrize("game_id", NATIVE_GAMES)
def test_native_games_pass_the_conformance_checks(game_id: str) -> None:
    check_game(make(game_id, engine="native"), n_games=1, check_every=7)


@needs_native_engines
@pytest.mark.parametrize("game_id", NATIVE_GAMES)
def test_native_states_show_what_python_states_show(game_id: str) -> None:
    native_game = make(game_id, engine="native")
    python_game = make(game_id, engine="python")
    state = native_game.new_initial_state(GameConfig(num_players=3, seed=4))
    python = python_game.new_initial_state(GameConfig(num_players=3, seed=4))
    for i in range(40):
        if state.is_terminal():
            break
        move = state.legal_moves()[(i * 7) % len(state.legal_moves())]
        assert state.move_to_str(move) == python.move_to_str(move)
        assert state.parse_move(state.move_to_str(move)) == move
        state, python = state.apply(move), python.apply(move)
    assert isinstance(state, NativeState)
    assert state.to_json() == python.to_json()
    assert native_game.render_text(state) == python_game.render_text(python)
    assert native_game.render_svg(state) == python_game.render_svg(python)
    assert native_game.describe_score(state) == python_game.describe_score(python)
    assert native_game.evaluate(state) == python_game.evaluate(python)
    assert str(state) == str(python)
    assert python_state(state) == python


@needs_native_engines
@pytest.mark.parametrize("game_id", NATIVE_GAMES)
def test_an_illegal_move_gives_the_python_reason(game_id: str) -> None:
    config = GameConfig(num_players=3, seed=2)
    first = make(game_id, engine="python").new_initial_state(config).legal_moves()[0]
    native = make(game_id, engine="native").new_initial_state(config).apply(first)
    python = make(game_id, engine="python").new_initial_state(config).apply(first)
    illegal = first  # the same spot again: taken
    assert not python.is_legal(illegal)
    assert not native.is_legal(illegal)
    with pytest.raises(IllegalMoveError) as native_error:
        native.apply(illegal)
    with pytest.raises(IllegalMoveError) as python_error:
        python.apply(illegal)
    assert str(native_error.value) == str(python_error.value)
    assert not native.is_legal("not a move")  # type: ignore[arg-type]


@needs_native_engines
@pytest.mark.parametrize("game_id", NATIVE_GAMES)
def test_records_of_native_games_replay_on_the_python_engine(game_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLETOP_ENGINE", "python")
    initial = make(game_id, engine="native").new_initial_state(GameConfig(num_players=3, seed=9))
    state = initial
    moves = []
    while not state.is_terminal() and len(moves) < 60:
        move = state.legal_moves()[len(moves) % len(state.legal_moves())]
        moves.append(move)
        state = state.apply(move)
    players = [PlayerInfo(name=f"p{i}") for i in range(3)]
    record = GameRecord.from_states(initial, moves, players)
    assert record.actions == GameRecord.from_states(python_state(initial), moves, players).actions
    assert GameRecord.from_json(record.to_json()) == record
    assert replay(record).to_json() == state.to_json()


@needs_native_engines
def test_bench_engine_times_the_native_engine() -> None:
    from typer.testing import CliRunner

    from tabletop.cli.main import app

    args = ["bench", "engine", "terranova", "--engine", "native", "--seconds", "0.05", "-n", "2", "--no-yardstick"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Rust" in result.output  # the rows: whole games in Rust, then the Python loops
    assert "protocol" in result.output
    search = ["bench", "search", "terranova", "--engine", "native", "-n", "2", "--simulations", "50"]
    result = CliRunner().invoke(app, search)
    assert result.exit_code == 0, result.output
    assert "MCTS" in result.output


def test_bench_refuses_an_unknown_engine() -> None:
    from typer.testing import CliRunner

    from tabletop.cli.main import app

    result = CliRunner().invoke(app, ["bench", "engine", "terranova", "--engine", "rust", "--seconds", "0.05"])
    assert result.exit_code != 0
    assert "unknown engine 'rust'" in result.output
