"""The local backend of ``tabletop.compute.batch``: order, replays after a dead worker, errors."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from functools import partial
from pathlib import Path

import pytest
import toy_game  # noqa: F401 - registers "coins"
from typer.testing import CliRunner

from tabletop.cli.main import app
from tabletop.compute.batch import MAX_ATTEMPTS, BatchError, Finished, LocalBackend, RunSettings, open_backend
from tabletop.core.errors import ConfigError


def square(index: int) -> int:
    return index * index


def die_once(marker: Path, victim: int, index: int) -> int:
    """Kills its worker process the first time it is asked for ``victim``."""
    if index == victim:
        try:
            marker.touch(exist_ok=False)
        except FileExistsError:
            return index
        os.kill(os.getpid(), signal.SIGKILL)
    return index


def always_die(index: int) -> int:
    os.kill(os.getpid(), signal.SIGKILL)
    return index


def broken(index: int) -> int:
    raise ConfigError(f"task {index} is broken")


def test_one_job_runs_in_this_process_in_index_order() -> None:
    with LocalBackend(1) as backend:
        done = list(backend.run(square, [3, 1, 2]))
    assert [(f.index, f.value, f.attempts) for f in done] == [(3, 9, 1), (1, 1, 1), (2, 4, 1)]
    assert backend.settings == RunSettings("local", 1, 1)


def test_worker_processes_run_every_index_once() -> None:
    with LocalBackend(2) as backend:
        done = list(backend.run(square, range(12)))
    assert sorted(f.index for f in done) == list(range(12))
    assert all(f.value == f.index**2 for f in done)
    assert backend.settings.describe() == "local processes, 1 node, 2 cores"


def test_a_dead_worker_loses_only_games_in_flight_which_are_played_again(tmp_path: Path) -> None:
    lost: list[tuple[int, str]] = []
    with LocalBackend(2) as backend:
        done = list(backend.run(partial(die_once, tmp_path / "died", 5), range(10), on_lost=lambda *a: lost.append(a)))
    assert sorted(f.index for f in done) == list(range(10))  # each once
    assert 5 in [index for index, _ in lost]
    assert all("worker process died" in reason for _, reason in lost)
    assert {f.index: f.attempts for f in done}[5] == 2


def test_a_game_that_always_kills_its_worker_is_given_up() -> None:
    with LocalBackend(2) as backend, pytest.raises(BatchError, match=f"lost with its worker {MAX_ATTEMPTS} times"):
        list(backend.run(always_die, range(2)))


def test_an_error_in_a_task_is_raised_as_it_is_not_retried() -> None:
    with LocalBackend(2) as backend, pytest.raises(ConfigError, match="is broken"):
        list(backend.run(broken, range(4)))


def test_stopping_early_cancels_the_rest() -> None:
    with LocalBackend(2) as backend:
        batch = backend.run(square, range(1000))
        first: Finished[int] = next(batch)
        batch.close()  # type: ignore[attr-defined]
    assert first.value == first.index**2


def test_a_missing_plugin_is_one_clear_error() -> None:
    with pytest.raises(ConfigError, match="cannot import the plugin 'no_such_plugin'"):
        LocalBackend(2, plugins=["no_such_plugin"])


@pytest.mark.parametrize("name", ["../../etc/passwd", "/tmp/x.py", "a..b", ".relative", "a." * 5000, ""])
def test_a_plugin_that_is_no_module_name_is_refused_before_importing(name: str) -> None:
    with pytest.raises(ConfigError, match="--plugin takes a module name"):
        LocalBackend(2, plugins=[name])


def test_without_ray_the_ray_option_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed
    with pytest.raises(BatchError, match=r"pip install 'tabletop\[cluster\]'"):
        open_backend("local")
    result = CliRunner().invoke(app, ["arena", "coins", "--games", "2", "--ray"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: --ray needs Ray, which is not installed: pip install 'tabletop[cluster]'"
    ]


def _summary(path: Path) -> dict[str, object]:
    summary: dict[str, object] = json.loads(path.read_text())
    summary.pop("run")
    for game in summary["games"]:  # type: ignore[attr-defined]
        del game["think_seconds"]
    for row in summary["results"]:  # type: ignore[attr-defined]
        del row["seconds_per_move"]
    return summary


def test_an_arena_whose_worker_dies_replays_its_games_and_saves_each_once(tmp_path: Path) -> None:
    marker = tmp_path / "died"
    bots = f"greedy,dieonce:{marker}"
    args = [
        "arena",
        "coins",
        "--bots",
        bots,
        "--games",
        "8",
        "--seed",
        "4",
        "--bootstrap",
        "0",
        "--plugin",
        "toy_game",
        "--plugin",
        "dying_bot",
    ]
    marker.touch()  # the reference run: nobody dies
    reference = CliRunner().invoke(app, [*args, "--jobs", "2", "--out", str(tmp_path / "reference")])
    assert reference.exit_code == 0, reference.output
    marker.unlink()
    killed = CliRunner().invoke(app, [*args, "--jobs", "2", "--out", str(tmp_path / "killed")])
    assert killed.exit_code == 0, killed.output
    assert marker.exists()
    assert "playing it again" in killed.output
    lines = (tmp_path / "killed" / "games.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["index"] for line in lines) == list(range(8))
    assert _summary(tmp_path / "killed" / "results.json") == _summary(tmp_path / "reference" / "results.json")


def test_selfplay_in_worker_processes_resumes_to_the_records_of_one_run(tmp_path: Path) -> None:
    args = ["selfplay", "coins", "--plugin", "toy_game", "--bots", "greedy,random", "--seed", "8"]
    whole = CliRunner().invoke(app, [*args, "--games", "6", "--out", str(tmp_path / "whole")])
    assert whole.exit_code == 0, whole.output
    begun = CliRunner().invoke(app, [*args, "--games", "2", "--jobs", "2", "--out", str(tmp_path / "part")])
    assert begun.exit_code == 0, begun.output
    (tmp_path / "part" / "coins-000009.json").write_text("{not json")  # a record cut short: played again
    resumed = CliRunner().invoke(
        app, [*args, "--games", "6", "--jobs", "2", "--resume", "--out", str(tmp_path / "part")]
    )
    assert resumed.exit_code == 0, resumed.output
    assert "resuming: 1 of 6" in " ".join(resumed.output.split())
    assert "playing again" in resumed.output

    def records(folder: Path) -> dict[str, object]:
        return {p.name: {**json.loads(p.read_text()), "date": None} for p in sorted(folder.glob("*.json"))}

    assert records(tmp_path / "part") == records(tmp_path / "whole")


def test_analysing_many_records_in_worker_processes_equals_one_at_a_time(tmp_path: Path) -> None:
    made = CliRunner().invoke(
        app, ["selfplay", "coins", "--bots", "greedy,random", "--games", "3", "--out", str(tmp_path)]
    )
    assert made.exit_code == 0, made.output
    paths = sorted(str(p) for p in tmp_path.glob("coins-*.json"))
    batch = CliRunner().invoke(
        app, ["analyse", *paths, "--json", "--jobs", "2", "--plugin", "toy_game", "--out", str(tmp_path / "judged")]
    )
    assert batch.exit_code == 0, batch.output
    listed = json.loads(batch.stdout)
    assert [entry.pop("record") for entry in listed] == paths
    for path, entry in zip(paths, listed, strict=True):
        alone = CliRunner().invoke(app, ["analyse", path, "--json"])
        assert alone.exit_code == 0, alone.output
        assert json.loads(alone.stdout) == entry
        assert json.loads((tmp_path / "judged" / f"{Path(path).stem}.analysis.json").read_text()) == entry
    table = CliRunner().invoke(app, ["analyse", *paths, "--jobs", "2", "--plugin", "toy_game"])
    assert table.exit_code == 0, table.output
    assert "Judged by greedy" in table.stdout and "coins-000002.json" in table.stdout


def test_a_cluster_address_that_does_not_answer_is_one_line_at_once() -> None:
    pytest.importorskip("ray", reason="Ray is the cluster extra")
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = CliRunner().invoke(app, ["arena", "coins", "--games", "2", "--ray", f"127.0.0.1:{port}"])
    assert result.exit_code == 2
    assert result.output.startswith(f"error: cannot reach the Ray cluster at 127.0.0.1:{port}")
    assert len(result.output.strip().splitlines()) == 1
