"""What the adapters share: the game setup, NumPy views of observations, spaces, rewards
and the ``rgb_array`` picture.

Needs the ``rl`` extra (NumPy and Gymnasium).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import gymnasium
import numpy as np
import numpy.typing as npt

from tabletop.core.encoding import Encoding, encoding_of
from tabletop.core.errors import ConfigError, IllegalMoveError
from tabletop.core.protocol import Game, GameConfig, Move, OptionValue, State
from tabletop.core.registry import make, player_counts
from tabletop.native import NativeState

REWARDS: Final = ("win", "score")
"""Reward modes: ``win``: each seat's win share (1/k to each of k winners, 0 to the others)
once the game ends, 0 before; ``score``: each seat's change of score at every step (Terra
Nova scores areas as they close; Medina's score is what the seat would score if the game
ended now, so its changes shape the reward all along and add up to the final score)."""

ILLEGAL_ACTIONS: Final = ("lose", "raise")
"""What an illegal action does: ``lose``: the episode ends at once (terminated) with
:data:`ILLEGAL_REWARD` for the seat that played it, 0 for the others, and
``info["illegal_action"]`` true (PettingZoo's ``TerminateIllegalWrapper`` does the same
for its classic games; what checkers that sample without the mask meet); ``raise``:
``ValueError``, and nothing is played."""

ILLEGAL_REWARD: Final = -1.0

RENDER_MODES: Final = ("ansi", "rgb_array", "svg")
"""``ansi``: the terminal drawing (a string); ``rgb_array``: a small raster (H×W×3 uint8,
one block of pixels per cell); ``svg``: the game's SVG drawing (a string)."""

MAX_NUMBER: Final = 10_000.0
"""The spaces' upper bound for scores and counts: far above any the games reach (a score
plane holds ``score / SCORE_SCALE``)."""
SCORE_SCALE: Final = 100.0

Observation = dict[str, npt.NDArray[Any]]


@dataclass(frozen=True)
class Setup:
    """A game, its configuration (without a seed) and its encoding."""

    game: Game
    num_players: int
    ruleset: str
    variants: Mapping[str, OptionValue]
    map: str | Mapping[str, Any] | None
    encoding: Encoding

    def config(self, seed: int) -> GameConfig:
        """The configuration of one game, with ``seed`` (Terra Nova draws its start player from it)."""
        return GameConfig(self.num_players, self.ruleset, dict(self.variants), self.map, seed)

    def new_state(self, seed: int) -> State:
        """A fresh initial state."""
        return self.game.new_initial_state(self.config(seed))


def setup(
    game_id: str,
    num_players: int | None = None,
    *,
    ruleset: str = "default",
    variants: Mapping[str, OptionValue] | None = None,
    map: str | Mapping[str, Any] | None = None,
) -> Setup:
    """Checks a configuration and finds its encoding.

    Raises:
        ConfigError: for an unknown game or a bad configuration.
    """
    game = make(game_id)
    players = (player_counts(game, ruleset) or [game.min_players])[0] if num_players is None else num_players
    config = GameConfig(players, ruleset, dict(variants or {}), map, 0)
    encoding = encoding_of(game, config)
    return Setup(game, players, ruleset, dict(variants or {}), map, encoding)


def check_reward(reward: str) -> str:
    """``reward`` if it is one of :data:`REWARDS`.

    Raises:
        ConfigError: otherwise.
    """
    if reward not in REWARDS:
        raise ConfigError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
    return reward


def check_illegal_action(illegal_action: str) -> str:
    """``illegal_action`` if it is one of :data:`ILLEGAL_ACTIONS`.

    Raises:
        ConfigError: otherwise.
    """
    if illegal_action not in ILLEGAL_ACTIONS:
        raise ConfigError(f"illegal_action must be one of {', '.join(ILLEGAL_ACTIONS)}, not {illegal_action!r}")
    return illegal_action


def check_max_steps(max_steps: int | None) -> int | None:
    """``max_steps`` if it is ``None`` (no truncation) or a positive integer.

    Raises:
        ConfigError: otherwise.
    """
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1):
        raise ConfigError(f"max_steps must be a positive integer or None, not {max_steps!r}")
    return max_steps


def check_render_mode(mode: str | None) -> str | None:
    """``mode`` if it is ``None`` or one of :data:`RENDER_MODES`.

    Raises:
        ConfigError: otherwise.
    """
    if mode is not None and mode not in RENDER_MODES:
        raise ConfigError(f"render_mode must be one of {', '.join(RENDER_MODES)} or None, not {mode!r}")
    return mode


def observation_space(encoding: Encoding) -> gymnasium.spaces.Dict:
    """``{"observation": planes, "vector": global numbers, "action_mask": int8 mask}``."""
    spec = encoding.spec
    high = np.ones(spec.shape, dtype=np.float32)
    for i, name in enumerate(spec.planes):
        if name.startswith("score:"):
            high[i] = MAX_NUMBER / SCORE_SCALE
    return gymnasium.spaces.Dict(
        {
            "observation": gymnasium.spaces.Box(0.0, high, spec.shape, np.float32),
            "vector": gymnasium.spaces.Box(0.0, MAX_NUMBER, (len(spec.vector),), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (encoding.num_distinct_actions,), np.int8),
        }
    )


@dataclass(frozen=True, slots=True)
class AgentSpaces:
    """A PettingZoo environment's agents and their spaces (the AEC and the parallel env's)."""

    agents: list[str]
    observation_spaces: dict[str, gymnasium.spaces.Space[Any]]
    action_spaces: dict[str, gymnasium.spaces.Space[Any]]


def agent_spaces(setup: Setup) -> AgentSpaces:
    """``player_0`` ... for each seat, each with the game's observation space and
    ``Discrete(num_distinct_actions)``."""
    agents = [f"player_{i}" for i in range(setup.num_players)]
    observation = observation_space(setup.encoding)
    action = gymnasium.spaces.Discrete(setup.encoding.num_distinct_actions)
    return AgentSpaces(agents, dict.fromkeys(agents, observation), dict.fromkeys(agents, action))


class Observer:
    """The observation dicts of one encoding (``{"observation", "vector", "action_mask"}``),
    each of new arrays (a caller may keep them); the mask is all zeros unless asked for.

    A native state's three arrays are written by Rust in one call (the native encoding's
    ``native_encoder``, ``encode_into``); any other state's through ``encoding.observe``
    and ``encoding.action_mask``: the same values (``tests/envs/test_engines_agree.py``).
    """

    __slots__ = ("_encoder", "_encoding", "_native_of", "_shape", "_size", "_vector_len")

    def __init__(self, encoding: Encoding) -> None:
        self._encoding = encoding
        spec = encoding.spec
        self._shape = spec.shape
        self._vector_len = len(spec.vector)
        self._size = encoding.num_distinct_actions
        self._native_of = getattr(encoding, "native_encoder", None)
        self._encoder: Any = None  # the native encoder, made for the first native state

    def __call__(self, state: State, seat: int, *, mask: bool) -> Observation:
        """``seat``'s observation of ``state``, with its legal-action mask if ``mask``."""
        if self._native_of is not None and isinstance(state, NativeState):
            encoder = self._encoder
            if encoder is None:
                encoder = self._encoder = self._native_of(state)
            planes = np.empty(self._shape, np.float32)
            vector = np.empty(self._vector_len, np.float32)
            if mask:
                action_mask = np.empty(self._size, np.int8)
                encoder.encode_into(state, seat, planes, vector, action_mask)
            else:
                action_mask = np.zeros(self._size, np.int8)
                encoder.encode_into(state, seat, planes, vector)
            return {"observation": planes, "vector": vector, "action_mask": action_mask}
        encoding = self._encoding
        planes_bytes, vector_bytes = encoding.observe(state, seat)
        return {
            "observation": np.frombuffer(planes_bytes, dtype=np.float32).reshape(self._shape),
            "vector": np.frombuffer(vector_bytes, dtype=np.float32),
            "action_mask": (
                np.frombuffer(encoding.action_mask(state), dtype=np.int8) if mask else np.zeros(self._size, np.int8)
            ),
        }


def observe(encoding: Encoding, state: State, seat: int, *, mask: bool) -> Observation:
    """The observation dict of ``seat`` (new arrays); the mask is all zeros unless ``mask``
    (an :class:`Observer` made for the one call: an environment keeps one)."""
    return Observer(encoding)(state, seat, mask=mask)


def legal_move(encoding: Encoding, state: State, action: Any) -> Move | None:
    """The move of ``action`` if it is legal in ``state``, else ``None`` (cheaper than the
    whole mask: one decode and one legality test)."""
    try:
        move = encoding.decode(int(action))
    except (ValueError, TypeError):
        return None
    return move if not state.is_terminal() and state.is_legal(move) else None


def apply_action(encoding: Encoding, state: State, action: Any) -> State | None:
    """The state after ``action`` if it is legal in ``state``, else ``None``.

    A native state plays the action id itself (its ``apply_action``: the native
    encoding's ids are the engine's), making no ``Move``; any other state decodes it
    (:func:`legal_move`).  Either refuses the same actions: what ``int()`` refuses, ids
    out of range, and ids not legal here (none once the game is over).
    """
    if isinstance(state, NativeState):
        try:
            action_id = int(action)
        except (TypeError, ValueError):
            return None
        try:
            after: State = state.apply_action(action_id)
        except IllegalMoveError:
            return None
        return after
    move = legal_move(encoding, state, action)
    return None if move is None else state.apply(move)


def rewards(reward: str, before: State, after: State) -> tuple[float, ...]:
    """Each seat's reward for the step from ``before`` to ``after``."""
    if reward == "score":
        return tuple(float(b - a) for a, b in zip(before.scores(), after.scores(), strict=True))
    if after.is_terminal():
        return tuple(float(r) for r in after.returns())
    return (0.0,) * after.num_players


def render(state: State, encoding: Encoding, mode: str | None) -> str | npt.NDArray[np.uint8] | None:
    """The position drawn in ``mode`` (:data:`RENDER_MODES`); ``None`` for no mode."""
    if mode is None:
        return None
    game = state.game
    if mode == "ansi":
        return game.render_text(state)
    if mode == "svg":
        return str(game.render_svg(state))
    return raster(encoding, state)


CELL_PIXELS: Final = 8
_SEAT_RGB: Final = {
    "yellow": (240, 200, 40),
    "red": (210, 50, 40),
    "blue": (40, 90, 210),
    "green": (40, 160, 70),
}
_BOARD_RGB: Final = (200, 190, 160)
_STONE_RGB: Final = (60, 60, 60)
_CLOSED_RGB: Final = (150, 150, 150)


def raster(encoding: Encoding, state: State) -> npt.NDArray[np.uint8]:
    """A small picture of the position from its observation planes: one
    ``CELL_PIXELS``-square block per grid cell, board cells in a sand colour, stones and
    walls dark, closed areas grey, each seat's pieces (pioneers; domes and owned palaces)
    in its colour.  For videos of training runs, not for reading the game."""
    spec = encoding.spec
    planes = np.frombuffer(encoding.observe(state, 0)[0], dtype=np.float32).reshape(spec.shape)
    image = np.full((spec.height, spec.width, 3), 255, dtype=np.uint8)

    def paint(name: str, rgb: tuple[int, int, int]) -> None:
        if name in spec.planes:
            image[planes[spec.plane(name)] > 0] = rgb

    paint("cell", _BOARD_RGB)
    paint("building", _BOARD_RGB)
    paint("wall_space", (120, 100, 80))
    for name in spec.planes:
        if name.startswith("palace:"):
            paint(name, (230, 220, 200))
    paint("closed", _CLOSED_RGB)
    paint("stones", _STONE_RGB)
    paint("wall", _STONE_RGB)
    paint("merchant", (140, 70, 160))
    colors = state.game.seat_colors(state.num_players)
    for seat, color in enumerate(colors):
        rgb = _SEAT_RGB.get(color, (0, 0, 0))
        paint(f"pioneers:+{seat}", rgb)
        paint(f"owned:+{seat}", rgb)
    if "building" in spec.planes:
        image = image[::-1]  # Medina: rank 1 at the bottom, as the board is drawn
    return np.kron(image, np.ones((CELL_PIXELS, CELL_PIXELS, 1), dtype=np.uint8))
