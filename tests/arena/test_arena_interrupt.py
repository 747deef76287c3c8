"""Ctrl-C during a parallel arena: the finished games stay saved and --resume plays the rest."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

GAMES = 16
# The Coins toy game (tests/ai) with a bot that pauses a quarter of a second a game
# (tests/compute/unhurried_bot.py): the arena lasts about two seconds however fast the
# machine, so the Ctrl-C lands mid-arena, and the games cost no CPU.
ARENA = ["arena", "coins", "--plugin", "toy_game", "--plugin", "unhurried_bot", "--bots", "unhurried:0.25,random"]
ARENA += ["--games", str(GAMES), "--jobs", "2", "--seed", "3"]
LAUNCH = "import sys; from tabletop.cli.main import app; sys.argv[0] = 'tabletop'; app()"
TESTS = Path(__file__).resolve().parents[1]
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join([str(TESTS / "ai"), str(TESTS / "compute"), os.environ.get("PYTHONPATH", "")]),
}


def _saved(out: Path) -> int:
    index = out / "games.jsonl"
    return len(index.read_text().splitlines()) if index.exists() else 0


def test_ctrl_c_keeps_the_finished_games_and_resume_completes_the_arena(tmp_path: Path) -> None:
    out = tmp_path / "arena"
    # A session of its own, so the SIGINT goes to the arena and its workers, as Ctrl-C in
    # a terminal does, and not to pytest.
    proc = subprocess.Popen(
        [sys.executable, "-c", LAUNCH, *ARENA, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=ENV,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while _saved(out) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "the arena ended before it could be interrupted"
        os.killpg(proc.pid, signal.SIGINT)
        output, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, output
    assert "add --resume to continue" in " ".join(output.split())
    assert "Traceback" not in output
    kept = _saved(out)
    assert 2 <= kept < GAMES
    assert len(list((out / "games").glob("coins-*.json"))) >= kept

    resumed = subprocess.run(
        [sys.executable, "-c", LAUNCH, *ARENA, "--out", str(out), "--resume"],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"resuming: {kept} of {GAMES}" in " ".join(resumed.stderr.split())
    summary = json.loads((out / "results.json").read_text())
    assert [game["index"] for game in summary["games"]] == list(range(GAMES))
