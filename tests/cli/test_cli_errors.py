"""Bad input on the command line gets a one-line error and a non-zero exit, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tabletop.cli.main import app, parse_variants

runner = CliRunner()


def test_help_lists_every_command() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("play", "selfplay", "replay", "render", "bench"):
        assert command in result.output


@pytest.mark.parametrize("command", ["play", "selfplay", "bench"])
def test_unknown_game_is_reported(command: str) -> None:
    result = runner.invoke(app, [command, "chess"])
    assert result.exit_code == 2
    assert "unknown game 'chess'" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", ["replay", "render"])
def test_missing_record_file_is_reported(command: str, tmp_path: Path) -> None:
    result = runner.invoke(app, [command, str(tmp_path / "nope.json")])
    assert result.exit_code == 2
    assert "cannot read" in result.output


@pytest.mark.parametrize("command", ["replay", "render"])
def test_corrupt_record_is_reported(command: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "tabletop-record", "version": 1', encoding="utf-8")
    result = runner.invoke(app, [command, str(path)])
    assert result.exit_code == 2
    assert "not valid JSON" in result.output
    assert "Traceback" not in result.output


def test_errors_print_brackets_as_typed_and_stay_on_one_line(tmp_path: Path) -> None:
    # Rich would read "[bold]" as a style and "[/x]" as a stray closing tag (a traceback),
    # and wrap a long message at 80 columns when stderr is not a terminal.
    missing = tmp_path / ("a-directory-name-long-enough-to-push-the-error-past-eighty-columns" + "[bold]x[/].json")
    result = runner.invoke(app, ["replay", str(missing)])
    assert result.exit_code == 2
    [line] = [line for line in result.output.splitlines() if line.strip()]
    assert line.startswith("error: cannot read ") and str(missing) in line and len(line) > 80

    result = runner.invoke(app, ["play", "terranova", "--seats", "human,[/x]"])
    assert result.exit_code == 2
    assert "unknown agent '[/x]'" in result.output
    assert "Traceback" not in result.output


def test_variant_values_get_types() -> None:
    assert parse_variants(["a=true", "b=off", "c=10", "d=null", "e=strict"]) == {
        "a": True,
        "b": False,
        "c": 10,
        "d": None,
        "e": "strict",
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bot-budget", "-1"], "bot budget must be a positive, finite number"),
        (["--bot-budget", "0"], "bot budget must be a positive, finite number"),
        (["--bot-workers", "0"], "at least one bot worker"),
        (["--bot-budget", "inf"], "bot budget must be a positive, finite number"),
        (["--bot-delay", "-2"], "bot delay must be a finite number of seconds, not negative"),
        (["--bot-delay", "inf"], "bot delay must be a finite number of seconds, not negative"),
    ],
)
def test_serve_refuses_bad_bot_settings_before_starting(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["serve", *args])
    assert result.exit_code == 2
    assert message in result.output


def test_serve_refuses_a_bot_budget_from_the_environment_that_is_not_a_number() -> None:
    result = runner.invoke(app, ["serve"], env={"TABLETOP_BOT_BUDGET": "ten"})
    assert result.exit_code == 2
    assert "TABLETOP_BOT_BUDGET must be a number of seconds, got 'ten'" in result.output
