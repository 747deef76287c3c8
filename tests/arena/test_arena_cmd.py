"""``tabletop arena`` end to end on the Coins toy game."""

from __future__ import annotations

import json
from pathlib import Path

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
