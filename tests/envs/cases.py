"""The game and player-count cases every environment checker runs on, and the skip."""

from __future__ import annotations

import pytest

from tabletop import make

CASES = [
    (game_id, n)
    for game_id in ("terranova", "medina")
    for n in range(make(game_id).min_players, make(game_id).max_players + 1)
]
IDS = [f"{game_id}-{n}p" for game_id, n in CASES]
NO_RL = "the rl extra is not installed (pip install 'tabletop[rl]'; make test installs it)"


def need(module: str) -> None:
    """Skips the calling test module when ``module`` (from the rl extra) is missing."""
    pytest.importorskip(module, reason=NO_RL)
