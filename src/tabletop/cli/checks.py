"""Checks of command-line values shared by several commands: each fails in one line (exit 2)."""

from __future__ import annotations

import math

from tabletop.cli.output import fail
from tabletop.core.errors import TabletopError
from tabletop.core.protocol import Game
from tabletop.core.registry import make, player_counts


def load_game(game_id: str) -> Game:
    """The registered game, or a clear error listing the known ones."""
    try:
        return make(game_id)
    except TabletopError as exc:
        fail(str(exc))


def check_players(game: Game, count: int, ruleset: str = "default") -> int:
    """``count`` if ``game`` can be played by that many (under ``ruleset``: Medina seats 2
    only in its second edition), else a one-line error."""
    if not game.min_players <= count <= game.max_players:
        fail(f"{game.id} is for {game.min_players} to {game.max_players} players, not {count}")
    counts = player_counts(game, ruleset)
    if counts and count not in counts:
        fail(f"{game.id}'s ruleset {ruleset!r} is for {counts[0]} to {counts[-1]} players, not {count}")
    return count


def check_seconds(seconds: float, option: str) -> float:
    """``seconds`` if it is a positive, finite number, else a one-line error naming ``option``."""
    if not 0 < seconds < math.inf:  # also false for nan
        fail(f"{option} must be a positive, finite number of seconds, not {seconds:g}")
    return seconds
