"""The game and player-count cases every environment checker runs on, and the skip."""

from __future__ import annotations

import pytest

from tabletop import make
from tabletop.core.registry import player_counts

CASES = [(game_id, n) for game_id in ("terranova", "medina") for n in player_counts(make(game_id))]
"""Each game at the player counts of its default ruleset (Medina's 2 players need its second edition)."""
IDS = [f"{game_id}-{n}p" for game_id, n in CASES]
NO_RL = "the rl extra is not installed (pip install 'tabletop[rl]'; make test installs it)"


def need(module: str) -> None:
    """Skips the calling test module when ``module`` (from the rl extra) is missing."""
    pytest.importorskip(module, reason=NO_RL)
