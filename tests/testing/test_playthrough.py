"""Replays every golden playthrough (tests/golden/<game>/<n>p.json) and checks coverage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabletop.core.registry import make
from tabletop.testing.playthrough import (
    check_golden_file,
    golden_json,
    golden_path,
    missing_golden_files,
    play_golden,
    shipped_games,
)

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"

CASES = [(game_id, n) for game_id in shipped_games() for n in make(game_id).bench_player_counts]


def test_every_shipped_game_has_golden_files() -> None:
    missing = missing_golden_files(GOLDEN_DIR)
    assert not missing, (
        f"no golden playthrough for {', '.join(missing)}: run "
        "`python -m tabletop.testing.playthrough --regenerate --game ID` and commit tests/golden/"
    )


@pytest.mark.parametrize(("game_id", "num_players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_golden_playthrough_replays(game_id: str, num_players: int) -> None:
    path = golden_path(GOLDEN_DIR, game_id, num_players)
    if not path.is_file():
        pytest.skip(f"{path} missing (reported by test_every_registered_game_has_golden_files)")
    problems = check_golden_file(path)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("game_id", "num_players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_golden_playthrough_regenerates_identically(game_id: str, num_players: int) -> None:
    """The seeded random game still comes out move for move: catches changes to rules or move order."""
    path = golden_path(GOLDEN_DIR, game_id, num_players)
    stored = json.loads(path.read_text(encoding="utf-8"))
    fresh = golden_json(play_golden(make(game_id), num_players))
    assert fresh == stored, (
        f"{path} differs from a fresh seeded game; if the change is deliberate run `make golden` and commit"
    )
