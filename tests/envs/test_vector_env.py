"""The vector env (``tabletop.envs.vector``, ``native/src/vector.rs``) against the Python
engine and encoding, its oracle: every game of the batch is replayed on the Python engine
from its seed and actions, and at every step (auto-resets included) its observation,
mask, seat to act, rewards, termination and truncation are the Python encoding's and
outcome's, and an ended game's final observation is its last position's."""

from __future__ import annotations

from typing import Any

import pytest

from tabletop.native import has_native
from tests.envs.cases import need

need("gymnasium")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import data_equivalence  # noqa: E402

from tabletop import GameConfig, make  # noqa: E402
from tabletop.core.encoding import encoding_of  # noqa: E402
from tabletop.core.errors import ConfigError  # noqa: E402
from tabletop.envs.vector import NativeVectorEnv, VectorGames  # noqa: E402
from tests.games.terranova.helpers import d37  # noqa: E402

pytestmark = pytest.mark.skipif(not has_native("terranova"), reason="the extension tabletop._native is not built")

# Small maps end Terra Nova's uniformly random games within the test's steps, so that
# auto-resets are met; Isola Nuova for the real board.
SELF_PLAY = [
    ("terranova", 2, "d37", 120),
    ("terranova", 3, "d37", 120),
    ("terranova", 4, "d37", 120),
    ("terranova", 2, None, 40),
    ("medina", 3, None, 150),
    ("medina", 4, None, 120),
]


def _map(name: str | None) -> Any:
    return d37() if name == "d37" else None


class Replay:
    """Each game of a batch on the Python engine, from its seed and the batch's actions."""

    def __init__(self, games: VectorGames, game_id: str, players: int, map_: Any, max_steps: int | None = None) -> None:
        self.game = make(game_id, engine="python")
        self.players = players
        self.map = map_
        self.encoding = encoding_of(self.game, GameConfig(num_players=players, map=map_))
        self.states = [self._new(int(s)) for s in games.game_seeds]
        self.steps = [0] * games.num_envs
        self.max_steps = max_steps
        self.resets = self.truncations = 0

    def _new(self, seed: int) -> Any:
        return self.game.new_initial_state(GameConfig(num_players=self.players, map=self.map, seed=seed))

    def check(self, games: VectorGames, i: int) -> None:
        state = self.states[i]
        seat = state.current_player
        assert games.to_play[i] == seat
        planes, vector = self.encoding.observe(state, seat)
        assert np.array_equal(games.observation[i].ravel(), np.frombuffer(planes, np.float32))
        assert np.array_equal(games.vector[i], np.frombuffer(vector, np.float32))
        assert games.action_mask[i].tobytes() == bytes(self.encoding.action_mask(state))

    def step(self, games: VectorGames, i: int, action: int, reward: str) -> None:
        before = self.states[i]
        acted = before.current_player
        after = before.apply(self.encoding.decode(action))
        self.steps[i] += 1
        truncated = not after.is_terminal() and self.max_steps is not None and self.steps[i] >= self.max_steps
        if reward == "score":
            expected = [float(b - a) for a, b in zip(before.scores(), after.scores(), strict=True)]
        else:
            expected = [float(r) for r in after.returns()] if after.is_terminal() else [0.0] * self.players
        assert list(games.rewards[i]) == pytest.approx(expected)
        assert bool(games.terminated[i]) == after.is_terminal()
        assert bool(games.truncated[i]) == truncated
        if after.is_terminal() or truncated:
            assert list(games.final_scores[i]) == [float(s) for s in after.scores()]
            planes, vector = self.encoding.observe(after, acted)
            assert np.array_equal(games.final_observation[i].ravel(), np.frombuffer(planes, np.float32))
            assert np.array_equal(games.final_vector[i], np.frombuffer(vector, np.float32))
            after = self._new(int(games.game_seeds[i]))
            self.steps[i] = 0
            self.resets += 1
            self.truncations += truncated
        self.states[i] = after


@pytest.mark.parametrize(("game_id", "players", "map_name", "steps"), SELF_PLAY)
def test_self_play_batch_is_the_python_engine_step_by_step(
    game_id: str, players: int, map_name: str | None, steps: int
) -> None:
    map_ = _map(map_name)
    reward = "score" if players == 3 else "win"
    games = VectorGames(game_id, 3, num_players=players, map=map_, reward=reward, threads=2)
    games.reset(seed=players)
    replay = Replay(games, game_id, players, map_)
    for _ in range(steps):
        for i in range(games.num_envs):
            replay.check(games, i)
        actions = games.sample_actions()
        games.step(actions)
        for i in range(games.num_envs):
            replay.step(games, i, int(actions[i]), reward)
    if map_name == "d37" or (game_id == "medina" and players == 3):
        assert replay.resets > 0, "the run met no auto-reset"


@pytest.mark.parametrize(("game_id", "players", "max_steps"), [("terranova", 2, 15), ("medina", 3, 25)])
def test_max_steps_truncates_with_the_final_observation(game_id: str, players: int, max_steps: int) -> None:
    games = VectorGames(game_id, 3, num_players=players, reward="score", max_steps=max_steps)
    games.reset(seed=9)
    replay = Replay(games, game_id, players, None, max_steps)
    for _ in range(2 * max_steps + 3):
        for i in range(games.num_envs):
            replay.check(games, i)
        actions = games.sample_actions()
        games.step(actions)
        for i in range(games.num_envs):
            replay.step(games, i, int(actions[i]), "score")
    assert replay.truncations >= games.num_envs  # every game was cut at least once


def test_threads_and_seeds_make_the_same_run() -> None:
    # 40 games: the threads share them in chunks of 8 (a batch of 8 or fewer runs on one thread).
    runs = []
    for threads in (1, 2, 3, 1):
        games = VectorGames("medina", 40, num_players=3, threads=threads)
        assert games.threads == threads
        games.reset(seed=11)
        seen = []
        for _ in range(30):
            actions = games.sample_actions()
            games.step(actions)
            seen.append((actions, games.observation.copy(), games.action_mask.copy(), games.rewards.copy()))
        runs.append(seen)
        # An illegal action in the last game: refused, and no game played (all threads checked first).
        before = games.observation.copy()
        actions = games.sample_actions()
        actions[-1] = 2106 if actions[-1] != 2106 else 0
        with pytest.raises(ValueError, match="not legal in game 39"):
            games.step(actions)
        assert np.array_equal(games.observation, before)
    for run in runs[1:]:
        assert data_equivalence(runs[0], run, exact=True)
    assert VectorGames("medina", 2, num_players=3, threads=8).threads == 2  # at most one a game
    other = VectorGames("terranova", 5)
    other.reset(seed=11)
    seeds = other.game_seeds.copy()
    other.reset(seed=12)
    assert len(set(seeds)) == 5 and not np.array_equal(other.game_seeds, seeds)


@pytest.mark.parametrize(("game_id", "players"), [("terranova", 2), ("terranova", 4), ("medina", 3), ("medina", 4)])
def test_learner_against_native_bots_always_acts(game_id: str, players: int) -> None:
    games = VectorGames(
        game_id,
        4,
        num_players=players,
        opponents=("random",),
        seat=1,
        map=_map("d37" if game_id == "terranova" else None),
    )
    games.reset(seed=3)
    ended = 0
    for _ in range(150):
        assert (games.to_play == 1).all()
        assert (games.action_mask.sum(axis=1) > 0).all()
        games.step(games.sample_actions())
        ended += int(games.terminated.sum())
        won = games.rewards[games.terminated]
        assert np.allclose(won.sum(axis=1), 1.0)
    assert ended > 0


def test_bad_actions_and_configs_are_refused() -> None:
    games = VectorGames("medina", 2, num_players=3)
    with pytest.raises(ValueError, match="reset"):
        games.step([0, 0])
    games.reset(seed=0)
    before = games.observation.copy()
    legal = games.sample_actions()
    with pytest.raises(ValueError, match="not legal in game 1"):
        games.step([legal[0], 2106 if legal[1] != 2106 else 0])
    assert np.array_equal(games.observation, before)
    with pytest.raises(ValueError, match="2 integers"):
        games.step([1, 2, 3])
    with pytest.raises(ValueError, match="read-only"):
        games.observation[0, 0, 0, 0] = 1.0
    with pytest.raises(ConfigError, match="opponents"):
        VectorGames("medina", 2, num_players=3, opponents=("greedy",))
    with pytest.raises(ConfigError, match="num_envs"):
        VectorGames("medina", 0)
    with pytest.raises(ConfigError, match="max_steps"):
        VectorGames("medina", 2, num_players=3, max_steps=0)
    with pytest.raises(ConfigError, match="random"):
        VectorGames("medina", 2, num_players=3, variants={"start_merchant": "random"})


@pytest.mark.parametrize(("game_id", "players"), [("terranova", 2), ("medina", 3)])
def test_gymnasium_vector_env(game_id: str, players: int) -> None:
    env = NativeVectorEnv(game_id, 4, num_players=players)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    obs, info = env.reset(seed=5)
    for _ in range(20):
        for i in range(4):
            one = {key: value[i] for key, value in obs.items()}
            assert env.single_observation_space.contains(one)
        masks = env.action_masks()
        actions = np.array([np.flatnonzero(m)[0] for m in masks])
        assert env.action_space.contains(actions)
        acting = info["to_play"]
        obs, rewards, terminated, truncated, info = env.step(actions)
        assert rewards.shape == (4,) and terminated.shape == truncated.shape == (4,)
        assert np.array_equal(rewards, info["rewards"][np.arange(4), acting])
    truncating = NativeVectorEnv(game_id, 4, num_players=players, max_steps=3)
    obs, _ = truncating.reset(seed=5)
    for _ in range(3):
        last = {key: value.copy() for key, value in obs.items()}
        actions = np.array([np.flatnonzero(m)[0] for m in truncating.action_masks()])
        obs, _, terminated, truncated, info = truncating.step(actions)
    assert truncated.all() and not terminated.any() and info["_final_obs"].all()
    for i in range(4):
        final = info["final_obs"][i]
        assert truncating.single_observation_space.contains(final)
        assert not final["action_mask"].any()
        assert not np.array_equal(final["observation"], last["observation"][i])  # the position after the action
    again = NativeVectorEnv(game_id, 4, num_players=players)
    first, _ = again.reset(seed=5)
    env.reset(seed=5)
    assert data_equivalence(dict(first), dict(env._obs()), exact=True)
    env.close()


def _step_inherited_games(games: VectorGames) -> None:
    for _ in range(5):
        games.step(games.sample_actions())


def test_a_forked_child_steps_a_threaded_batch_on_its_own_thread() -> None:
    # The worker threads stay in the parent: the child runs every share itself.
    import multiprocessing

    games = VectorGames("medina", 40, num_players=3, threads=2)
    games.reset(seed=3)
    child = multiprocessing.get_context("fork").Process(target=_step_inherited_games, args=(games,))
    child.start()
    child.join(timeout=60)
    if child.is_alive():  # stuck waiting for workers it does not have
        child.kill()
        child.join()
    assert child.exitcode == 0
    _step_inherited_games(games)  # the parent's workers still answer
