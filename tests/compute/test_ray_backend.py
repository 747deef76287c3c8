"""Arena and SPRT through ``--ray``: the same records and results as local processes, and a
worker killed mid-run replayed (a local Ray instance of two worker processes).

Ray is a service here, as PostgreSQL is for the server tests: ``.ci/run`` starts these with
``TABLETOP_RAY_TESTS=1`` in its Ray step, beside the two-node cluster, and ``make test``
leaves them out (starting Ray and its workers costs about a minute of the 2-core budget)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import toy_game  # noqa: F401 - registers "coins"
from typer.testing import CliRunner

from tabletop.cli.main import app

HERE = Path(__file__).resolve().parent
PLUGIN_PATH = [str(HERE.parent / "ai"), str(HERE)]
"""Where the workers find the plugins (toy_game, dying_bot): given to Ray's workers as PYTHONPATH."""

pytestmark = pytest.mark.skipif(
    os.environ.get("TABLETOP_RAY_TESTS") != "1", reason="starts a local Ray: .ci/run's Ray step (TABLETOP_RAY_TESTS=1)"
)
ray = pytest.importorskip("ray", reason="Ray is the cluster extra: pip install 'tabletop[cluster]'")


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    """One small Ray instance for the module; ``--ray`` uses it, as it uses any Ray already running."""
    with pytest.MonkeyPatch.context() as patch:
        # The workers import the plugins (toy_game, dying_bot) by name.
        patch.setenv("PYTHONPATH", os.pathsep.join([*PLUGIN_PATH, os.environ.get("PYTHONPATH", "")]))
        ray.init(
            address="local",
            num_cpus=2,
            object_store_memory=80 * 1024 * 1024,
            include_dashboard=False,
            log_to_driver=False,
        )
        try:
            yield
        finally:
            ray.shutdown()


def _records(out: Path, folder: str = "games") -> dict[str, Any]:
    """Every record in ``out/folder`` without its date (the moment it was written)."""
    records = {}
    for path in sorted((out / folder).glob("*.json")):
        record = json.loads(path.read_text())
        record.pop("date", None)
        records[path.name] = record
    return records


def _arena_summary(out: Path) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads((out / "results.json").read_text())
    summary.pop("run")
    for game in summary["games"]:
        del game["think_seconds"]
    for row in summary["results"]:
        del row["seconds_per_move"]
    return summary


ARENA = ["arena", "coins", "--bots", "greedy,random,mcts:1", "--players", "2", "--games", "12", "--seed", "7"]
PLUGINS = ["--plugin", "toy_game", "--bootstrap", "0"]


def test_an_arena_on_ray_gives_the_records_and_results_of_local_processes(tmp_path: Path) -> None:
    local = CliRunner().invoke(app, [*ARENA, *PLUGINS, "--jobs", "2", "--out", str(tmp_path / "local")])
    assert local.exit_code == 0, local.output
    on_ray = CliRunner().invoke(app, [*ARENA, *PLUGINS, "--ray", "--out", str(tmp_path / "ray")])
    assert on_ray.exit_code == 0, on_ray.output
    assert "Run: ray (started here), 1 node, 2 cores" in on_ray.output
    assert _records(tmp_path / "ray") == _records(tmp_path / "local")
    assert _arena_summary(tmp_path / "ray") == _arena_summary(tmp_path / "local")
    run = json.loads((tmp_path / "ray" / "results.json").read_text())["run"]
    assert run == {"backend": "ray", "address": None, "nodes": 1, "cores": 2}
    node = ray.get_runtime_context().get_node_id()
    lines = (tmp_path / "ray" / "games.jsonl").read_text().splitlines()
    assert {json.loads(line)["node"] for line in lines} == {node}


def test_an_arena_begun_locally_is_resumed_on_ray(tmp_path: Path) -> None:
    whole = CliRunner().invoke(app, [*ARENA, *PLUGINS, "--out", str(tmp_path / "whole")])
    assert whole.exit_code == 0, whole.output
    first = [arg if arg != "12" else "5" for arg in ARENA]
    begun = CliRunner().invoke(app, [*first, *PLUGINS, "--jobs", "2", "--out", str(tmp_path / "resumed")])
    assert begun.exit_code == 0, begun.output
    resumed = CliRunner().invoke(app, [*ARENA, *PLUGINS, "--ray", "--resume", "--out", str(tmp_path / "resumed")])
    assert resumed.exit_code == 0, resumed.output
    assert "resuming: 5 of 12" in " ".join(resumed.output.split())
    assert _records(tmp_path / "resumed") == _records(tmp_path / "whole")
    assert _arena_summary(tmp_path / "resumed") == _arena_summary(tmp_path / "whole")


def test_a_ray_worker_killed_mid_arena_loses_only_its_game_which_is_played_again(tmp_path: Path) -> None:
    marker = tmp_path / "died"
    args = [
        *["arena", "coins", "--bots", f"greedy,dieonce:{marker}", "--games", "8", "--seed", "4", "--bootstrap", "0"],
        *["--plugin", "toy_game", "--plugin", "dying_bot"],
    ]
    marker.touch()  # the reference run: nobody dies
    reference = CliRunner().invoke(app, [*args, "--jobs", "2", "--out", str(tmp_path / "reference")])
    assert reference.exit_code == 0, reference.output
    marker.unlink()
    killed = CliRunner().invoke(app, [*args, "--ray", "--out", str(tmp_path / "killed")])
    assert killed.exit_code == 0, killed.output
    assert marker.exists()
    # Game 1 is the first the dying bot is asked to move in (it sits second in game 0).
    replayed = [line for line in killed.output.splitlines() if "playing it again" in line]
    assert len(replayed) == 1, killed.output
    assert "WorkerCrashedError" in replayed[0]
    lines = (tmp_path / "killed" / "games.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["index"] for line in lines) == list(range(8))  # no game saved twice
    assert _records(tmp_path / "killed") == _records(tmp_path / "reference")
    assert _arena_summary(tmp_path / "killed") == _arena_summary(tmp_path / "reference")


def _sprt_summary(out: Path) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads((out / "sprt.json").read_text())
    summary.pop("run")
    for game in summary["games"]:
        del game["node"]
    return summary


def test_an_sprt_match_on_ray_decides_as_local_processes_with_the_same_games(tmp_path: Path) -> None:
    sprt = ["sprt", "greedy", "random", "--game", "coins", "--elo1", "100", "--max-games", "200", "--seed", "3"]
    local = CliRunner().invoke(app, [*sprt, *PLUGINS[:2], "--jobs", "2", "--out", str(tmp_path / "local")])
    assert local.exit_code == 0, local.output
    one = CliRunner().invoke(app, [*sprt, *PLUGINS[:2], "--out", str(tmp_path / "one")])
    assert one.exit_code == 0, one.output
    on_ray = CliRunner().invoke(app, [*sprt, *PLUGINS[:2], "--ray", "--out", str(tmp_path / "ray")])
    assert on_ray.exit_code == 0, on_ray.output
    assert "H1 accepted" in on_ray.output
    assert _sprt_summary(tmp_path / "ray") == _sprt_summary(tmp_path / "local") == _sprt_summary(tmp_path / "one")
    assert _records(tmp_path / "ray") == _records(tmp_path / "local")
    summary = json.loads((tmp_path / "ray" / "sprt.json").read_text())
    assert summary["run"]["backend"] == "ray"
    assert len(summary["games"]) == 2 * summary["rounds"]


def test_selfplay_on_ray_writes_the_records_of_one_local_process(tmp_path: Path) -> None:
    args = ["selfplay", "coins", "--plugin", "toy_game", "--bots", "greedy,random", "--games", "6", "--seed", "5"]
    local = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "local")])
    assert local.exit_code == 0, local.output
    on_ray = CliRunner().invoke(app, [*args, "--ray", "--out", str(tmp_path / "ray")])
    assert on_ray.exit_code == 0, on_ray.output
    assert "Run: ray (started here), 1 node, 2 cores" in on_ray.output
    assert len(_records(tmp_path / "ray", ".")) == 6
    assert _records(tmp_path / "ray", ".") == _records(tmp_path / "local", ".")


def test_analysing_records_on_ray_equals_local_processes(tmp_path: Path) -> None:
    made = CliRunner().invoke(
        app, ["selfplay", "coins", "--bots", "greedy,random", "--games", "3", "--out", str(tmp_path)]
    )
    assert made.exit_code == 0, made.output
    paths = sorted(str(p) for p in tmp_path.glob("coins-*.json"))
    local = CliRunner().invoke(app, ["analyse", *paths, "--json", "--jobs", "2", "--plugin", "toy_game"])
    assert local.exit_code == 0, local.output
    on_ray = CliRunner().invoke(app, ["analyse", *paths, "--json", "--ray", "--plugin", "toy_game"])
    assert on_ray.exit_code == 0, on_ray.output
    assert json.loads(on_ray.stdout) == json.loads(local.stdout)


def test_a_ray_worker_killed_mid_sprt_changes_nothing_but_the_replayed_game(tmp_path: Path) -> None:
    marker = tmp_path / "died"
    sprt = ["sprt", "greedy", f"dieonce:{marker}", "--game", "coins", "--elo1", "100", "--max-games", "100"]
    sprt += ["--seed", "6", "--plugin", "toy_game", "--plugin", "dying_bot"]
    marker.touch()  # the reference run: nobody dies
    reference = CliRunner().invoke(app, [*sprt, "--jobs", "2", "--out", str(tmp_path / "reference")])
    assert reference.exit_code == 0, reference.output
    marker.unlink()
    killed = CliRunner().invoke(app, [*sprt, "--ray", "--out", str(tmp_path / "killed")])
    assert killed.exit_code == 0, killed.output
    assert marker.exists()
    assert len([line for line in killed.output.splitlines() if "playing it again" in line]) == 1, killed.output
    assert _sprt_summary(tmp_path / "killed") == _sprt_summary(tmp_path / "reference")
    assert _records(tmp_path / "killed") == _records(tmp_path / "reference")
