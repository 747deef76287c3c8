"""The game protocol: what every game implements and everything above the engines uses.

Layers above the engines (``ai``, ``arena``, ``server``, ``cli``) only see these types,
the registry and the game's own hooks declared on :class:`Game`; they never import a
game's internals.

The shape follows OpenSpiel's Game/State split with python-chess style value types:

* :class:`Game` is metadata plus a factory (``new_initial_state``) and per-game hooks
  (notation, rendering, evaluation).
* :class:`State` is an immutable position.  ``apply`` returns a new state and raises
  :class:`~tabletop.core.errors.IllegalMoveError` for an illegal move.
* :class:`Move` is a frozen value per game with a ``kind`` (``"place"``, ``"move"``,
  ``"stone"``, ``"pass"``, ``"dome"`` ...) and ``str(move)`` as its notation.

Turn structure: ``current_player`` is the seat that must act.  A player who has no
legal action while the game is not over has exactly one legal move, the game's pass
move (kind ``"pass"``), so records show every skipped turn.  A turn that ends early
because no further action is possible ends by itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, ValidationError

from tabletop.core.errors import ConfigError, short_repr
from tabletop.core.outcome import Outcome

PlayerId = int
"""A seat number, 0 to num_players - 1, in turn order."""

TERMINAL: Final[PlayerId] = -1
"""``State.current_player`` of a finished game."""

OptionValue = bool | int | str | None


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One named rule variant flag of a game.

    Attributes:
        name: the flag name as used in ``GameConfig.variants``, records and the CLI.
        default: its value in the default ruleset.
        choices: the allowed values, or ``None`` for any value of the default's type
            (an int, or a string such as Medina's tower values); ``bool`` flags list
            ``(False, True)``.
        help: one line saying what the flag changes.
    """

    name: str
    default: OptionValue
    choices: tuple[OptionValue, ...] | None
    help: str


@dataclass(frozen=True)
class GameConfig:
    """Everything needed to create the initial state of a game.

    Attributes:
        num_players: the number of seats.
        ruleset: a preset name from ``Game.rulesets`` (``"default"`` always exists).
        variants: flag overrides on top of the preset, by ``OptionSpec.name``.
        map: game-specific board choice: a built-in map id or the map's JSON object
            inline (records store maps inline unless built in).  A string is never a
            file name: configs arrive from records and over HTTP.
        seed: seeds every random choice the game makes itself (e.g. the start player).
        start_player: the seat that starts, or ``None`` to let the game decide.
    """

    num_players: int
    ruleset: str = "default"
    variants: Mapping[str, OptionValue] = field(default_factory=dict)
    map: str | Mapping[str, Any] | None = None
    seed: int | None = None
    start_player: int | None = None

    @classmethod
    def from_json(cls, data: object) -> GameConfig:
        """The inverse of :meth:`to_json`: the one reader of a config from JSON.

        Checks the types only (a record's header, a stored match, a bot worker's job
        all come through here); whether the values make a game is for
        ``Game.new_initial_state`` to say.

        Raises:
            ConfigError: naming the first field of the wrong type.
        """
        if not isinstance(data, Mapping):
            raise ConfigError("a config must be an object")
        try:
            model = _ConfigModel.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(_config_problem(exc)) from None
        return cls(model.num_players, model.ruleset, model.variants or {}, model.map, model.seed, model.start_player)

    def to_json(self) -> dict[str, Any]:
        """The configuration as a JSON-ready dict (part of a record's header)."""
        return {
            "num_players": self.num_players,
            "ruleset": self.ruleset,
            "variants": dict(self.variants),
            "map": self.map if not isinstance(self.map, Mapping) else dict(self.map),
            "seed": self.seed,
            "start_player": self.start_player,
        }


@runtime_checkable
class Move(Protocol):
    """A move value.  ``str(move)`` is its context-free notation."""

    @property
    def kind(self) -> str:
        """The kind of action, used by kind-first random play and UI filters."""
        ...


@runtime_checkable
class State(Protocol):
    """An immutable game position."""

    @property
    def game(self) -> Game:
        """The game this state belongs to."""
        ...

    @property
    def config(self) -> GameConfig:
        """The configuration the game was created with."""
        ...

    @property
    def num_players(self) -> int:
        """Number of seats."""
        ...

    @property
    def current_player(self) -> PlayerId:
        """The seat to act, or :data:`TERMINAL` when the game is over."""
        ...

    @property
    def ply(self) -> int:
        """Number of moves applied since the initial state."""
        ...

    @property
    def turn(self) -> int:
        """Index of the current turn (0-based); every move of one turn shares it.

        Setup placements are turns of one move each.  Used for undo within a turn.
        """
        ...

    def legal_moves(self) -> Sequence[Move]:
        """Every legal move, in a deterministic order.  Empty only when terminal."""
        ...

    def legal_kinds(self) -> Sequence[str]:
        """The distinct kinds among ``legal_moves()``, in a deterministic order."""
        ...

    def legal_moves_of_kind(self, kind: str) -> Sequence[Move]:
        """The legal moves of one kind (empty for a kind with none)."""
        ...

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` may be applied now."""
        ...

    def apply(self, move: Move) -> State:
        """Returns the state after ``move``.

        Raises:
            IllegalMoveError: if the move is not legal here (``self`` is unchanged).
        """
        ...

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        ...

    def outcome(self) -> Outcome | None:
        """The result once terminal, else ``None``."""
        ...

    def scores(self) -> tuple[int, ...]:
        """Current score per seat (final scores once terminal)."""
        ...

    def returns(self) -> tuple[float, ...]:
        """Win share per seat once terminal (1/k to each of k winners), zeros before."""
        ...

    def parse_move(self, text: str) -> Move:
        """Reads a move in the game's notation.

        Raises:
            InvalidMoveError: if ``text`` is not well-formed notation.
        """
        ...

    def move_to_str(self, move: Move) -> str:
        """The notation of ``move``; ``parse_move(move_to_str(m)) == m``."""
        ...

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready view of the position for clients (board, pieces, scores, turn)."""
        ...


class Game(Protocol):
    """A game: metadata, the factory for initial states and the per-game hooks."""

    @property
    def id(self) -> str:
        """Registry id, also the CLI argument, URL slug and record header value."""
        ...

    @property
    def name(self) -> str:
        """Human-readable name."""
        ...

    @property
    def min_players(self) -> int:
        """Fewest seats allowed."""
        ...

    @property
    def max_players(self) -> int:
        """Most seats allowed."""
        ...

    @property
    def options(self) -> tuple[OptionSpec, ...]:
        """Every named variant flag."""
        ...

    @property
    def rulesets(self) -> Mapping[str, Mapping[str, OptionValue]]:
        """Preset name to flag overrides; always contains ``"default"``."""
        ...

    @property
    def bench_player_counts(self) -> tuple[int, ...]:
        """Player counts that ``tabletop bench`` measures."""
        ...

    def new_initial_state(self, config: GameConfig) -> State:
        """Creates the initial state.

        Raises:
            ConfigError: for a bad player count, ruleset, flag value or map.
        """
        ...

    def canonical_config(self, config: GameConfig) -> GameConfig:
        """The config as stored in records: custom maps inline, values validated.

        Raises:
            ConfigError: as :meth:`new_initial_state`.
        """
        ...

    def parse_move(self, text: str) -> Move:
        """Reads context-free move notation.

        Raises:
            InvalidMoveError: if ``text`` is not well-formed notation.
        """
        ...

    def render_text(self, state: State, *, color: bool = False) -> str:
        """The position drawn for a terminal, with coordinates (ANSI colours if asked)."""
        ...

    def render_svg(self, state: State, *, last_moves: Sequence[Move] = ()) -> str:
        """The position drawn as a standalone SVG document."""
        ...

    def describe_score(self, state: State) -> str:
        """A human-readable breakdown of the current or final scores."""
        ...

    def score_sheet(self, state: State) -> dict[str, Any]:
        """:meth:`describe_score` as data for a translated table (JSON-ready).

        ``{"tables": [{"id", "caption", "headers", "rows"}]}``: captions and headers
        are i18n keys of the web client; a cell is a number, plain text, ``{"seat": p}``
        (shown by the player's name), ``{"seat": p, "gain" or "count": n}``,
        ``{"text": key, "params": {...}}`` or a list of cells.
        """
        ...

    def seat_colors(self, num_players: int) -> tuple[str, ...]:
        """The colour name each seat plays, as the board shows it (display data only)."""
        ...

    def evaluate(self, state: State) -> tuple[float, ...]:
        """A heuristic estimate of each seat's final score from ``state`` (for bots).

        Terminal states return the final scores.  Lives in the game's ``heuristics.py``.
        """
        ...


def _config_problem(exc: ValidationError) -> str:
    """Pydantic's first error as one short line naming the field (never the whole value)."""
    error = exc.errors()[0]
    field_name, *rest = [str(part)[:40] for part in error["loc"]] or ["config"]
    if field_name == "variants" and rest:
        return f"config.variants: {short_repr(rest[0])} must map to a boolean, integer, string or null"
    return f"config.{field_name}: {error['msg']}"


class _ConfigModel(BaseModel):
    """The JSON shape of a :class:`GameConfig` (strict: no bool for an int, no "2" for 2)."""

    model_config = ConfigDict(strict=True, extra="ignore")
    num_players: int
    ruleset: str = "default"
    variants: dict[str, bool | int | str | None] | None = None
    map: str | dict[str, Any] | None = None
    seed: int | None = None
    start_player: int | None = None
