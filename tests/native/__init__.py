"""The native engines' tests (``docs/native.md``).

They need the extension ``tabletop._native``.  Where it cannot be built (no cargo) they
skip; where it can, a missing extension fails the run instead, so that the differential
tests never vanish from CI unnoticed: :func:`needs_native` decides.
"""

from __future__ import annotations

import os
import random
import shutil

import pytest

from tabletop.ai.agent import random_move
from tabletop.core.protocol import GameConfig, State
from tabletop.core.registry import make
from tabletop.native import has_native

REQUIRE_VARIABLE = "TABLETOP_REQUIRE_NATIVE"
"""``1``: the native tests fail where the extension is missing; ``0``: they skip; unset:
``1`` where cargo is on PATH (``make test`` sets it: ``0`` under ``make test CARGO=``)."""


def native_required() -> bool:
    """Whether a missing native extension is an error of this run rather than a skip."""
    flag = os.environ.get(REQUIRE_VARIABLE)
    if flag is not None:
        return flag.strip() not in ("", "0")
    return shutil.which("cargo") is not None


def needs_native(*game_ids: str) -> pytest.MarkDecorator:
    """The mark of a test module (``pytestmark``) or test that needs the native engines of
    ``game_ids``: no mark where they are built, a skip where they cannot be, and a failed
    collection where they should be (:func:`native_required`)."""
    missing = [game_id for game_id in game_ids if not has_native(game_id)]
    if missing and native_required():
        pytest.fail(
            f"no native engine for {', '.join(missing)}, but cargo is on PATH ({REQUIRE_VARIABLE} unset or 1): "
            f"build it (`make native`, or `pip install -e .`), or set {REQUIRE_VARIABLE}=0 to skip these tests",
            pytrace=False,
        )
    return pytest.mark.skipif(bool(missing), reason=f"the native extension is not built for {', '.join(missing)}")


def midgame(game_id: str, players: int, plies: int, *, engine: str = "native", seed: int = 0) -> State:
    """A position ``plies`` random actions into a seeded game (fewer if it ends first)."""
    state: State = make(game_id, engine=engine).new_initial_state(GameConfig(num_players=players, seed=seed))
    rng = random.Random(seed)
    for _ in range(plies):
        if state.is_terminal():
            break
        state = state.apply(random_move(state, rng))
    return state
