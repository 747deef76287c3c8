"""A simulated Ray cluster of two nodes on this machine (``ray start --head``, ``ray start
--address``): an arena joined with ``--ray ADDRESS`` spreads its games over both.

It starts and stops a cluster (about half a minute on two cores), so it runs in CI
(``.ci/run``) with ``TABLETOP_RAY_CLUSTER=1`` rather than in every ``make test``.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import toy_game  # noqa: F401 - registers "coins"
from typer.testing import CliRunner

from tabletop.cli.main import app

HERE = Path(__file__).resolve().parent
PLUGIN_PATH = [str(HERE.parent / "ai"), str(HERE)]
"""Where the workers find the plugins (toy_game, dying_bot): given to Ray's workers as PYTHONPATH."""

pytest.importorskip("ray", reason="Ray is the cluster extra: pip install 'tabletop[cluster]'")
pytestmark = pytest.mark.skipif(
    os.environ.get("TABLETOP_RAY_CLUSTER") != "1", reason="starts a two-node Ray cluster: TABLETOP_RAY_CLUSTER=1"
)

RAY = str(Path(sys.executable).with_name("ray"))
LAUNCH = "import sys; from tabletop.cli.main import app; sys.argv[0] = 'tabletop'; app()"
# The unhurried bot pauses half a second a game (unhurried_bot.py), so the games outlast
# the start of the second node's workers and both nodes play.
ARENA = ["arena", "coins", "--plugin", "toy_game", "--plugin", "unhurried_bot"]
ARENA += ["--bots", "mcts:1,unhurried:0.5,random", "--players", "2"]
ARENA += ["--games", "24", "--seed", "11", "--bootstrap", "0"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _start(*args: str, env: dict[str, str]) -> None:
    common = ["--node-ip-address", "127.0.0.1", "--num-cpus", "1", "--object-store-memory", str(80 * 1024 * 1024)]
    started = subprocess.run(
        [RAY, "start", *args, *common, "--disable-usage-stats"], env=env, capture_output=True, text=True, timeout=180
    )
    assert started.returncode == 0, started.stdout + started.stderr


def _summary(out: Path) -> dict[str, object]:
    summary: dict[str, object] = json.loads((out / "results.json").read_text())
    summary.pop("run")
    for game in summary["games"]:  # type: ignore[attr-defined]
        del game["think_seconds"]
    for row in summary["results"]:  # type: ignore[attr-defined]
        del row["seconds_per_move"]
    return summary


def test_an_arena_on_a_two_node_cluster_plays_on_both_nodes(tmp_path: Path) -> None:
    env = {
        **os.environ,
        # Ray authenticates a cluster's members with a token: one of this test's own, so it
        # neither needs nor touches ~/.ray/auth_token.
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": secrets.token_hex(32),
        "PYTHONPATH": os.pathsep.join([*PLUGIN_PATH, os.environ.get("PYTHONPATH", "")]),
    }
    address = f"127.0.0.1:{_free_port()}"
    try:
        _start("--head", "--port", address.split(":")[1], "--include-dashboard", "false", env=env)
        _start("--address", address, env=env)
        joined = subprocess.run(
            [sys.executable, "-c", LAUNCH, *ARENA, "--ray", address, "--out", str(tmp_path / "cluster")],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        subprocess.run([RAY, "stop", "--force"], env=env, capture_output=True, timeout=180)
    assert joined.returncode == 0, joined.stdout + joined.stderr
    assert f"Run: ray (cluster at {address}), 2 nodes, 2 cores" in joined.stdout
    lines = (tmp_path / "cluster" / "games.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["index"] for line in lines) == list(range(24))
    assert len({json.loads(line)["node"] for line in lines}) == 2, joined.stdout + joined.stderr
    local = CliRunner().invoke(app, [*ARENA, "--out", str(tmp_path / "local")])
    assert local.exit_code == 0, local.output
    assert _summary(tmp_path / "cluster") == _summary(tmp_path / "local")
