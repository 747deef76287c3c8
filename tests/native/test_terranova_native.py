"""Terra Nova's native engine on other maps than the built-in one: any valid map.

Small and large boards (the two bitset sizes: up to 256 cells and up to the 1,000-cell
map limit), gaps in lines, lakes, few landscapes (where the scoring shortcut of
``scoring.parts_after_stone`` does not apply), with random flag mixes.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tabletop.core.protocol import GameConfig
from tabletop.core.registry import make
from tabletop.grid.hex import disc
from tabletop.native.check import play_both, random_variants
from tests.games.terranova.helpers import d37, disc168, holey, map_from_cells, parallelogram
from tests.native import needs_native

pytestmark = needs_native("terranova")


def sectors(radius: int, lands: str, *, gaps: int = 0, seed: int = 0) -> dict[str, Any]:
    """A disc whose landscapes are pie slices, with ``gaps`` random inner cells missing."""
    rng = random.Random(seed)
    cells = list(disc(radius))
    inner = [c for c in cells if max(abs(c[0]), abs(c[1]), abs(c[0] + c[1])) < radius - 1]
    missing = set(rng.sample(inner, gaps)) if gaps else set()
    out = []
    for q, r in cells:
        if (q, r) in missing:
            continue
        slice_ = (q * 7 + r * 3 + (q * r) % 5) % len(lands)
        out.append((q, r, lands[slice_]))
    return map_from_cells(f"sectors{radius}-{len(lands)}-{gaps}", out)


MAPS = {
    "d37": d37(),
    "disc168": disc168(),
    "holey": holey(),
    "parallelogram": parallelogram(8, 6, "FMAPSHRL", missing=[(3, 2), (4, 4)]),
    "three-dry-lands": sectors(5, "FMAL", gaps=3, seed=1),
    "three-dry-lands-no-gaps": sectors(6, "FMALL"),
    "large-331": sectors(10, "FMAPSHRL", gaps=12, seed=2),
    "largest-919": sectors(17, "FMAPSHRLL", gaps=0, seed=3),
}


def _cases() -> list[tuple[str, int, int]]:
    cases = []
    for name in MAPS:
        for seed in range(1 if name.startswith("largest") else 6):
            cases.append((name, 2 + seed % 3, seed))
    return cases


@pytest.mark.slow
@pytest.mark.parametrize(("map_name", "num_players", "seed"), _cases())
def test_random_games_on_other_maps_agree(map_name: str, num_players: int, seed: int) -> None:
    game = make("terranova", engine="python")
    variants = random_variants(game, random.Random(seed)) if seed % 2 else {}
    if map_name.startswith("three-dry-lands"):
        variants["lake_is_landscape"] = seed % 3 == 0
    config = GameConfig(num_players=num_players, variants=variants, map=MAPS[map_name], seed=seed)
    assert play_both(game, config, seed) > 0


def test_native_playouts_finish_games() -> None:
    state = make("terranova", engine="native").new_initial_state(GameConfig(num_players=2, seed=0))
    games, actions = state.native.random_playouts(20, 1)
    assert games == 20 and actions > 20 * 26  # 26 placements, then play
    large = make("terranova", engine="native").new_initial_state(GameConfig(num_players=4, map=MAPS["large-331"]))
    assert large.native.random_playouts(2, 5)[0] == 2


def test_the_native_mcts_plays_legal_moves() -> None:
    from tabletop.native.mcts import NativeMctsAgent

    state = make("terranova", engine="native").new_initial_state(GameConfig(num_players=3, seed=2))
    agent = NativeMctsAgent(60, seed=1)
    for _ in range(40):
        move = agent.choose_move(state)
        assert state.is_legal(move)
        state = state.apply(move)
    assert agent.last_nodes > 1
