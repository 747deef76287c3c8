"""PettingZoo's own checkers on both games at every player count (``tabletop.envs.aec_env``)."""

from __future__ import annotations

import warnings

import pytest

from tests.envs.cases import CASES, IDS, need

need("pettingzoo")

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from tabletop.core.errors import ConfigError  # noqa: E402
from tabletop.envs import aec_env  # noqa: E402


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=IDS)
def test_api_and_seed(game_id: str, players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice on dict observations, which the masks need
        api_test(aec_env(game_id, num_players=players, render_mode="ansi"), num_cycles=40)
        seed_test(lambda: aec_env(game_id, num_players=players), num_cycles=40)


@pytest.mark.parametrize("reward", ["win", "score"])
def test_a_whole_game_pays_the_result(reward: str) -> None:
    env = aec_env("medina", num_players=3, reward=reward)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        totals[agent] += rew
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = env.unwrapped.state_now
    assert state.is_terminal() and not env.agents
    expected = state.returns() if reward == "win" else state.scores()
    assert tuple(totals.values()) == pytest.approx(expected)


def test_only_the_agent_to_act_has_a_mask_and_illegal_actions_are_refused() -> None:
    env = aec_env("terranova", num_players=2)
    env.reset(seed=1)
    acting = env.agent_selection
    other = next(a for a in env.possible_agents if a != acting)
    assert env.observe(acting)["action_mask"].sum() == 168  # every cell during placement
    assert env.observe(other)["action_mask"].sum() == 0
    with pytest.raises(ValueError, match="not legal"):
        env.step(env.action_space(acting).n - 1)  # the pass, not legal while placing


@pytest.mark.parametrize("mode", ["ansi", "svg", "rgb_array"])
def test_render_modes(mode: str) -> None:
    for game_id in ("terranova", "medina"):
        env = aec_env(game_id, render_mode=mode)
        env.reset(seed=0)
        image = env.render()
        if mode == "rgb_array":
            assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
        else:
            assert isinstance(image, str) and image


def test_bad_config() -> None:
    with pytest.raises(ConfigError):
        aec_env("medina", num_players=2)
    with pytest.raises(ConfigError, match="reward"):
        aec_env("medina", reward="elo")
