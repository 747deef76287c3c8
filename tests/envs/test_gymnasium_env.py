"""Gymnasium's own checker on both games at every player count (``tabletop.envs.gym_env``),
and the vector form."""

from __future__ import annotations

import warnings

import pytest

from tests.envs.cases import CASES, IDS, need

need("gymnasium")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

from tabletop.core.errors import ConfigError  # noqa: E402
from tabletop.envs import gym_env, gym_vector_env  # noqa: E402
from tabletop.envs.single import register_gymnasium  # noqa: E402


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=IDS)
def test_check_env(game_id: str, players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gym_env(game_id, opponents=("random", "greedy"), num_players=players, render_mode="ansi"))


def test_check_env_through_the_registry() -> None:
    register_gymnasium()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gymnasium.make("tabletop/Medina-v0", opponents=("random",), render_mode="ansi")
        check_env(env.unwrapped)  # with a spec: every render mode is tried too


def test_an_episode_ends_with_the_win_share() -> None:
    env = gym_env("terranova", opponents=("random",), seat=1)
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(4)
    total = 0.0
    terminated = False
    steps = 0
    while not terminated:
        legal = np.flatnonzero(obs["action_mask"])
        stones = [a for a in legal if a >= 168 + 6 * 168 * 14]
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(stones or legal)))
        total += float(reward)
        steps += 1
        assert not truncated
    assert total == env.unwrapped.state_now.returns()[1]
    assert "illegal_action" not in info


def test_an_illegal_action_loses_or_raises() -> None:
    env = gym_env("medina", opponents=("random",))
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(2106)  # pass: not legal at the start
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    strict = gym_env("medina", opponents=("random",), illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="not legal"):
        strict.step(2106)


def test_max_steps_truncates() -> None:
    env = gym_env("terranova", opponents=("random",), max_steps=4)
    untruncated = gym_env("terranova", opponents=("random",))
    obs, _ = env.reset(seed=2)
    same, _ = untruncated.reset(seed=2)
    for step in range(4):
        action = int(np.flatnonzero(obs["action_mask"])[0])
        obs, _, terminated, truncated, _ = env.step(action)
        same, _, _, _, _ = untruncated.step(action)
        assert np.array_equal(obs["observation"], same["observation"])  # the game itself is not changed
        assert (terminated, truncated) == (False, step == 3)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    obs, _ = env.reset(seed=2)
    _, _, _, truncated, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert not truncated  # counted from the reset
    with pytest.raises(ConfigError, match="max_steps"):
        gym_env("medina", max_steps=0)


def test_vector_env_plays_many_games() -> None:
    envs = gym_vector_env("medina", 3, opponents=("random",))
    obs, _ = envs.reset(seed=0)
    assert obs["observation"].shape == (3, 29, 13, 18)
    assert obs["action_mask"].shape == (3, 2107)
    rng = np.random.default_rng(0)
    for _ in range(5):
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in obs["action_mask"]])
        obs, rewards, _, _, _ = envs.step(actions)
        assert rewards.shape == (3,)
    envs.close()


def test_bad_arguments() -> None:
    with pytest.raises(ConfigError, match="unknown agent"):
        gym_env("medina", opponents=("nobody",))
    with pytest.raises(ConfigError, match="seat"):
        gym_env("medina", seat=5)
    with pytest.raises(ConfigError, match="num_envs"):
        gym_vector_env("medina", 0)
