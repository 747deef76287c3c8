"""PettingZoo's parallel API test on both games at every player count
(``tabletop.envs.parallel_env``), and what it leaves unchecked: the turn order, the
rewards of a whole game, truncation."""

from __future__ import annotations

import warnings

import pytest

from tests.envs.cases import CASES, IDS, need

need("pettingzoo")

import numpy as np  # noqa: E402
from pettingzoo.test import parallel_api_test, parallel_seed_test  # noqa: E402

from tabletop.core.errors import ConfigError  # noqa: E402
from tabletop.envs import aec_env, parallel_env  # noqa: E402


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=IDS)
def test_parallel_api_and_seed(game_id: str, players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice on dict observations, which the masks need
        parallel_api_test(parallel_env(game_id, num_players=players), num_cycles=60)
        # It samples every action without its mask: with illegal_action="lose" an
        # illegal one ends the game, so it compares the seeded resets and the first
        # steps (the seeded game below is checked step by step against the AEC env).
        parallel_seed_test(lambda: parallel_env(game_id, num_players=players, illegal_action="lose"), num_cycles=60)


def test_an_illegal_action_loses_when_asked() -> None:
    env = parallel_env("terranova", num_players=2, illegal_action="lose")
    observations, _ = env.reset(seed=1)
    acting = env.agent_to_act
    assert acting is not None
    other = next(a for a in env.possible_agents if a != acting)
    state = env.state_now
    illegal = int(np.flatnonzero(observations[acting]["action_mask"] == 0)[-1])
    observations, rewards, terminations, truncations, infos = env.step({acting: illegal})
    assert env.agents == [] and env.state_now is state  # nothing played, the episode over
    assert rewards == {acting: -1.0, other: 0.0}
    assert all(terminations.values()) and not any(truncations.values())
    assert all(info["illegal_action"] for info in infos.values())
    assert not any(obs["action_mask"].any() for obs in observations.values())
    with pytest.raises(ConfigError, match="illegal_action"):
        parallel_env("medina", illegal_action="ignore")


@pytest.mark.parametrize("reward", ["win", "score"])
def test_a_whole_game_is_the_aec_game(reward: str) -> None:
    """Played with the same seed and actions, the parallel env and the AEC env give the
    same observations, masks and rewards; the parallel game pays the result."""
    par = parallel_env("medina", num_players=3, reward=reward)
    aec = aec_env("medina", num_players=3, reward=reward)
    observations, _ = par.reset(seed=5)
    aec.reset(seed=5)
    rng = np.random.default_rng(5)
    totals = dict.fromkeys(par.possible_agents, 0.0)
    while par.agents:
        acting = par.agent_to_act
        assert acting == aec.agent_selection
        for agent in par.possible_agents:
            expected = aec.observe(agent)
            for key in ("observation", "vector", "action_mask"):
                assert np.array_equal(observations[agent][key], expected[key])
            assert observations[agent]["action_mask"].any() == (agent == acting)
        action = int(rng.choice(np.flatnonzero(observations[acting]["action_mask"])))
        ignored = dict.fromkeys(par.agents, 0)  # the others' actions are not played
        observations, rewards, terminations, _, _ = par.step({**ignored, acting: action})
        aec.step(action)
        for agent, value in rewards.items():
            totals[agent] += value
            assert value == aec.rewards[agent]
    state = par.state_now
    assert state.is_terminal() and all(terminations.values())
    expected_totals = state.returns() if reward == "win" else state.scores()
    assert tuple(totals.values()) == pytest.approx(expected_totals)


def test_max_steps_truncates_and_bad_input_is_refused() -> None:
    env = parallel_env("terranova", num_players=2, max_steps=3)
    observations, _ = env.reset(seed=1)
    for step in range(3):
        acting = env.agent_to_act
        assert acting is not None
        action = int(np.flatnonzero(observations[acting]["action_mask"])[0])
        with pytest.raises(ValueError, match="agent to act"):
            env.step({})
        observations, _, terminations, truncations, _ = env.step({acting: action})
        assert not any(terminations.values())
        assert all(truncations.values()) == (step == 2)
    assert env.agents == []
    with pytest.raises(RuntimeError, match="reset"):
        env.step({})
    env.reset(seed=1)
    acting = env.agent_to_act
    assert acting is not None
    with pytest.raises(ValueError, match="not legal"):
        env.step({acting: env.action_space(acting).n - 1})  # the pass, not legal while placing
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ConfigError, match="max_steps"):
            parallel_env("medina", max_steps=bad)
