"""``tabletop arena`` end to end on the Coins toy game."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import toy_game  # noqa: F401 - registers "coins"
from typer.testing import CliRunner

from tabletop.cli.main import app


def test_arena_writes_records_results_and_plot(tmp_path: Path) -> None:
    args = ["arena", "coins", "--bots", "greedy,random", "--games", "4", "--seed", "5", "--bootstrap", "20"]
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    assert "Elo" in result.output
    assert len(list((tmp_path / "a" / "games").glob("*.json"))) == 4
    assert (tmp_path / "a" / "ratings.svg").read_text().startswith("<svg")
    again = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "b")])
    assert again.exit_code == 0
    first = json.loads((tmp_path / "a" / "results.json").read_text())
    second = json.loads((tmp_path / "b" / "results.json").read_text())
    for summary in (first, second):
        for game in summary["games"]:
            del game["think_seconds"]
        for row in summary["results"]:
            del row["seconds_per_move"]
    assert first == second


def test_arena_rejects_too_few_entries_clearly() -> None:
    result = CliRunner().invoke(app, ["arena", "coins", "--bots", "greedy,random", "--players", "3"])
    assert result.exit_code == 2
    assert "list a bot more than once" in result.output


@pytest.mark.parametrize(
    ("game", "bad", "message"),
    [
        ("coins", ["--bots", "mcts:9,random"], "unknown MCTS level '9'"),
        ("coins", ["--bots", "greedy,nobot"], "unknown agent 'nobot'"),
        ("coins", ["--move-time", "-1"], "move time must be a positive, finite number"),
        ("coins", ["--move-time", "inf"], "move time must be a positive, finite number"),
        ("coins", ["--bots", "mcts:3@infs,random"], "time per move must be a positive, finite number"),
        ("terranova", ["--ruleset", "nosuch"], "unknown Terra Nova ruleset 'nosuch'"),
        ("medina", [], "medina's first edition is for 3 or 4 players; 2 players need the second edition"),
    ],
)
def test_a_bad_arena_is_refused_before_anything_is_written(
    tmp_path: Path, game: str, bad: list[str], message: str
) -> None:
    out = tmp_path / "arena"
    good = ["arena", game, "--bots", "greedy,random", "--games", "2", "--bootstrap", "0", "--out", str(out)]
    refused = CliRunner().invoke(app, [*good, *bad])
    assert refused.exit_code == 2
    assert message in refused.output
    assert not out.exists()
    if game == "coins":  # the corrected command needs no --resume and no clean-up first
        fixed = CliRunner().invoke(app, good)
        assert fixed.exit_code == 0, fixed.output


def _summary_without_times(path: Path) -> dict[str, object]:
    summary: dict[str, object] = json.loads((path / "results.json").read_text())
    for game in summary["games"]:  # type: ignore[attr-defined]
        del game["think_seconds"]
    for row in summary["results"]:  # type: ignore[attr-defined]
        del row["seconds_per_move"]
    return summary


ARGS = ["arena", "coins", "--bots", "greedy,random,mcts:1", "--players", "2", "--seed", "9", "--bootstrap", "10"]


def test_a_resumed_arena_equals_one_that_never_stopped(tmp_path: Path) -> None:
    whole = CliRunner().invoke(app, [*ARGS, "--games", "6", "--out", str(tmp_path / "whole")])
    assert whole.exit_code == 0, whole.output
    # A first run of 2 games, extended to 4, then an interrupted game (its line lost)
    # and a damaged record: the resumed runs play exactly the missing games.
    parts = tmp_path / "parts"
    assert CliRunner().invoke(app, [*ARGS, "--games", "2", "--out", str(parts)]).exit_code == 0
    more = CliRunner().invoke(app, [*ARGS, "--games", "4", "--out", str(parts), "--resume"])
    assert more.exit_code == 0, more.output
    assert "resuming: 2 of 4" in more.output
    index = parts / "games.jsonl"
    lines = index.read_text().splitlines()
    index.write_text("\n".join(lines[:3]) + "\n" + lines[3][:10])  # game 3's line cut short
    (parts / "games" / "coins-0001.json").write_text("{not json")
    last = CliRunner().invoke(app, [*ARGS, "--games", "6", "--out", str(parts), "--resume"])
    assert last.exit_code == 0, last.output
    assert "resuming: 2 of 6" in last.output
    assert "playing again: game 1" in last.output
    assert _summary_without_times(parts) == _summary_without_times(tmp_path / "whole")
    assert len(list((parts / "games").glob("*.json"))) == 6


def test_an_arena_directory_is_never_overwritten_or_mixed(tmp_path: Path) -> None:
    out = str(tmp_path / "a")
    assert CliRunner().invoke(app, [*ARGS, "--games", "2", "--out", out]).exit_code == 0
    again = CliRunner().invoke(app, [*ARGS, "--games", "2", "--out", out])
    assert again.exit_code == 2
    assert "--resume" in again.output
    other = CliRunner().invoke(app, [*ARGS[:-4], "--seed", "10", "--games", "2", "--out", out, "--resume"])
    assert other.exit_code == 2
    assert "seed" in other.output
    no_out = CliRunner().invoke(app, [*ARGS, "--games", "2", "--resume"])
    assert no_out.exit_code == 2
    assert "--resume needs --out" in no_out.output


def test_resuming_with_fewer_games_says_what_the_results_leave_out(tmp_path: Path) -> None:
    out = str(tmp_path / "a")
    assert CliRunner().invoke(app, [*ARGS, "--games", "4", "--out", out]).exit_code == 0
    fewer = CliRunner().invoke(app, [*ARGS, "--games", "2", "--out", out, "--resume"])
    assert fewer.exit_code == 0, fewer.output
    said = " ".join(fewer.output.split())  # rich wraps long lines
    assert "also holds 2 games past the first 2" in said
    assert "pass --games 4 to include them" in said
    assert len(json.loads((tmp_path / "a" / "results.json").read_text())["games"]) == 2
    assert len(list((tmp_path / "a" / "games").glob("*.json"))) == 4  # nothing deleted


def test_arena_logs_a_line_per_game_when_not_on_a_terminal(tmp_path: Path) -> None:
    def arena(games: int, *extra: str) -> str:
        args = ["arena", "coins", "--bots", "greedy,random", "--games", str(games), "--bootstrap", "0"]
        result = CliRunner().invoke(app, [*args, "--out", str(tmp_path), *extra])
        assert result.exit_code == 0, result.output
        return result.output

    lines = [line for line in arena(3).splitlines() if line.startswith("[")]
    assert [line.split("]")[0] for line in lines] == ["[1/3", "[2/3", "[3/3"]
    assert "game 0: greedy " in lines[0] and ", random " in lines[0]
    assert "1 played in " in lines[0] and lines[2].endswith("about 0m00s left")
    # Resumed, the count includes the saved games and the pace only the new ones.
    assert "[4/4] game 3: random " in arena(4, "--resume")


def test_arena_log_lines_are_never_wrapped(tmp_path: Path) -> None:
    # Four seats make each line longer than the 80 columns a log file is given.
    args = ["arena", "coins", "--bots", "greedy,random,random,random", "--games", "2", "--bootstrap", "0"]
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if "played in" in line]
    assert len(lines) == 2
    assert all(line.startswith("[") and line.endswith(" left") and len(line) > 80 for line in lines)
