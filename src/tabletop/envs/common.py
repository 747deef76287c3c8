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
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import Game, GameConfig, Move, OptionValue, State
from tabletop.core.registry import make, player_counts
from tabletop.native import NativeState

REWARDS: Final = ("win", "score")
"""Reward modes: ``win``: each seat's win share (1/k to each of k winners, 0 to the others)
once the game ends, 0 before; ``score``: each seat's change of score at every step (Terra
Nova scores areas as they close; Medina's score is what the seat would score if the game
ended now, so its changes shape the reward all along and add up to the final score)."""

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


def observe(encoding: Encoding, state: State, seat: int, *, mask: bool) -> Observation:
    """The observation dict of ``seat`` (new arrays); the mask is all zeros unless ``mask``.

    A native state's arrays are written by Rust straight into new NumPy arrays (the
    native encoding's ``native_encoder``); any other state's through ``encoding.observe``.
    """
    spec = encoding.spec
    size = encoding.num_distinct_actions
    native = getattr(encoding, "native_encoder", None)
    if native is not None and isinstance(state, NativeState):
        encoder = native(state)
        out: Observation = {
            "observation": np.empty(spec.shape, np.float32),
            "vector": np.empty(len(spec.vector), np.float32),
            "action_mask": np.zeros(size, np.int8),
        }
        encoder.observe_into(state, seat, out["observation"], out["vector"])
        if mask:
            encoder.mask_into(state, out["action_mask"])
        return out
    planes, vector = encoding.observe(state, seat)
    return {
        "observation": np.frombuffer(planes, dtype=np.float32).reshape(spec.shape),
        "vector": np.frombuffer(vector, dtype=np.float32),
        "action_mask": (
            np.frombuffer(encoding.action_mask(state), dtype=np.int8) if mask else np.zeros(size, dtype=np.int8)
        ),
    }


def legal_move(encoding: Encoding, state: State, action: Any) -> Move | None:
    """The move of ``action`` if it is legal in ``state``, else ``None`` (cheaper than the
    whole mask: one decode and one legality test)."""
    try:
        move = encoding.decode(int(action))
    except (ValueError, TypeError):
        return None
    return move if not state.is_terminal() and state.is_legal(move) else None


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
