"""Terra Nova (Leocata & Evola, 2006): the rules engine, registered as ``terranova``.

>>> from tabletop import GameConfig, make
>>> game = make("terranova", engine="python")  # this engine, whose fields are read below
>>> state = game.new_initial_state(GameConfig(num_players=2, seed=1))
>>> state.phase, state.supply, len(state.legal_moves()) == state.board.num_cells
('placement', 80, True)

See ``docs/terranova.md`` for the rules implemented, the variant flags and the readings
chosen where the spec leaves a case open.

Modules: ``board.py`` (cell indices, neighbour and ray tables, bitset layouts),
``state.py`` (:class:`State`), ``moves.py`` (the move types, legal move generation,
legality with reasons), ``rules.py`` (``apply``, turn flow, end of the game §5),
``scoring.py`` (zones and scoring §4), ``notation.py``, ``render.py``, ``heuristics.py``,
``ruleset.py`` (the variant flags) and ``mapfile.py``/``maplint.py`` (island maps).
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from tabletop.core.errors import ConfigError, InvalidMoveError
from tabletop.core.protocol import GameConfig, OptionSpec, OptionValue
from tabletop.core.protocol import Move as ProtocolMove
from tabletop.core.protocol import State as ProtocolState
from tabletop.core.registry import register
from tabletop.core.setups import SetupCache
from tabletop.core.state_base import draft, freeze
from tabletop.games.terranova.board import Board, board_for
from tabletop.games.terranova.encoding import TerraNovaEncoding, encoding_for
from tabletop.games.terranova.heuristics import evaluate as _evaluate
from tabletop.games.terranova.mapfile import (
    IslandMap,
    MapError,
    builtin_map_names,
    builtin_maps,
    load_map,
    parse_map,
    read_map_file,
    read_map_json,
)
from tabletop.games.terranova.maplint import LintReport, lint
from tabletop.games.terranova.moves import PASS, Move, Pass, Place, Slide, Stone
from tabletop.games.terranova.notation import cell_name, parse_cell
from tabletop.games.terranova.rules import initial_state, seeded_start
from tabletop.games.terranova.ruleset import OPTIONS, PRESETS, RuleSet, resolve_ruleset
from tabletop.games.terranova.scoring import ScoredArea, describe_score, score_sheet
from tabletop.games.terranova.state import PIONEERS_PER_PLAYER, SEAT_COLORS, Context, State

DEFAULT_MAP: Final = "isola"


class TerraNovaGame:
    """The Terra Nova game: metadata, the initial-state factory and the hooks."""

    id: Final = "terranova"
    name: Final = "Terra Nova"
    min_players: Final = 2
    max_players: Final = 4
    bench_player_counts: Final = (2, 3, 4)
    rollout_horizon: Final = 160
    """The longest rest of a game that the MCTS levels value by random rollouts (longer
    rests get the evaluation): an optional hook read by ``ai.evaluators.AdaptiveRollout``,
    tuned on this game (docs/bots.md)."""

    @property
    def options(self) -> tuple[OptionSpec, ...]:
        """Every rule flag of spec §6."""
        return OPTIONS

    @property
    def rulesets(self) -> Mapping[str, Mapping[str, OptionValue]]:
        """Presets ``default`` and ``english``."""
        return PRESETS

    def __init__(self) -> None:
        self._setups = SetupCache(self._check)
        """Checked once per seedless config (``core.setups``): a new game with a new seed
        (every random game does that) then costs no validation."""

    def new_initial_state(self, config: GameConfig) -> State:
        """The empty board in the placement phase (spec §1.3).

        Raises:
            ConfigError: for a player count other than 2-4, a bad ruleset or flag, a
                bad map, a map with fewer cells than pioneers + 1, or a bad start player.
        """
        setup = self._setups.get(config)
        n = setup.num_players
        start = seeded_start(config, n)
        if start is None:
            # Unseeded draw: store the result so records replay the same game.
            start = random.SystemRandom().randrange(n)
            config = GameConfig(n, config.ruleset, config.variants, config.map, None, start)
        return setup.empty_board(Context(self, config, setup.board, setup.rules, n, SEAT_COLORS[:n]), start)

    def initial_draw(self, config: GameConfig) -> tuple[GameConfig, Hashable] | None:
        """The config that the initial state of ``config`` holds, and what its seed draws
        there (the start player); ``None`` where nothing seeds the draw (neither a seed
        nor a start player: each such game draws its own).  Configs with the same
        seedless key (``core.setups``) and the same draw start from equal positions.

        An optional hook: the native engine starts a game whose draw it has seen
        without building this engine's initial state (``tabletop.native``).

        Raises:
            ConfigError: as :meth:`new_initial_state`.
        """
        start = seeded_start(config, self._setups.get(config).num_players)
        return None if start is None else (config, start)

    def _check(self, config: GameConfig) -> _Setup:
        """Validates ``config`` (all but the seed) and makes its setup.

        Raises:
            ConfigError: as :meth:`new_initial_state`.
        """
        n = config.num_players
        if isinstance(n, bool) or not isinstance(n, int) or n not in PIONEERS_PER_PLAYER:
            raise ConfigError(f"Terra Nova is for 2 to 4 players, not {n!r}")
        rules = resolve_ruleset(config.ruleset, config.variants)
        board = board_for(config.map)
        each = PIONEERS_PER_PLAYER[n]
        if board.num_cells < n * each + 1:
            raise ConfigError(
                f"map {board.map.id!r} has {board.num_cells} cells; {n} players need at least {n * each + 1}"
            )
        start = config.start_player
        if start is not None and (isinstance(start, bool) or not isinstance(start, int) or not 0 <= start < n):
            raise ConfigError(f"start_player must be a seat from 0 to {n - 1}, not {start!r}")
        return _Setup(board, rules, n)

    @property
    def maps(self) -> tuple[str, ...]:
        """Ids of the built-in maps: the only strings ``GameConfig.map`` accepts.

        An optional hook (not part of the protocol): records and the command line use it
        to tell a built-in map id from anything else.
        """
        return builtin_maps()

    @property
    def map_names(self) -> dict[str, str]:
        """The built-in maps' display names by id (an optional hook: the server's create form)."""
        return builtin_map_names()

    def lint_map(self, source: str) -> LintReport:
        """``tabletop map lint SOURCE``: a built-in map id or a map file, checked against
        the loader's rules (V1-V4) and the rules for shipped maps (M1-M8).

        An optional hook for the command line.

        Raises:
            MapError: if a file cannot be read as JSON (the report covers everything else).
        """
        data = load_map(source).to_json() if source in builtin_maps() else read_map_json(Path(source))
        return lint(data, source)

    def read_map_file(self, path: Path) -> dict[str, Any]:
        """Reads and checks a map file for ``--map FILE``: the map object to pass inline.

        An optional hook for the command line, the only place that reads map files
        (at most :data:`~tabletop.games.terranova.mapfile.MAX_FILE_BYTES` of them).

        Raises:
            MapError: if the file cannot be read or the map is invalid.
        """
        return read_map_file(path).to_json()

    def canonical_config(self, config: GameConfig) -> GameConfig:
        """The config as records store it: flags validated, a non-built-in map inlined.

        Raises:
            ConfigError: as :meth:`new_initial_state`.
        """
        state = self.new_initial_state(config)
        config = state.config
        map_value: str | Mapping[str, Any] | None = config.map
        if map_value is None or (isinstance(map_value, str) and map_value in builtin_maps()):
            pass  # built-in: stored by id
        else:
            map_value = state.board.map.to_json()
        return GameConfig(
            config.num_players, config.ruleset, dict(config.variants), map_value, config.seed, config.start_player
        )

    def parse_move(self, text: str) -> Move:
        """Reads move notation against the default map (``isola``).

        Raises:
            InvalidMoveError: if ``text`` is not a well-formed move.
        """
        try:
            board = board_for(DEFAULT_MAP)
        except MapError as exc:
            raise InvalidMoveError(f"cannot read {text!r} without a map: {exc}") from None
        from tabletop.games.terranova.notation import parse_move

        return parse_move(board, text)

    def render_text(self, state: ProtocolState, *, color: bool = False) -> str:
        """The position as terminal text (``terranova.render``)."""
        assert isinstance(state, State)
        from tabletop.games.terranova import render  # here: render imports this package

        return render.render_text(state, color=color)

    def render_svg(self, state: ProtocolState, *, last_moves: Sequence[ProtocolMove] = ()) -> str:
        """The position as an SVG document (``terranova.render``)."""
        assert isinstance(state, State)
        from tabletop.games.terranova import render  # here: render imports this package

        return str(render.render_svg(state, last_moves=tuple(last_moves)))

    def render_board(
        self, state: ProtocolState, *, history: Sequence[tuple[int, ProtocolMove]] = (), first_ply: int = 0
    ) -> str:
        """The board alone, as the web page shows it (hook ``render_board``, ``terranova.render``)."""
        assert isinstance(state, State)
        from tabletop.games.terranova import render  # here: render imports this package

        return str(render.render_board(state, history=history, first_ply=first_ply))

    def describe_score(self, state: ProtocolState) -> str:
        """Scores per seat and every scored area with its value and awards."""
        assert isinstance(state, State)
        return describe_score(state)

    def score_sheet(self, state: ProtocolState) -> dict[str, Any]:
        """Scores per seat and every scored area, as tables (``scoring.score_sheet``)."""
        assert isinstance(state, State)
        return score_sheet(state)

    def seat_colors(self, num_players: int) -> tuple[str, ...]:
        """Pioneer colours in seat order (§1.2: yellow, red, blue, green)."""
        return SEAT_COLORS[:num_players]

    def evaluate(self, state: ProtocolState) -> tuple[float, ...]:
        """Heuristic final-score estimate per seat (``heuristics.evaluate``)."""
        assert isinstance(state, State)
        return _evaluate(state)

    def encoding(self, config: GameConfig) -> TerraNovaEncoding:
        """The fixed action space and observation tensors of ``config``'s map
        (``encoding.py``; an optional hook for ``tabletop.envs``, see ``core.encoding``).

        Raises:
            ConfigError: as :meth:`new_initial_state`.
        """
        context = self.new_initial_state(config).context
        return encoding_for(context.board, context.rules, context.num_players)

    def __repr__(self) -> str:
        return "TerraNovaGame()"


class _Setup:
    """What a configuration decides apart from its seed, and its empty boards."""

    __slots__ = ("_empty", "board", "num_players", "rules")

    def __init__(self, board: Board, rules: RuleSet, num_players: int) -> None:
        self.board = board
        self.rules = rules
        self.num_players = num_players
        self._empty: dict[int, State] = {}
        """The first empty board of each start player: later games copy its fields
        (the layouts of an empty board take longer to compute than to copy)."""

    def empty_board(self, context: Context, start: int) -> State:
        """The initial state of the game of ``context`` (of this setup), ``start`` to place first."""
        first = self._empty.get(start)
        if first is None:
            first = self._empty[start] = initial_state(context)
            return first
        board = draft(first)
        board.context = context
        return freeze(board)


GAME: Final = register(TerraNovaGame())
"""The registered game object."""

__all__ = [
    "DEFAULT_MAP",
    "GAME",
    "PASS",
    "Board",
    "Context",
    "IslandMap",
    "Move",
    "Pass",
    "Place",
    "RuleSet",
    "ScoredArea",
    "Slide",
    "State",
    "Stone",
    "TerraNovaGame",
    "board_for",
    "cell_name",
    "load_map",
    "parse_cell",
    "parse_map",
    "read_map_file",
]
