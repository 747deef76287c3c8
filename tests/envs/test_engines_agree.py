"""Every adapter gives the same observations, masks, legal actions and rewards on both
engines: on the native engine (the default where the extension is built) observations
and masks come from Rust (``NativeEncoder``), on the Python engine from the Python
encoding.  Each case plays one seeded game prefix under ``TABLETOP_ENGINE=python`` and
``=native`` and compares the traces."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tabletop.native import has_native
from tests.envs.cases import need

need("pettingzoo")
need("pyspiel")

import numpy as np  # noqa: E402

from tabletop.envs import aec_env, gym_env, register_openspiel  # noqa: E402

pytestmark = pytest.mark.skipif(not has_native("terranova"), reason="the extension tabletop._native is not built")

STEPS = 40
CASES = [("terranova", 2), ("terranova", 4), ("medina", 3), ("medina", 4)]


def _aec(game_id: str, players: int) -> list[Any]:
    env = aec_env(game_id, num_players=players, reward="score")
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    trace: list[Any] = []
    for agent in env.agent_iter(max_iter=STEPS):
        obs, reward, terminated, truncated, _ = env.last()
        trace.append(
            (agent, obs["observation"].tobytes(), obs["vector"].tobytes(), obs["action_mask"].tobytes(), reward)
        )
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    return trace


def _gym(game_id: str, players: int) -> list[Any]:
    env = gym_env(game_id, opponents=("random",), num_players=players, reward="score")
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    trace: list[Any] = [(obs["observation"].tobytes(), obs["action_mask"].tobytes(), info["plies"])]
    for _ in range(STEPS):
        legal = np.flatnonzero(obs["action_mask"])
        obs, reward, terminated, _, info = env.step(int(legal[rng.integers(len(legal))]))
        trace.append((obs["observation"].tobytes(), obs["vector"].tobytes(), obs["action_mask"].tobytes(), reward))
        if terminated:
            break
    return trace


def _openspiel(game_id: str, players: int) -> list[Any]:
    import pyspiel

    register_openspiel()
    game = pyspiel.load_game(f"python_tabletop_{game_id}", {"players": players, "seed": 5})
    state = game.new_initial_state()
    rng = np.random.default_rng(5)
    trace: list[Any] = []
    for _ in range(STEPS):
        if state.is_terminal():
            break
        player = state.current_player()
        legal = state.legal_actions()
        trace.append((player, tuple(legal), tuple(state.observation_tensor(player))))
        state.apply_action(legal[rng.integers(len(legal))])
    return trace


ADAPTERS: dict[str, Callable[[str, int], list[Any]]] = {"pettingzoo": _aec, "gymnasium": _gym, "openspiel": _openspiel}


@pytest.mark.parametrize("adapter", list(ADAPTERS))
@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_both_engines_give_the_same_trace(
    adapter: str, game_id: str, players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    traces = []
    for engine in ("python", "native"):
        monkeypatch.setenv("TABLETOP_ENGINE", engine)
        traces.append(ADAPTERS[adapter](game_id, players))
    assert len(traces[0]) > 10
    assert traces[0] == traces[1]
