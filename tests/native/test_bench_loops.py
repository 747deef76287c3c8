"""The engine benchmark's Python loops play the same games on either engine.

``tabletop bench engine --engine native`` compares the native engine's loops with
OpenSpiel's; the comparison means something only if the loops play the game as the
Python engine does.  With the same seeds and legal moves in the same order, the uniform
protocol loop (OpenSpiel's loop through the protocol) and the kind-first one make the
same moves on both engines, so they count the same actions.
"""

from __future__ import annotations

import pytest

import tabletop
from tabletop.bench.engine import bench_action_loop, bench_protocol_cpu, bench_protocol_loop
from tests.native import needs_native

pytestmark = needs_native("terranova", "medina")

GAMES = [("terranova", 2), ("terranova", 4), ("medina", 3)]


@pytest.mark.parametrize(("game_id", "players"), GAMES)
@pytest.mark.parametrize("loop", [bench_protocol_loop, bench_protocol_cpu])
def test_protocol_loops_play_the_python_engines_games(game_id: str, players: int, loop: object) -> None:
    runs = [
        loop(tabletop.make(game_id, engine=engine), players, seconds=0.0, min_games=3, seed=7)  # type: ignore[operator]
        for engine in ("python", "native")
    ]
    assert runs[0].games == runs[1].games == 3
    assert runs[0].actions == runs[1].actions > 0


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_the_action_id_loop_plays_whole_games(game_id: str, players: int) -> None:
    run = bench_action_loop(tabletop.make(game_id, engine="native"), players, seconds=0.0, min_games=2, seed=3)
    assert run.games == 2 and run.actions > 2 * players
