"""Bad input on the command line gets a one-line error and a non-zero exit, never a traceback."""

from __future__ import annotations

import importlib.util
import shlex
import socket
import subprocess
import sys
from pathlib import Path
from unittest.mock import Mock

import pytest
from typer.testing import CliRunner

from tabletop.cli.main import app, parse_variants

runner = CliRunner()


def test_help_lists_every_command() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("play", "selfplay", "replay", "render", "bench"):
        assert command in result.output


@pytest.mark.parametrize("command", ["play", "selfplay", "bench engine", "bench search"])
def test_unknown_game_is_reported(command: str) -> None:
    result = runner.invoke(app, [*command.split(), "chess"])
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


def _holding_a_port() -> socket.socket:
    """A socket listening on a free port of 127.0.0.1 (so binding that port again fails)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


# Each of these printed a traceback, a box of five lines or more, or went on running
# (bench --seconds inf, serve --port 99999) before the command line reported bad input
# in one line.  "{tmp}" is a fresh directory, "{file}" a regular file in it, "{port}"
# a port nothing listens on and "{busy}" one something listens on.
BAD_COMMAND_LINES = [
    "bench engine terranova -n 9",
    "bench engine medina -n 2",
    "bench engine terranova -n 0",
    "bench search terranova -n 9",
    "bench engine terranova --seconds -1",
    "bench engine terranova --seconds 0",
    "bench engine terranova --seconds nan",
    "bench search terranova --seconds inf",
    "bench server --seconds -1",
    "bench server --seconds 10",
    "bench server --think 0",
    "bench server --game medina -n 2",
    "bench server --game nosuch",
    "bench server --clock blitz",
    "bench server --clock realtime:ten+5",
    "bench server --processes 2",
    "bench server --processes 2 --db sqlite:///{tmp}/bench.db",
    "bench server --processes 0",
    "bench server --spread diagonal",
    "bench server --client rust",
    "bench server --proxy http://127.0.0.1:8080",
    "bench server --db foo",
    "bench server --cpu-of 2147483647",
    "bench server --cpu-of init",
    "bench engine terranova --seconds abc",
    "bench engine nosuch",
    "bench terranova",
    "selfplay terranova -n 0",
    "selfplay terranova -g 0",
    "selfplay terranova --bogus",
    "selfplay medina --out {file}",
    "selfplay medina --out /proc/x",
    "selfplay medina --out {file}/sub",
    "play terranova -n 0 --seats random,random",
    "play terranova --seats random,random --out {tmp}",
    "play terranova --seats random,random --out {tmp}/missing/record.json",
    "arena terranova --jobs -1",
    "arena terranova --bootstrap -1",
    "bnch",
    "serve --port 99999",
    "serve --port -1",
    "serve --port 0",
    "serve --port {busy}",
    "serve --host 192.0.2.1 --port {port}",
    "serve --host no-such-host.invalid --port {port}",
    "serve --log-level loud",
    "serve --port {port} --db foo://bar",
    "serve --port {port} --db sqlite:///{tmp}/missing/games.db",
    "serve --port {port} --db postgresql+psycopg://u:secret@127.0.0.1/x",
    "serve --port {port} --workers 2 --db sqlite:///{tmp}/games.db",
    "serve --port {port} --workers 0",
    "serve --port {port} --workers 999",
    "replay /dev/zero",
    "render /dev/zero -o {tmp}/board.svg",
]


@pytest.mark.parametrize("line", BAD_COMMAND_LINES)
def test_bad_command_line_is_one_line_on_stderr_and_exit_code_2(
    line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if "psycopg" in line and importlib.util.find_spec("psycopg") is not None:
        pytest.skip("the PostgreSQL driver is installed here")
    # Nothing may start: these fail the case (rather than run for ever) if it gets that far.
    started = AssertionError("the command started instead of refusing its input")
    for name in ("engine.bench_playouts", "search.bench_mcts", "server.run_bench"):
        monkeypatch.setattr(f"tabletop.bench.{name}", Mock(side_effect=started))
    monkeypatch.setattr("uvicorn.run", Mock(side_effect=started))
    (tmp_path / "file").write_text("not a directory", encoding="utf-8")
    with _holding_a_port() as free:
        port = free.getsockname()[1]  # closed again below: nothing listens on it
    with _holding_a_port() as busy:
        values = {"tmp": tmp_path, "file": tmp_path / "file", "port": port, "busy": busy.getsockname()[1]}
        args = shlex.split(line.format(**values))
        result = runner.invoke(app, args)
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "secret" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"], "something was written"


def test_player_counts_out_of_range_name_the_range() -> None:
    result = runner.invoke(app, ["bench", "engine", "terranova", "-n", "9"])
    assert result.stderr == "error: terranova is for 2 to 4 players, not 9\n"
    result = runner.invoke(app, ["selfplay", "medina", "-n", "2"])
    assert result.stderr == "error: medina's ruleset 'default' is for 3 to 4 players, not 2\n"
    result = runner.invoke(app, ["selfplay", "medina", "-n", "5"])
    assert result.stderr == "error: medina is for 2 to 4 players, not 5\n"


def test_selfplay_writes_every_record_whole(tmp_path: Path) -> None:
    out = tmp_path / "new" / "records"
    result = runner.invoke(app, ["selfplay", "medina", "-g", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["medina-000000.json", "medina-000001.json"]


def test_ctrl_c_exits_130_without_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tabletop.bench.engine.bench_playouts", Mock(side_effect=KeyboardInterrupt))
    result = runner.invoke(app, ["bench", "engine", "terranova", "--seconds", "1"])
    assert result.exit_code == 130
    assert "Traceback" not in result.output


def test_a_closed_pipe_is_not_a_traceback() -> None:
    # ``tabletop games | head -1``: the reader is gone before the command writes.
    proc = subprocess.Popen(
        [sys.executable, "-m", "tabletop.cli.main", "games"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1
    assert b"Traceback" not in err and b"Exception ignored" not in err, err
