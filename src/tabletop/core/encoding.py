"""Fixed integer actions and observation tensors: what game-AI libraries need of a game.

A game that supports research environments has the optional hook
``Game.encoding(config)`` (``docs/architecture.md``, "optional hook"), returning an
:class:`Encoding` for that configuration: a fixed action space (every move of the game
has one index in ``range(num_distinct_actions)``, both ways), the legal-action mask and
an observation of a position for one seat, as named planes over the board plus a flat
vector of the global numbers.  ``docs/research.md`` documents every game's encoding.

Nothing here needs NumPy: observations are ``array.array("f")`` buffers (float32), which
``numpy.frombuffer`` reads without a copy; the adapters in ``tabletop.envs`` do that.

>>> from tabletop import GameConfig, make
>>> enc = encoding_of(make("medina"), GameConfig(num_players=3))
>>> enc.num_distinct_actions, enc.spec.shape
(2107, (29, 13, 18))
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from tabletop.core.errors import ConfigError
from tabletop.core.protocol import Game, GameConfig, Move, PlayerId, State


@dataclass(frozen=True, slots=True)
class ObservationSpec:
    """The shape and the names of an observation.

    Attributes:
        planes: the name of each plane, in order (the first axis of the planes tensor).
        height: rows of the board grid (second axis).
        width: columns of the board grid (third axis).
        vector: the name of each entry of the flat vector of global numbers.
    """

    planes: tuple[str, ...]
    height: int
    width: int
    vector: tuple[str, ...]

    @property
    def shape(self) -> tuple[int, int, int]:
        """``(planes, height, width)``: the planes tensor's shape."""
        return (len(self.planes), self.height, self.width)

    @property
    def plane_size(self) -> int:
        """Cells per plane (``height * width``)."""
        return self.height * self.width

    def plane(self, name: str) -> int:
        """The index of the plane called ``name``.

        Raises:
            KeyError: if there is no such plane.
        """
        try:
            return self.planes.index(name)
        except ValueError:
            raise KeyError(name) from None


class Encoding(Protocol):
    """A game's fixed action space and observation tensors for one configuration."""

    @property
    def num_distinct_actions(self) -> int:
        """The size of the action space: actions are ``0 .. num_distinct_actions - 1``."""
        ...

    @property
    def spec(self) -> ObservationSpec:
        """The planes and vector entries of :meth:`observe`."""
        ...

    @property
    def max_game_length(self) -> int:
        """An upper bound on the number of actions in a game (OpenSpiel asks for one)."""
        ...

    def encode(self, move: Move) -> int:
        """The action index of ``move``.

        Raises:
            ValueError: if ``move`` is not a move of this game and board.
        """
        ...

    def decode(self, action: int) -> Move:
        """The move of an action index; ``decode(encode(m)) == m``.

        Raises:
            ValueError: if ``action`` names no move on this board.
        """
        ...

    def legal_actions(self, state: State) -> list[int]:
        """The indices of ``state.legal_moves()``, ascending."""
        ...

    def action_mask(self, state: State) -> bytearray:
        """One byte per action: 1 where the action is legal in ``state``, else 0."""
        ...

    def observe(self, state: State, seat: PlayerId) -> tuple[array[float], array[float]]:
        """The position as seen by ``seat``: the planes (flat, ``spec.shape`` in C order)
        and the vector of global numbers, both float32 arrays of new memory."""
        ...

    def action_to_str(self, action: int) -> str:
        """The notation of the action's move (for logs and OpenSpiel)."""
        ...


def encoding_of(game: Game, config: GameConfig) -> Encoding:
    """The :class:`Encoding` of ``game`` for ``config`` (the optional ``encoding`` hook).

    Raises:
        ConfigError: if the game has no encoding, or for a bad config.
    """
    hook = getattr(game, "encoding", None)
    if hook is None:
        raise ConfigError(f"{game.id} has no action and observation encoding (no Game.encoding hook)")
    encoding: Encoding = hook(config)
    return encoding


def relative_seat(seat: PlayerId, observer: PlayerId, num_players: int) -> int:
    """``seat`` counted from ``observer`` in turn order: 0 is the observer, 1 the next seat."""
    return (seat - observer) % num_players


def mask_from_actions(size: int, actions: Sequence[int]) -> bytearray:
    """A ``size``-byte mask with 1 at each of ``actions``."""
    mask = bytearray(size)
    for a in actions:
        mask[a] = 1
    return mask
