"""tools/measure_bots.sh: every match is a valid, seat-balanced, resumable arena."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tabletop.ai.agent import make_agent
from tabletop.arena.tournament import lineups

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "measure_bots.sh"


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_every_match_is_a_balanced_resumable_arena(tmp_path: Path) -> None:
    # TABLETOP=echo prints each arena command instead of running it.
    result = subprocess.run(
        ["bash", str(SCRIPT), str(tmp_path / "out"), "2"],
        env={"TABLETOP": "echo", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    commands = [shlex.split(line) for line in result.stdout.splitlines() if line.startswith("arena ")]
    assert len(commands) == 15
    for args in commands:
        options = {args[i]: args[i + 1] for i in range(len(args) - 1) if args[i].startswith("--")}
        bots = options["--bots"].split(",")
        for spec in bots:
            make_agent(spec, seed=0)  # a bad spec raises
        games = int(options["--games"])
        assert games % len(lineups(bots, len(bots))) == 0, args
        assert "--resume" in args
        assert options["--out"].startswith(str(tmp_path / "out"))
