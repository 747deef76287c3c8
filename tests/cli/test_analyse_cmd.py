"""``tabletop analyse RECORD`` and the terminal's ``hint`` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.ai.toy_game import GAME, LEFT
from tests.builders import medina_position
from typer.testing import CliRunner

from tabletop.ai.agent import RandomAgent
from tabletop.cli.main import app
from tabletop.cli.terminal import HELP, TerminalGame
from tabletop.core.protocol import GameConfig
from tabletop.core.record import GameRecord, PlayerInfo
from tabletop.core.registry import make

runner = CliRunner()


@pytest.fixture
def coins_record(tmp_path: Path) -> Path:
    """A whole game of the toy game Coins (6 coins dealt from seed 1), every coin taken from the left."""
    initial = GAME.new_initial_state(GameConfig(num_players=2, variants={"length": 6}, seed=1))
    record = GameRecord.from_states(initial, [LEFT] * 6, [PlayerInfo("Ann"), PlayerInfo("Bob")])
    path = tmp_path / "coins.json"
    path.write_text(record.dumps(), encoding="utf-8")
    return path


def medina_record(tmp_path: Path) -> Path:
    game = make("medina")
    state = game.new_initial_state(GameConfig(num_players=3, seed=2))
    agents = [RandomAgent(seed=i) for i in range(3)]
    moves = []
    for _ in range(12):
        move = agents[state.current_player].choose_move(state)
        moves.append(move)
        state = state.apply(move)
    record = GameRecord.from_states(
        game.new_initial_state(GameConfig(num_players=3, seed=2)), moves, [PlayerInfo(n) for n in "ABC"]
    )
    path = tmp_path / "medina.json"
    path.write_text(record.dumps(), encoding="utf-8")
    return path


def test_analyse_prints_a_summary_per_seat_and_the_marked_turns(tmp_path: Path) -> None:
    path = medina_record(tmp_path)
    result = runner.invoke(app, ["analyse", str(path), "--level", "greedy"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Judged by greedy" in out
    for name in "ABC":
        assert f"│ {name} " in out
    # Random play is marked, each mark with the bot's better turn.
    assert "blunder" in out and "better " in out


def test_analyse_json_lists_every_judged_turn(tmp_path: Path) -> None:
    path = medina_record(tmp_path)
    result = runner.invoke(app, ["analyse", str(path), "--json", "--thresholds", "1,2,3"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["level"] == "greedy" and data["actions"] == 12
    assert data["thresholds"] == {"inaccuracy": 1.0, "mistake": 2.0, "blunder": 3.0}
    assert [s["seat"] for s in data["seats"]] == [0, 1, 2]
    assert data["turns"] and all(t["loss"] >= 0 for t in data["turns"])
    assert {t["mark"] for t in data["turns"]} <= {None, "inaccuracy", "mistake", "blunder"}


def test_analyse_all_lists_unmarked_turns_too(coins_record: Path) -> None:
    result = runner.invoke(app, ["analyse", str(coins_record), "--level", "mcts:2", "--all"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if line.startswith("ply ")]
    assert lines[0].startswith("ply 0 (turn 0), Ann:")
    assert len(lines) == 5  # six turns; the last, one coin left, is forced


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--level", "alphazero"], "unknown agent 'alphazero'"),
        (["--thresholds", "3,2,1"], "--thresholds must be three rising positive numbers"),
        (["--thresholds", "x"], "--thresholds must be three rising positive numbers"),
        (["--replies", "-1"], "--replies"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(coins_record: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["analyse", str(coins_record), *args])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.stderr


@pytest.mark.parametrize("content", [None, '{"format": "tabletop-record"', '{"format": "x"}'])
def test_missing_or_corrupt_records_are_one_line(tmp_path: Path, content: str | None) -> None:
    path = tmp_path / "r.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    result = runner.invoke(app, ["analyse", str(path)])
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("error: ")
    assert "Traceback" not in result.output


def test_terminal_hint_suggests_the_known_best_turn() -> None:
    # The palace position of tests/ai/test_analysis.py: doming the orange palace now wins it.
    initial = medina_position("orange:E5 E6 E7 F7", "M:D5 D6", num_players=3)
    script = iter(["hint", "hint nope", "hint mcts:1", "quit"])
    output: list[str] = []
    session = TerminalGame(
        initial,
        [None, RandomAgent(seed=1), RandomAgent(seed=2)],
        [PlayerInfo("Ann"), PlayerInfo("Bot", "random"), PlayerInfo("Bot 2", "random")],
        ask=lambda _prompt: next(script),
        say=output.append,
    )
    assert not session.play()
    hints = [line for line in output if line.startswith(("Hint", "No hint"))]
    assert hints[0].startswith("Hint (greedy): ") and "dome@" in hints[0]
    suggested = hints[0].removeprefix("Hint (greedy): ").split(";")[0].split()
    state = initial
    for text in suggested:
        state = state.apply(state.parse_move(text))  # legal, or this raises
    assert state.scores()[0] >= 10
    assert hints[1].startswith("No hint: unknown agent 'nope'")
    assert hints[2].startswith("Hint (mcts:1): ")
    assert "hint [LEVEL]" in HELP
