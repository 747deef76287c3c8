"""Many games stepped by one call into Rust (``tabletop.envs.vector_games``,
``tabletop.envs.native_vector_env``).

:class:`VectorGames` is the plain NumPy API: ``N`` games of one configuration, actions as
an int array, and every game's observation (from the seat to act), legal-action mask,
rewards (every seat's), termination and seat to act written by Rust into arrays made
once (``native/src/vector.rs``).  A finished game starts the next at once (Gymnasium's
*same-step* autoreset).  Seats are learners (the caller's actions) or the ``random`` bot
played in Rust; with every seat a learner it is self-play.  :class:`NativeVectorEnv` is
the same as a ``gymnasium.vector.VectorEnv``.

Needs the native extension (``make native``) and NumPy; observations and masks are the
game's encoding, value for value (``tests/envs/test_vector_env.py``).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any, Final

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode

from tabletop.core.errors import ConfigError
from tabletop.core.protocol import GameConfig, OptionValue
from tabletop.envs import common
from tabletop.native import NativeEngineError, native_game, native_module

BOTS: Final = ("random",)
"""The bot specs the vector env plays in Rust: ``random`` (a kind uniformly, then a move
of it, as ``tabletop.ai.agent``'s ``random`` bot plays)."""


class VectorGames:
    """``num_envs`` games of one configuration, stepped together in Rust.

    Args:
        game_id: ``terranova`` or ``medina``.
        num_envs: games in the batch.
        num_players: seats (default: the game's fewest).
        opponents: ``None`` (self-play: every seat is the caller's), or bot specs
            (:data:`BOTS`) for the seats but ``seat``, cycled.
        seat: the caller's seat when there are opponents.
        reward: ``"win"`` (win shares at the end) or ``"score"`` (score changes).
        max_steps: a game is truncated after this many steps (``None``: never); like
            a game that ends, the next one starts in the same step.
        threads: threads that step the games, the caller's included, at most one per
            game (the GIL is released while they step; ``self.threads`` is the number
            used).
        ruleset, variants, map: as in :class:`~tabletop.core.protocol.GameConfig`.

    After :meth:`reset` and each :meth:`step`, these arrays hold the batch (the same
    arrays every time, read-only; copy what you keep):

    * ``observation`` (``N × planes × H × W`` float32) and ``vector`` (``N × V``), seen
      by the seat to act; ``action_mask`` (``N × actions`` int8);
    * ``rewards`` (``N × players`` float64, every seat's for the step; the bots' actions
      in it count), ``terminated`` (``N`` bool: the step ended a game, and the
      observation is already the next game's), ``truncated`` (``N`` bool: the step was
      the game's ``max_steps``-th, and the next game started), ``final_scores``
      (``N × players``: the ended game's scores where ``terminated`` or ``truncated``),
      ``final_observation`` and ``final_vector`` (the ended game's last position seen
      by the seat that acted, where ``terminated`` or ``truncated``; stale elsewhere);
    * ``to_play`` (``N`` int64: the seat to act), ``game_seeds`` (``N``: each game's
      ``GameConfig.seed``, so that the Python engine can replay it).

    Raises:
        ConfigError: for a bad configuration, an unknown bot, or a game whose seed draws
            more than its start player (Medina's random starting square).
        NativeEngineError: if the extension is not built.
    """

    def __init__(
        self,
        game_id: str,
        num_envs: int,
        *,
        num_players: int | None = None,
        opponents: Sequence[str] | None = None,
        seat: int = 0,
        reward: str = "win",
        max_steps: int | None = None,
        threads: int = 1,
        ruleset: str = "default",
        variants: Mapping[str, OptionValue] | None = None,
        map: str | Mapping[str, Any] | None = None,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ConfigError(f"num_envs must be a positive integer, not {num_envs!r}")
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ConfigError(f"threads must be a positive integer, not {threads!r}")
        self.setup = common.setup(game_id, num_players, ruleset=ruleset, variants=variants, map=map)
        self.reward = common.check_reward(reward)
        self.max_steps = common.check_max_steps(max_steps)
        players = self.setup.num_players
        if opponents is None:
            learners = list(range(players))
        else:
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
                raise ConfigError(f"seat must be from 0 to {players - 1}, not {seat!r}")
            unknown = sorted(set(opponents) - set(BOTS))
            if not opponents or unknown:
                raise ConfigError(
                    f"the vector env's opponents are bots played in Rust: {', '.join(BOTS)}; got {unknown}"
                )
            learners = [seat]
        self.learners = tuple(learners)
        self.num_envs = num_envs
        starts = _starts(self.setup)
        encoding = self.setup.encoding
        spec = encoding.spec
        self.num_players = players
        self.num_actions = encoding.num_distinct_actions
        self.observation = np.zeros((num_envs, *spec.shape), np.float32)
        self.vector = np.zeros((num_envs, len(spec.vector)), np.float32)
        self.action_mask = np.zeros((num_envs, self.num_actions), np.int8)
        self.rewards = np.zeros((num_envs, players), np.float64)
        self.terminated = np.zeros(num_envs, np.bool_)
        self.truncated = np.zeros(num_envs, np.bool_)
        self.to_play = np.zeros(num_envs, np.int64)
        self.game_seeds = np.zeros(num_envs, np.int64)
        self.final_scores = np.zeros((num_envs, players), np.float64)
        self.final_observation = np.zeros((num_envs, *spec.shape), np.float32)
        self.final_vector = np.zeros((num_envs, len(spec.vector)), np.float32)
        module = native_module()
        assert module is not None  # _starts found the native game
        self._core = module.VectorGames(
            starts,
            num_envs,
            learners,
            reward,
            threads,
            self.max_steps or 0,
            self.observation,
            self.vector,
            self.action_mask,
            self.rewards,
            self.terminated.view(np.uint8),
            self.truncated.view(np.uint8),
            self.to_play,
            self.game_seeds,
            self.final_scores,
            self.final_observation,
            self.final_vector,
        )
        self.threads: int = self._core.threads
        outputs: tuple[npt.NDArray[Any], ...] = (
            self.observation,
            self.vector,
            self.action_mask,
            self.rewards,
            self.terminated,
            self.truncated,
            self.to_play,
            self.game_seeds,
            self.final_scores,
            self.final_observation,
            self.final_vector,
        )
        for array in outputs:
            array.flags.writeable = False
        self._shape = (num_envs,)
        self._started = False

    def reset(self, seed: int | None = None) -> None:
        """New games everywhere; ``seed`` fixes every game of the run (game ``i``'s
        seeds come from ``(seed, i)``), ``None`` draws one."""
        if seed is None:
            seed = secrets.randbits(63)
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, not {seed!r}")
        self._core.reset(int(seed) % 2**64)
        self._started = True

    def step(self, actions: npt.ArrayLike) -> None:
        """Plays ``actions[i]`` in game ``i`` (for its seat to act), then the bots to
        the next learner's turn; a game that ends starts the next at once.

        Raises:
            ValueError: if an action is not legal (nothing is played then), or the
                batch was not reset.
        """
        if not self._started:
            raise ValueError("call reset() first")
        if (
            type(actions) is np.ndarray
            and actions.dtype == np.int64
            and actions.shape == self._shape
            and actions.flags.c_contiguous
        ):
            self._core.step(actions)  # the common case, checked no further here: Rust checks the rest
            return
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers, got {actions.dtype} of shape {actions.shape}")
        if actions.dtype != np.int64 or not actions.flags.c_contiguous:
            actions = np.ascontiguousarray(actions, np.int64)
        self._core.step(actions)

    def sample_actions(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action of every game (a new array)."""
        if not self._started:
            raise ValueError("call reset() first")
        out = np.empty(self.num_envs, np.int64)
        self._core.sample_actions(out)
        return out


def _starts(setup: common.Setup) -> list[Any]:
    """The Rust initial positions a game seed draws from: one per start player where the
    seed draws the start player (Terra Nova), else the one initial position."""
    try:
        native = native_game(setup.game)
    except NativeEngineError as exc:
        raise NativeEngineError(f"the vector env runs on the native engine: {exc}") from None
    if not getattr(setup.encoding, "native_vector_env", True):  # an encoding's optional flag
        raise ConfigError(
            f"the vector env cannot play this {setup.game.id} config: it plays Medina's first edition only "
            "(the other environments play the second)"
        )
    config = setup.config(0)
    drawn = native.python.initial_draw(config) if hasattr(native.python, "initial_draw") else None
    if drawn is None:
        raise ConfigError(f"the vector env cannot play {setup.game.id} with a start that the seed draws at random")
    if drawn[1] is None:
        return [native.new_initial_state(config).native]
    configs = [
        GameConfig(config.num_players, config.ruleset, dict(config.variants), config.map, 0, start)
        for start in range(setup.num_players)
    ]
    return [native.new_initial_state(c).native for c in configs]


class NativeVectorEnv(gymnasium.vector.VectorEnv[dict[str, Any], Any, Any]):
    """:class:`VectorGames` as a Gymnasium ``VectorEnv`` (same-step autoreset).

    Observations are the batched dict of ``common.observation_space`` (``observation``,
    ``vector``, ``action_mask``) from the seat to act; ``reward[i]`` is that of the seat
    that acted in game ``i`` (with opponents: the learner's, bots' actions included);
    ``infos`` has ``rewards`` (every seat's), ``to_play`` and, for games that ended
    (terminated, or truncated at ``max_steps``), ``final_scores`` and ``final_obs``
    (Gymnasium's same-step form: an object array with the ended game's last
    observation dict, seen by the seat that acted, where ``_final_obs`` is true; its
    mask is all zeros: the game is over).
    Arguments as :class:`VectorGames`.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(self, game_id: str, num_envs: int, **kwargs: Any) -> None:
        self.games = VectorGames(game_id, num_envs, **kwargs)
        self.num_envs = num_envs
        encoding = self.games.setup.encoding
        self.single_observation_space = common.observation_space(encoding)
        self.single_action_space = gymnasium.spaces.Discrete(encoding.num_distinct_actions)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self._rows = np.arange(num_envs)

    def _obs(self) -> dict[str, Any]:
        g = self.games
        return {"observation": g.observation, "vector": g.vector, "action_mask": g.action_mask}

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """New games everywhere (``seed``: one int fixes the whole batch)."""
        if isinstance(seed, list):
            seed = seed[0] if seed else None
        super().reset(seed=seed)
        self.games.reset(seed)
        return self._obs(), {"to_play": self.games.to_play.copy()}

    def step(self, actions: Any) -> tuple[dict[str, Any], Any, Any, Any, dict[str, Any]]:
        """One action per game, for its seat to act."""
        g = self.games
        acting = g.to_play.copy()
        g.step(actions)
        rewards = g.rewards[self._rows, acting]
        terminated = g.terminated.copy()
        truncated = g.truncated.copy()
        infos: dict[str, Any] = {"rewards": g.rewards.copy(), "to_play": g.to_play.copy()}
        ended = terminated | truncated
        if ended.any():
            infos["final_scores"] = g.final_scores.copy()
            infos["_final_scores"] = ended
            final_obs = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(ended):
                final_obs[i] = {
                    "observation": g.final_observation[i].copy(),
                    "vector": g.final_vector[i].copy(),
                    "action_mask": np.zeros(g.num_actions, np.int8),
                }
            infos["final_obs"] = final_obs
            infos["_final_obs"] = ended
        return self._obs(), rewards, terminated, truncated, infos

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of every game as booleans (``N × actions``)."""
        return self.games.action_mask.astype(np.bool_)
