"""The immutable Terra Nova position.

A :class:`State` is an immutable value (:class:`~tabletop.core.state_base.FrozenState`):
``apply`` returns a new one.  Cells are board
indices and piece sets are Python-int bitsets (bit ``i`` = cell ``i``, see ``board.py``).

Public fields (stable; the renderer and clients read them):

* ``context``: the static part shared by every state of one game (game, config, board,
  rules, colours).
* ``current_player``: the seat to act, ``TERMINAL`` (-1) once the game is over.
* ``phase``: ``"placement"``, ``"play"`` or ``"over"``.
* ``pioneers``: per seat, the bitset of cells holding that seat's pioneers.
* ``stones``: bitset of stone cells.  ``closed``: bitset of the cells of scored areas.
* ``supply``: stones left (80 at the start).
* ``points``: score per seat.  ``in_hand``: pioneers still to place per seat.
  ``removed``: pioneers removed by scoring per seat.
* ``areas``: every scored (closed) area in the order scored (:class:`ScoredArea`).
* turn progress: ``action`` (actions taken in this turn, 0..3), ``movers`` (for each
  pioneer moved this turn, ``(current cell, s(X) = its cell at turn start)``, in order of
  first move), ``moves_made`` (M actions so far this turn), ``pending_return`` (the cell
  of a pioneer standing on its own s(X) after action 2, which must move again; -1 if none),
  ``turn_stones`` (bitset of the stones placed in this turn: ``scoring_timing=end_of_turn``
  with ``score_on_type_reduction=false`` scores only the zones they split).
* ``turn``, ``ply``: turn index (each setup placement is a turn) and moves applied.
* ``stall``: turns in a row without a stone (end condition E5).
* ``start_player``: the seat that placed first and takes the first turn.
* ``result``: the :class:`~tabletop.core.outcome.Outcome` once over, else ``None``.
* ``line_pioneers``, ``lattice_blocked``, ``filled``, ``line_free``: engine caches derived
  from the fields above: each seat's pioneers in the board's lines layout (``board.py``,
  for slides in all directions at once), ``stones | closed`` in the lattice layout (for
  flood fills), the cells that are not empty (pioneer, stone or closed), and the empty
  cells in the lines layout.  Clients should ignore them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, cast

from tabletop.core.outcome import Outcome
from tabletop.core.protocol import GameConfig
from tabletop.core.state_base import FrozenState, StateDefaults, blank, build, tupled
from tabletop.games.terranova.board import Board
from tabletop.games.terranova.ruleset import RuleSet
from tabletop.games.terranova.scoring import ScoredArea

if TYPE_CHECKING:
    from tabletop.core.protocol import Game
    from tabletop.games.terranova.moves import Move, Place, Slide, Stone
    from tabletop.render.svg import SvgImage

PLACEMENT: Final = "placement"
PLAY: Final = "play"
OVER: Final = "over"

TOTAL_STONES: Final = 80
PIONEERS_PER_PLAYER: Final = {2: 13, 3: 10, 4: 8}
SEAT_COLORS: Final = ("yellow", "red", "blue", "green")


@dataclass(frozen=True, slots=True, eq=False)
class Context:
    """What never changes during one game.

    Attributes:
        game: the Game object.
        config: the configuration (with the start player filled in when it was drawn
            without a seed).
        board: the board tables.
        rules: the resolved rule flags.
        num_players: number of seats.
        seat_colors: display colour name per seat.
    """

    game: Game
    config: GameConfig
    board: Board
    rules: RuleSet
    num_players: int
    seat_colors: tuple[str, ...]

    def _key(self) -> tuple[Board, RuleSet, int, tuple[str, ...]]:
        return (self.board, self.rules, self.num_players, self.seat_colors)

    # Two games on the same map with the same rules are the same game for position
    # equality, whatever the config spelling (e.g. a map inlined by a record).
    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Context) and self._key() == other._key())

    def __hash__(self) -> int:
        return hash(self._key())


class State(FrozenState, StateDefaults):
    """A Terra Nova position (see the module docstring for the fields).

    Immutable (:class:`~tabletop.core.state_base.FrozenState`; ``returns`` is
    :class:`~tabletop.core.state_base.StateDefaults`'s): ``rules.py`` builds each
    successor by naming the fields that change on a draft of the previous state;
    :meth:`from_fields` builds a state from its public fields.
    """

    __slots__ = (
        "action",
        "areas",
        "closed",
        "context",
        "current_player",
        "filled",
        "in_hand",
        "lattice_blocked",
        "line_free",
        "line_pioneers",
        "movers",
        "moves_made",
        "pending_return",
        "phase",
        "pioneers",
        "ply",
        "points",
        "removed",
        "result",
        "stall",
        "start_player",
        "stones",
        "supply",
        "turn",
        "turn_stones",
    )

    context: Context
    current_player: int
    phase: str
    pioneers: tuple[int, ...]
    stones: int
    closed: int
    supply: int
    points: tuple[int, ...]
    in_hand: tuple[int, ...]
    removed: tuple[int, ...]
    areas: tuple[ScoredArea, ...]
    action: int
    movers: tuple[tuple[int, int], ...]
    moves_made: int
    pending_return: int
    turn_stones: int
    turn: int
    ply: int
    stall: int
    start_player: int
    result: Outcome | None
    # Derived from the fields above (set with them by ``rules.py``, or by ``assemble``).
    line_pioneers: tuple[int, ...]
    lattice_blocked: int
    filled: int
    line_free: int

    def __repr__(self) -> str:
        scores = "-".join(map(str, self.points))
        return f"<terranova.State turn={self.turn} ply={self.ply} player={self.current_player} scores={scores}>"

    @classmethod
    def from_fields(cls, context: Context, fields: Mapping[str, Any]) -> State:
        """The state of ``context``'s game whose public fields (:data:`PUBLIC_FIELDS`) are
        ``fields`` (by name: ``export()`` of the native engine's position, or test
        positions); a field ``fields`` does not name has its value in the initial position
        (``rules.initial_state``), and the engine caches are computed.  Other names are
        ignored, but ``num_areas`` (the native export counts the scored areas too) must
        be the number of ``areas``.  An area is a :class:`ScoredArea` or its seven fields
        in order (the native export's tuples, lists after a JSON round trip).

        Raises:
            ValueError: if ``num_areas`` is not the number of ``areas``.
        """
        num_areas = fields.get("num_areas")
        if num_areas is not None and num_areas != len(fields.get("areas", ())):
            raise ValueError(f"{num_areas} areas were scored, but the fields have {len(fields.get('areas', ()))}")
        # The initial position only where a field is missing (it costs a layout).
        base = None if all(name in fields for name in PUBLIC_FIELDS) else _rules.initial_state(context)
        values = {name: tupled(fields[name]) if name in fields else getattr(base, name) for name in PUBLIC_FIELDS}
        values["areas"] = tuple(
            area if isinstance(area, ScoredArea) else ScoredArea(*map(tupled, area)) for area in values["areas"]
        )
        return assemble(context, values)

    # -- static context -------------------------------------------------------------

    @property
    def game(self) -> Game:
        """The Terra Nova game object."""
        return self.context.game

    @property
    def config(self) -> GameConfig:
        """The configuration the game was created with."""
        return self.context.config

    @property
    def board(self) -> Board:
        """The board tables."""
        return self.context.board

    @property
    def rules(self) -> RuleSet:
        """The rule flags in force."""
        return self.context.rules

    @property
    def num_players(self) -> int:
        """Number of seats."""
        return self.context.num_players

    # -- derived queries ------------------------------------------------------------

    @property
    def occupied(self) -> int:
        """Bitset of cells that are not empty (pioneer, stone or closed)."""
        return self.filled

    @property
    def empty(self) -> int:
        """Bitset of empty cells: no pioneer, no stone, not closed."""
        return self.context.board.all_cells & ~self.filled

    @property
    def open_cells(self) -> int:
        """Bitset of open cells (§4.1): not a stone and not part of a scored area."""
        return self.context.board.all_cells & ~self.stones & ~self.closed

    @property
    def actions_left(self) -> int:
        """Actions the current player may still take this turn (0 outside play)."""
        return 3 - self.action if self.phase == PLAY else 0

    def start_cell(self, cell: int) -> int:
        """s(X) of the pioneer now on ``cell``: its cell when the turn began."""
        for cur, start in self.movers:
            if cur == cell:
                return start
        return cell

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.result is not None

    def outcome(self) -> Outcome | None:
        """The result once over, else ``None``."""
        return self.result

    def scores(self) -> tuple[int, ...]:
        """Current score per seat."""
        return self.points

    # -- moves ----------------------------------------------------------------------

    def legal_moves(self) -> Sequence[Move]:
        """Every legal move: placements, or slides then stones, or the pass."""
        return _moves.legal_moves(self)

    def legal_kinds(self) -> Sequence[str]:
        """The kinds of the legal moves, in the order of :meth:`legal_moves`."""
        return _moves.legal_kinds(self)

    def legal_moves_of_kind(self, kind: str) -> Sequence[Move]:
        """The legal moves of one kind (``place``, ``move``, ``stone``, ``pass``)."""
        return _moves.legal_moves_of_kind(self, kind)

    def legal_notation_of_kind(self, kind: str) -> list[str]:
        """The notation of each legal move of one kind, in the order of :meth:`legal_moves_of_kind`.

        The same strings as :meth:`move_to_str` of each move, read from the labels the
        board's moves carry: a server lists every legal move in notation for each
        position it sends, and formatting them one by one cost five times as much.
        """
        moves = _moves.legal_moves_of_kind(self, kind)
        if kind == "pass":
            return [str(move) for move in moves]
        return [move.label for move in cast("Sequence[Place | Slide | Stone]", moves)]

    def is_legal(self, move: object) -> bool:
        """Whether ``move`` may be applied now (without listing every move)."""
        return _moves.illegal_reason(self, move) is None

    def apply(self, move: object) -> State:
        """The state after ``move``.

        Raises:
            IllegalMoveError: saying why the move is not allowed (``self`` is unchanged).
        """
        return _rules.apply(self, move)

    def parse_move(self, text: str) -> Move:
        """Reads a move in Terra Nova notation (``docs/notation.md``).

        Raises:
            InvalidMoveError: if ``text`` is not well-formed for this board.
        """
        return _notation.parse_move(self.context.board, text)

    def move_to_str(self, move: object) -> str:
        """The notation of ``move``."""
        return _notation.move_to_str(self.context.board, move)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready view of the position (``docs/terranova.md`` lists the keys)."""
        return _notation.state_to_json(self)

    def _repr_svg_(self) -> str:
        return str(self.render_svg())

    def render_svg(self, *, last_moves: Sequence[Move] = ()) -> SvgImage:
        """The position as SVG (drawn by ``terranova.render``)."""
        from tabletop.games.terranova.render import render_svg  # here: render imports this module

        return render_svg(self, last_moves=last_moves)

    def __str__(self) -> str:
        return _notation.summary(self)


PUBLIC_FIELDS: Final = (
    "current_player",
    "phase",
    "pioneers",
    "stones",
    "closed",
    "supply",
    "points",
    "in_hand",
    "removed",
    "areas",
    "action",
    "movers",
    "moves_made",
    "pending_return",
    "turn_stones",
    "turn",
    "ply",
    "stall",
    "start_player",
    "result",
)
"""The fields :meth:`State.from_fields` reads: every field but the context and the
engine caches derived from them."""


def assemble(context: Context, fields: Mapping[str, Any]) -> State:
    """The state of ``context`` with every public field (:data:`PUBLIC_FIELDS`) from
    ``fields`` and the engine caches computed from them (``rules.initial_state`` and
    :meth:`State.from_fields`; ``rules.py`` builds successors incrementally instead)."""
    board = context.board
    s = blank(State)
    s.context = context
    for name in PUBLIC_FIELDS:
        setattr(s, name, fields[name])
    pioneers = s.pioneers
    filled = s.stones | s.closed
    for own in pioneers:
        filled |= own
    s.line_pioneers = tuple(board.to_lines(own) for own in pioneers)
    s.lattice_blocked = board.to_lattice(s.stones | s.closed)
    s.filled = filled
    # The free cells as the whole layout less the filled ones: a cell's bits are its own,
    # so this is ``to_lines`` of the free cells, converting only the few filled ones.
    s.line_free = board.line_all & ~board.to_lines(filled)
    return build(s)


# Late imports (cycle: these modules use State, and State delegates to them).
from tabletop.games.terranova import moves as _moves  # noqa: E402
from tabletop.games.terranova import notation as _notation  # noqa: E402
from tabletop.games.terranova import rules as _rules  # noqa: E402
