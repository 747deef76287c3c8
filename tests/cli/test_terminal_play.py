"""Terminal play driven by scripted input: explanations for bad input, whole games, saved records."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tabletop.ai.agent import RandomAgent, random_move
from tabletop.cli.main import app
from tabletop.cli.terminal import TerminalGame
from tabletop.core.protocol import GameConfig, Move, State
from tabletop.core.record import GameRecord, PlayerInfo, replay
from tabletop.core.registry import make

runner = CliRunner()


def _session(game_id: str, num_players: int, script: Iterator[str] | None = None) -> tuple[TerminalGame, list[str]]:
    game = make(game_id)
    initial = game.new_initial_state(GameConfig(num_players=num_players, seed=11))
    output: list[str] = []
    rng = random.Random(5)
    session: TerminalGame

    def ask(prompt: str) -> str:
        if script is not None:
            line = next(script, None)
            if line is not None:
                return line
        state = session.state
        return state.move_to_str(random_move(state, rng))

    seats = [None] + [RandomAgent(seed=i) for i in range(1, num_players)]
    players = [PlayerInfo("Ann")] + [PlayerInfo(f"Bot {i}", "random") for i in range(1, num_players)]
    session = TerminalGame(initial, seats, players, ask=ask, say=output.append)
    return session, output


@pytest.mark.parametrize(("game_id", "num_players"), [("terranova", 2), ("medina", 3)])
def test_human_plays_a_whole_game_against_bots(game_id: str, num_players: int) -> None:
    session, output = _session(game_id, num_players, iter(["help", "moves", "board", "score"]))
    assert session.play()
    text = "\n".join(output)
    assert "Commands:" in text and "legal moves" in text
    assert "Game over" in text
    final = replay(GameRecord.loads(session.record().dumps()))
    assert final.outcome() == session.state.outcome()


@pytest.mark.parametrize(("game_id", "num_players"), [("terranova", 2), ("medina", 3)])
def test_bad_input_is_explained_and_asked_again(game_id: str, num_players: int) -> None:
    session, output = _session(game_id, num_players, iter(["@@nonsense", "moves zzz", "quit"]))
    assert not session.play()
    text = "\n".join(output)
    assert "Not a move" in text
    assert "No legal move matches 'zzz'" in text
    assert all(state.current_player != 0 for state in session.states[:-1])  # the human never moved


def test_illegal_move_is_explained() -> None:
    game = make("terranova")
    state = game.new_initial_state(GameConfig(num_players=2, seed=11))
    first = state.legal_moves()[0]
    taken = state.move_to_str(first)
    # The human places on a cell, the bot answers, then the human tries the same cell again.
    session, output = _session("terranova", 2, iter([taken, taken, "quit"]))
    session.seats = [None, None]
    assert not session.play()
    assert any(line.startswith("Illegal:") for line in output)
    assert len(session.moves) == 1


def test_undo_takes_back_own_action_within_the_turn_only() -> None:
    session, output = _session("medina", 3)
    start = session.initial  # seat 0 places the starting merchant: a turn of its own
    after_start = start.apply(start.legal_moves()[0])
    assert after_start.current_player == 0 and after_start.turn != start.turn
    session.states, session.moves = [start, after_start], [start.legal_moves()[0]]
    session._undo(0)
    assert output[-1] == "You can only take back your own actions of this turn."
    first_placement = after_start.legal_moves()[0]
    mid_turn = after_start.apply(first_placement)
    assert mid_turn.current_player == 0 and mid_turn.turn == after_start.turn
    session.states.append(mid_turn)
    session.moves.append(first_placement)
    session._undo(0)
    assert "Taken back." in output
    assert session.state is after_start and len(session.moves) == 1


def test_selfplay_writes_records_that_replay(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["selfplay", "medina", "-n", "3", "--games", "2", "--seed", "4", "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 2
    for path in files:
        replayed = runner.invoke(app, ["replay", str(path), "--no-color"])
        assert replayed.exit_code == 0, replayed.output
        assert "actions replayed and valid; game finished" in replayed.output
        svg = tmp_path / (path.stem + ".svg")
        drawn = runner.invoke(app, ["render", str(path), "--ply", "10", "-o", str(svg)])
        assert drawn.exit_code == 0, drawn.output
        assert svg.read_text(encoding="utf-8").startswith("<svg")


def test_replay_reports_illegal_action_with_index(tmp_path: Path) -> None:
    result = runner.invoke(app, ["selfplay", "terranova", "--games", "1", "--seed", "2", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    path = next(tmp_path.glob("*.json"))
    record = GameRecord.loads(path.read_text(encoding="utf-8"))
    actions = list(record.actions)
    actions[30] = actions[0]  # a placement on a cell that is already taken
    broken = GameRecord(record.game, record.config, record.players, tuple(actions), None, record.date)
    path.write_text(broken.dumps(), encoding="utf-8")
    replayed = runner.invoke(app, ["replay", str(path)])
    assert replayed.exit_code == 2
    assert "action 30" in replayed.output and "illegal" in replayed.output
    assert "Traceback" not in replayed.output


def test_play_command_runs_bots_only_game_and_saves(tmp_path: Path) -> None:
    out = tmp_path / "game.json"
    result = runner.invoke(
        app, ["play", "medina", "--seats", "random,random,random", "--seed", "1", "--out", str(out), "--no-color"]
    )
    assert result.exit_code == 0, result.output
    assert "Game over" in result.output
    assert replay(GameRecord.loads(out.read_text(encoding="utf-8"))).is_terminal()


def test_play_rejects_wrong_seat_count() -> None:
    result = runner.invoke(app, ["play", "medina", "--players", "3", "--seats", "human,random"])
    assert result.exit_code == 2
    assert "--seats lists 2 seats" in result.output


class InterruptedAgent(RandomAgent):
    """A bot whose thinking is cut off by Ctrl-C."""

    def choose_move(self, state: State, deadline: float | None = None) -> Move:
        raise KeyboardInterrupt


def test_ctrl_c_while_a_bot_thinks_stops_the_game_and_keeps_the_moves() -> None:
    game = make("terranova")
    initial = game.new_initial_state(GameConfig(num_players=2, seed=11, start_player=0))
    first = initial.legal_moves()[0]
    output: list[str] = []
    session = TerminalGame(
        initial,
        [None, InterruptedAgent(seed=1)],
        [PlayerInfo("Ann"), PlayerInfo("Bot", "random")],
        ask=lambda _prompt: initial.move_to_str(first),
        say=output.append,
    )
    assert not session.play()
    assert "Stopped while Bot" in "\n".join(output)
    record = session.record()
    assert record.actions and record.actions[0] == initial.move_to_str(first)
    replay(record)
