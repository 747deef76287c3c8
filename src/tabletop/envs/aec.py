"""A PettingZoo ``AECEnv`` for any game with an encoding (``tabletop.envs.aec_env``).

Agents are ``player_0`` ... ``player_{n-1}`` (seats in turn order).  Each observation is a
dict: ``observation`` (the planes, seen from that seat), ``vector`` (the global numbers)
and ``action_mask`` (int8; all zeros for an agent that is not to act).  A multi-action
turn is a run of steps by the same agent.  Rewards follow ``reward`` (``common.REWARDS``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from tabletop.core.protocol import OptionValue, State
from tabletop.envs import common


class TabletopAECEnv(AECEnv[str, common.Observation, int]):  # type: ignore[misc]
    """One game of ``game_id`` as a PettingZoo AEC environment.

    Args:
        game_id: a registered game with an encoding (``terranova``, ``medina``).
        num_players: seats (default: the game's fewest).
        reward: ``"win"`` (win share at the end) or ``"score"`` (score changes as they happen).
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"svg"``.
        ruleset, variants, map: as in :class:`~tabletop.core.protocol.GameConfig`.
    """

    metadata: dict[str, Any] = {"render_modes": list(common.RENDER_MODES), "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        game_id: str,
        num_players: int | None = None,
        *,
        reward: str = "win",
        render_mode: str | None = None,
        ruleset: str = "default",
        variants: Mapping[str, OptionValue] | None = None,
        map: str | Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self._setup = common.setup(game_id, num_players, ruleset=ruleset, variants=variants, map=map)
        self._reward = common.check_reward(reward)
        self.render_mode = common.check_render_mode(render_mode)
        self.metadata = {**self.metadata, "name": f"tabletop_{game_id}_v0", "is_parallelizable": False}
        spaces = common.agent_spaces(self._setup)
        self.possible_agents = spaces.agents
        self.observation_spaces = spaces.observation_spaces
        self.action_spaces = spaces.action_spaces
        self._np_random, _ = seeding.np_random(None)
        self._state: State | None = None
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._observer = common.Observer(self._setup.encoding)
        self._acting = -1  # the seat to act, -1 once the game is over

    @property
    def state_now(self) -> State:
        """The tabletop state of the game in progress (call :meth:`reset` first)."""
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The same Dict space for every agent (``common.observation_space``)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """``Discrete(num_distinct_actions)``."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Starts a new game; ``seed`` fixes it (Terra Nova's start player) and later resets."""
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        game_seed = int(self._np_random.integers(2**31))
        state = self._setup.new_state(game_seed)
        self._state = state
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._acting = -1 if state.is_terminal() else state.current_player
        self.agent_selection = self.possible_agents[state.current_player]

    def observe(self, agent: str) -> common.Observation:
        """``agent``'s observation (its mask is empty unless it is to act)."""
        state = self._state
        if state is None:
            raise RuntimeError("call reset() first")
        try:
            seat = self._seats[agent]
        except KeyError:
            raise ValueError(f"{agent!r} is not an agent of this game") from None
        return self._observer(state, seat, mask=seat == self._acting)

    def step(self, action: int | None) -> None:
        """Applies ``action`` for the agent to act.

        Raises:
            ValueError: for an action that is not legal now (the mask says which are).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        before = self.state_now
        after = None if action is None else common.apply_action(self._setup.encoding, before, action)
        if after is None:
            raise ValueError(f"action {action!r} is not legal for {agent} (see the action_mask)")
        self._state = after
        self._cumulative_rewards[agent] = 0.0
        over = after.is_terminal()
        # Under "win" the rewards stay 0 until the end (reset set them): only the last
        # step writes them.
        if self._reward == "score" or over:
            for name, value in zip(self.possible_agents, common.rewards(self._reward, before, after), strict=True):
                self.rewards[name] = value
        if over:
            self._acting = -1
            self.terminations = dict.fromkeys(self.agents, True)
            # The dead agents are stepped with None in seat order from the last mover on.
        else:
            self._acting = after.current_player
            self.agent_selection = self.possible_agents[self._acting]
        self._accumulate_rewards()

    def render(self) -> Any:
        """The position in ``render_mode`` (a string for ``ansi`` and ``svg``, an RGB array)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        return common.render(self.state_now, self._setup.encoding, self.render_mode)

    def close(self) -> None:
        """Nothing to release."""

    def __str__(self) -> str:
        return f"TabletopAECEnv({self._setup.game.id}, {self._setup.num_players} players)"


def action_of(env: TabletopAECEnv, rng: np.random.Generator) -> int:
    """A uniformly random legal action of the agent to act (for examples and tests)."""
    mask = env.observe(env.agent_selection)["action_mask"]
    return int(rng.choice(np.flatnonzero(mask)))
