"""A Gymnasium ``Env``: one learner against tabletop's bots (``tabletop.envs.gym_env``).

The learner sits in ``seat``; the other seats are bots (``tabletop.ai.agent.make_agent``),
seeded from the reset seed, which play their turns inside :meth:`TabletopGymEnv.step`
(and in :meth:`~TabletopGymEnv.reset` when they start).  Observations are the dict of
``common.observation_space`` from the learner's seat; each step is one action of the
learner (a multi-action turn is several steps).  ``max_steps`` truncates an episode
after that many of the learner's steps (off by default).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, SupportsFloat

import gymnasium
import numpy as np

from tabletop.ai.agent import Agent, make_agent
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import OptionValue, State
from tabletop.envs import common


class TabletopGymEnv(gymnasium.Env[common.Observation, np.int64]):
    """One learner against bots.

    Args:
        game_id: a game with an encoding.
        opponents: agent specs for the other seats, in seat order after the learner's, cycled.
        seat: the learner's seat.
        num_players: seats (default: the game's fewest that seats every listed opponent).
        reward: ``"win"`` or ``"score"`` (``common.REWARDS``), from the learner's seat.
        illegal_action: ``"lose"``: an illegal action ends the episode with reward -1 and
            ``info["illegal_action"] = True`` (what ``check_env``'s unmasked samples meet);
            ``"raise"``: ``ValueError`` (``common.ILLEGAL_ACTIONS``).
        max_steps: end the episode by truncation after this many of the learner's
            steps (``truncated`` true; ``None``: never).
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"svg"``.
        ruleset, variants, map: as in :class:`~tabletop.core.protocol.GameConfig`.
    """

    metadata: dict[str, Any] = {"render_modes": list(common.RENDER_MODES), "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        game_id: str,
        opponents: Sequence[str] = ("random",),
        seat: int = 0,
        num_players: int | None = None,
        *,
        reward: str = "win",
        illegal_action: str = "lose",
        max_steps: int | None = None,
        render_mode: str | None = None,
        ruleset: str = "default",
        variants: Mapping[str, OptionValue] | None = None,
        map: str | Mapping[str, Any] | None = None,
    ) -> None:
        if not opponents:
            raise ConfigError("gym_env needs at least one opponent spec")
        if num_players is None:
            from tabletop.core.registry import make, player_counts

            counts = player_counts(make(game_id), ruleset) or [make(game_id).min_players]
            num_players = max(counts[0], min(len(opponents) + 1, counts[-1]))
        self._setup = common.setup(game_id, num_players, ruleset=ruleset, variants=variants, map=map)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < num_players:
            raise ConfigError(f"seat must be from 0 to {num_players - 1}, not {seat!r}")
        self._specs = tuple(opponents)
        for spec in set(self._specs):
            make_agent(spec, seed=0)  # a bad spec fails here, not in the first step
        self.seat = seat
        self._reward = common.check_reward(reward)
        self._illegal = common.check_illegal_action(illegal_action)
        self._max_steps = common.check_max_steps(max_steps)
        self._steps = 0
        self.render_mode = common.check_render_mode(render_mode)
        self.observation_space = common.observation_space(self._setup.encoding)  # type: ignore[assignment]
        self.action_space = gymnasium.spaces.Discrete(self._setup.encoding.num_distinct_actions)
        self._observer = common.Observer(self._setup.encoding)
        self._bots: dict[int, Agent] = {}
        self._state: State | None = None
        self._done = False

    @property
    def state_now(self) -> State:
        """The tabletop state of the game in progress (call :meth:`reset` first)."""
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[common.Observation, dict[str, Any]]:
        """A new game; the bots play until the learner is to act."""
        super().reset(seed=seed)
        rng = self.np_random
        state = self._setup.new_state(int(rng.integers(2**31)))
        others = [s for s in range(self._setup.num_players) if s != self.seat]
        self._bots = {
            s: make_agent(self._specs[i % len(self._specs)], seed=int(rng.integers(2**31)))
            for i, s in enumerate(others)
        }
        self._state = state
        self._done = False
        self._steps = 0
        start = state
        state = self._play_bots(state)
        return self._observe(state), self._info(start, state)

    def step(self, action: Any) -> tuple[common.Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        """The learner's action, then the bots' until the learner is to act or the game ends."""
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        before = self.state_now
        state = common.apply_action(self._setup.encoding, before, action)
        if state is None:
            if self._illegal == "raise":
                raise ValueError(f"action {action!r} is not legal now (see the action_mask)")
            self._done = True
            info = self._info(before, before)
            info["illegal_action"] = True
            return self._observe(before), common.ILLEGAL_REWARD, True, False, info
        state = self._play_bots(state)
        self._state = state
        terminated = state.is_terminal()
        self._steps += 1
        truncated = not terminated and self._max_steps is not None and self._steps >= self._max_steps
        self._done = terminated or truncated
        if self._reward == "score":
            reward = float(state.scores()[self.seat] - before.scores()[self.seat])
        else:
            reward = float(state.returns()[self.seat]) if terminated else 0.0
        return self._observe(state), reward, terminated, truncated, self._info(before, state)

    def _play_bots(self, state: State) -> State:
        while not state.is_terminal() and state.current_player != self.seat:
            bot = self._bots[state.current_player]
            state = state.apply(bot.choose_move(state))
        self._state = state
        return state

    def _observe(self, state: State) -> common.Observation:
        return self._observer(state, self.seat, mask=not state.is_terminal())

    def _info(self, before: State, after: State) -> dict[str, Any]:
        return {"scores": after.scores(), "plies": after.ply - before.ply}

    def action_masks(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """The legal actions as booleans (the name sb3-contrib's ``MaskablePPO`` looks for)."""
        return np.frombuffer(self._setup.encoding.action_mask(self.state_now), dtype=np.bool_).copy()

    def render(self) -> Any:
        """The position in ``render_mode``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        return common.render(self.state_now, self._setup.encoding, self.render_mode)


GYM_IDS: Final = {"terranova": "tabletop/TerraNova-v0", "medina": "tabletop/Medina-v0"}
"""The ids :func:`register_gymnasium` gives the games (``gymnasium.make(GYM_IDS["medina"])``)."""


def register_gymnasium() -> tuple[str, ...]:
    """Registers every game as ``gymnasium.make``-able (``GYM_IDS``); again does nothing."""
    for game_id, env_id in GYM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=f"{__name__}:TabletopGymEnv", kwargs={"game_id": game_id})
    return tuple(GYM_IDS.values())


def vector_env(
    game_id: str, num_envs: int, *, vectorization_mode: str = "sync", **kwargs: Any
) -> gymnasium.vector.VectorEnv[Any, Any, Any]:
    """``num_envs`` environments of :class:`TabletopGymEnv` as one vector env."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ConfigError(f"num_envs must be a positive integer, not {num_envs!r}")
    TabletopGymEnv(game_id, **kwargs)  # checks the configuration here, not in a worker

    def make_one() -> TabletopGymEnv:
        return TabletopGymEnv(game_id, **kwargs)

    fns = [make_one] * num_envs
    if vectorization_mode == "sync":
        return gymnasium.vector.SyncVectorEnv(fns)
    if vectorization_mode == "async":
        return gymnasium.vector.AsyncVectorEnv(fns)
    raise ConfigError(f"vectorization_mode must be 'sync' or 'async', not {vectorization_mode!r}")
