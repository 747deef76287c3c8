"""A PettingZoo ``ParallelEnv`` for any game with an encoding (``tabletop.envs.parallel_env``).

The games are turn-based: each :meth:`~TabletopParallelEnv.step` takes an action from
every live agent and plays the one of the agent to act (the others' are ignored, as
PettingZoo's turn-based conversions do); every agent's observation comes back each
step, with the legal-action mask only in the acting agent's (zeros in the others').
Agents, spaces and rewards are those of the AEC env (``tabletop.envs.aec``); a
multi-action turn is a run of steps by the same agent.  ``max_steps`` ends an episode
by truncation after that many steps; ``illegal_action="lose"`` ends it when the agent to
act plays an illegal action (PettingZoo's ``parallel_seed_test`` samples without masks).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from tabletop.core.protocol import OptionValue, State
from tabletop.envs import common


class TabletopParallelEnv(ParallelEnv[str, common.Observation, int]):  # type: ignore[misc]
    """One game of ``game_id`` as a PettingZoo parallel environment.

    Args:
        game_id: a registered game with an encoding (``terranova``, ``medina``).
        num_players: seats (default: the game's fewest).
        reward: ``"win"`` (win share at the end) or ``"score"`` (score changes as they happen).
        max_steps: truncate every agent after this many steps (``None``: never).
        illegal_action: ``"raise"`` (``ValueError``, nothing played; the default) or
            ``"lose"``: the episode ends, -1 to the agent that played it, 0 to the others,
            ``infos[agent]["illegal_action"]`` true (``common.ILLEGAL_ACTIONS``).
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
        max_steps: int | None = None,
        illegal_action: str = "raise",
        render_mode: str | None = None,
        ruleset: str = "default",
        variants: Mapping[str, OptionValue] | None = None,
        map: str | Mapping[str, Any] | None = None,
    ) -> None:
        self._setup = common.setup(game_id, num_players, ruleset=ruleset, variants=variants, map=map)
        self._reward = common.check_reward(reward)
        self._max_steps = common.check_max_steps(max_steps)
        self._illegal = common.check_illegal_action(illegal_action)
        self.render_mode = common.check_render_mode(render_mode)
        self.metadata = {**self.metadata, "name": f"tabletop_{game_id}_parallel_v0"}
        spaces = common.agent_spaces(self._setup)
        self.possible_agents = spaces.agents
        self.agents: list[str] = []
        self.observation_spaces = spaces.observation_spaces
        self.action_spaces = spaces.action_spaces
        self._observer = common.Observer(self._setup.encoding)
        self._np_random, _ = seeding.np_random(None)
        self._state: State | None = None
        self._steps = 0

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

    @property
    def agent_to_act(self) -> str | None:
        """The agent whose action the next step plays (``None`` once the game is over)."""
        state = self.state_now
        return None if state.is_terminal() else self.possible_agents[state.current_player]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, common.Observation], dict[str, dict[str, Any]]]:
        """Starts a new game; ``seed`` fixes it (Terra Nova's start player) and later resets."""
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        self._state = self._setup.new_state(int(self._np_random.integers(2**31)))
        self._steps = 0
        self.agents = self.possible_agents[:]
        return self._observations(self._state), self._infos(self._state)

    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[
        dict[str, common.Observation],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Plays the action of the agent to act (``actions`` may hold the others' too).

        Raises:
            ValueError: without an action for the agent to act, or (``illegal_action=
                "raise"``) for one that is not legal now (its mask says which are);
                nothing is played then.
            RuntimeError: once every agent is done (call :meth:`reset`).
        """
        if not self.agents:
            raise RuntimeError("the episode is over: call reset()")
        before = self.state_now
        agent = self.possible_agents[before.current_player]
        if agent not in actions:
            raise ValueError(f"no action for {agent}, the agent to act")
        after = common.apply_action(self._setup.encoding, before, actions[agent])
        if after is None:
            if self._illegal == "raise":
                raise ValueError(f"action {actions[agent]!r} is not legal for {agent} (see the action_mask)")
            return self._lost_by_illegal_action(before, agent)
        self._state = after
        self._steps += 1
        rewards = dict(zip(self.possible_agents, common.rewards(self._reward, before, after), strict=True))
        over = after.is_terminal()
        truncated = not over and self._max_steps is not None and self._steps >= self._max_steps
        observations = self._observations(after)
        infos = self._infos(after)
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, truncated)
        if over or truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _lost_by_illegal_action(
        self, state: State, agent: str
    ) -> tuple[
        dict[str, common.Observation],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """The episode ends where it stands: ``agent`` played an illegal action."""
        self._steps += 1
        agents, self.agents = self.agents, []
        rewards = {a: common.ILLEGAL_REWARD if a == agent else 0.0 for a in self.possible_agents}
        infos: dict[str, dict[str, Any]] = {a: {"to_act": False, "illegal_action": True} for a in self.possible_agents}
        return (
            self._observations(state, acting=-1),
            rewards,
            dict.fromkeys(agents, True),
            dict.fromkeys(agents, False),
            infos,
        )

    def _observations(self, state: State, acting: int | None = None) -> dict[str, common.Observation]:
        """Every agent's observation; the mask in the acting one's (``acting``: the seat
        to act in ``state`` unless given, -1 for none)."""
        if acting is None:
            acting = -1 if state.is_terminal() else state.current_player
        observer = self._observer
        return {agent: observer(state, seat, mask=seat == acting) for seat, agent in enumerate(self.possible_agents)}

    def _infos(self, state: State) -> dict[str, dict[str, Any]]:
        acting = None if state.is_terminal() else self.possible_agents[state.current_player]
        return {agent: {"to_act": agent == acting} for agent in self.possible_agents}

    def render(self) -> Any:
        """The position in ``render_mode`` (a string for ``ansi`` and ``svg``, an RGB array)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        return common.render(self.state_now, self._setup.encoding, self.render_mode)

    def close(self) -> None:
        """Nothing to release."""

    def __str__(self) -> str:
        return f"TabletopParallelEnv({self._setup.game.id}, {self._setup.num_players} players)"
