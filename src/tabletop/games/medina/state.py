"""Medina's immutable position: pieces as bitsets, palace records, supplies and tile holders.

A :class:`State` is immutable (:class:`~tabletop.core.state_base.FrozenState`):
:meth:`State.apply` builds a new one (see :mod:`tabletop.games.medina.rules`), naming
the fields that change on a draft of the old one.  The legal kinds, where the legal
moves lie (``moves.Sources``) and the derived square sets are memo fields (``known_*``):
computed on first use, since kind-first random play asks for them on every step, and
never part of the value; ``rules.py`` hands the next state those a move leaves unchanged
and the legal moves it found while ending the turn.  Read them through the properties
(:attr:`State.wall_squares` ...) or the move functions, which compute what is missing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from tabletop.core.errors import InvalidMoveError
from tabletop.core.outcome import Outcome
from tabletop.core.protocol import GameConfig
from tabletop.core.protocol import Move as ProtocolMove
from tabletop.core.state_base import FrozenState, StateDefaults, blank, build, set_memo, tupled
from tabletop.games.medina.board import Geometry, Mask, Square
from tabletop.games.medina.ruleset import RuleSet

if TYPE_CHECKING:
    from tabletop.core.protocol import Game
    from tabletop.games.medina.moves import Move, Sources

START: Final = "start_merchant"
"""Phase: the start player places the starting merchant."""
PLAY: Final = "play"
"""Phase: the turns."""
OVER: Final = "over"
"""Phase: the game is over."""

MEMO_FIELDS: Final = (
    "known_kinds",
    "known_sources",
    "known_by_kind",
    "known_moves",
    "known_wall_squares",
    "known_stable_squares",
    "known_merchant_squares",
    "known_claimable",
    "known_scores",
)
"""The memo slots of :class:`State` (derived values, ``None`` until computed)."""

SEAT_COLORS: Final = ("red", "blue", "green", "yellow")
"""Display colour of each seat (domes and markers)."""


TEA_TILES: Final = 6
"""Tea tiles in the second edition (pool + held + box)."""


@dataclass(frozen=True, slots=True, eq=False)
class Context:
    """What never changes during one game (Terra Nova's ``Context`` has the same shape).

    Attributes:
        game: the Game object.
        config: the canonical configuration (with what the setup drew filled in).
        rules: the resolved rule flags.
        geo: the board side (``board.BOARD_34``, or ``board.BOARD_2P`` for 2 players).
        num_players: 2 (second edition), 3 or 4.
        seat_colors: display colour name per seat.
    """

    game: Game
    config: GameConfig
    rules: RuleSet
    geo: Geometry
    num_players: int
    seat_colors: tuple[str, ...]

    def _key(self) -> tuple[RuleSet, int, tuple[str, ...]]:
        return (self.rules, self.num_players, self.seat_colors)

    # Two games with the same rules and seats are the same game for position equality,
    # whatever the config spelling (the geometry follows from the player count).
    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Context) and self._key() == other._key())

    def __hash__(self) -> int:
        return hash(self._key())


class Palace(NamedTuple):
    """One palace: a maximal orthogonally connected set of same-colour palace pieces.

    Attributes:
        color: colour index (see ``moves.PALACE_COLORS``).
        pieces: its palace pieces (bitset).
        stables: its stables (bitset).
        touch: its components plus every square touching one (the street-rule zone).
        owner: the seat that domed it, ``NEUTRAL`` (a neutral dome, 2e) or ``NOBODY``.
        dome: the square carrying the dome, or -1.
        abandoned: unowned and without extension squares (final; §3.1.4).
    """

    color: int
    pieces: Mask
    stables: Mask
    touch: Mask
    owner: int
    dome: Square
    abandoned: bool

    @property
    def components(self) -> Mask:
        """Pieces and stables."""
        return self.pieces | self.stables

    @property
    def size(self) -> int:
        """Palace pieces plus stables (the palace-tile comparison)."""
        return (self.pieces | self.stables).bit_count()


class State(FrozenState, StateDefaults):
    """A Medina position (immutable).

    Board attributes are bitsets over :mod:`~tabletop.games.medina.board` square indices.

    Attributes:
        context: the static part shared by every state of one game (:class:`Context`:
            game, config, rules, geo, num_players; each also a property of the state).
        phase: ``START``, ``PLAY`` or ``OVER``.
        current_player: the seat to act, or -1 when over.
        placements_left: placements left in this turn (2 or 1; 1 in the setup phase).
        obligation: the last-player dome obligation (§5.2) is pending this turn.
        turn: the 0-based turn index (the starting merchant is turn 0).
        ply: moves applied so far.
        palace_mask: every palace piece.
        stables: every stable.
        merchants: every merchant.
        walls: every wall piece.
        occupied: every occupied building square.
        forbid: squares a new palace may not use (components and their touching squares).
        contested: squares touching components of two different palaces.
        palaces: every palace, in order of foundation (index = palace id).
        unfinished: per colour, the id of its unfinished palace or -1.
        ext: per colour, the extension squares of its unfinished palace (0 if none).
        owned: ``owned[p * 4 + c]`` = id of the colour-``c`` palace of seat ``p`` or -1.
        chain: the active merchant chain.
        chain_ends: the squares the active chain may grow from.
        runs: wall pieces per run (``board.NUM_RUNS`` runs: tower × side).
        supply: ``supply[p * 8 + slot]``, slots as ``moves.SLOT_NAMES``.
        retired: per colour, palace pieces removed from the game by colour retirement.
        palace_tiles: holder seat per palace colour, or -1 (still in the supply).
        tower_tiles: holder seat per tower slot, or -1.
        start_square: the starting merchant's square, or -1 before it is placed.
        well: the well's square (2e), or -1.
        red: the squares touching the well (no palace piece, no stable).
        yellow: the well's bonus squares (+4 per palace component at the end).
        neutral: neutral domes per seat (2e).
        tea: tea tiles held per seat (2e).
        tea_pool: tea tiles still to be awarded.
        tea_fresh: tea tiles the current player received this turn.
        tower_merchants: merchants still on each tower tile, by tower slot.
        second_step: the first placement of a two-placement turn has been made (tea allowed).
        claims: palace ids in the order their domes were placed (ties, 2e E13).
    """

    __slots__ = (
        "context",
        "phase",
        "current_player",
        "placements_left",
        "obligation",
        "turn",
        "ply",
        "palace_mask",
        "stables",
        "merchants",
        "walls",
        "occupied",
        "forbid",
        "contested",
        "palaces",
        "unfinished",
        "ext",
        "owned",
        "chain",
        "chain_ends",
        "runs",
        "supply",
        "retired",
        "palace_tiles",
        "tower_tiles",
        "start_square",
        "well",
        "red",
        "yellow",
        "neutral",
        "tea",
        "tea_pool",
        "tea_fresh",
        "tower_merchants",
        "second_step",
        "claims",
        *MEMO_FIELDS,
    )
    MEMO = MEMO_FIELDS

    context: Context
    phase: str
    current_player: int
    placements_left: int
    obligation: bool
    turn: int
    ply: int
    palace_mask: Mask
    stables: Mask
    merchants: Mask
    walls: Mask
    occupied: Mask
    forbid: Mask
    contested: Mask
    palaces: tuple[Palace, ...]
    unfinished: tuple[int, ...]
    ext: tuple[Mask, ...]
    owned: tuple[int, ...]
    chain: Mask
    chain_ends: Mask
    runs: tuple[Mask, ...]
    supply: tuple[int, ...]
    retired: tuple[int, ...]
    palace_tiles: tuple[int, ...]
    tower_tiles: tuple[int, ...]
    start_square: Square
    well: Square
    red: Mask
    yellow: Mask
    neutral: tuple[int, ...]
    tea: tuple[int, ...]
    tea_pool: int
    tea_fresh: int
    tower_merchants: tuple[int, ...]
    second_step: bool
    claims: tuple[int, ...]
    # Memo fields (None: not known yet), computed when first needed (``moves.py``,
    # ``placement.py``, ``scoring.py``); ``rules.py`` hands some on to the next state
    # where a placement leaves them unchanged.
    known_kinds: tuple[str, ...] | None
    known_sources: Sources | None  # empty: the moves are listed in full (``moves._sources``)
    known_by_kind: dict[str, tuple[Move, ...]] | None
    known_moves: tuple[Move, ...] | None
    known_wall_squares: Mask | None
    known_stable_squares: Mask | None
    known_merchant_squares: Mask | None
    known_claimable: list[int] | None
    known_scores: tuple[int, ...] | None

    @property
    def wall_squares(self) -> Mask:
        """Where a wall piece may go (``placement.wall_squares``)."""
        return _placement.wall_squares(self)

    @property
    def stable_squares(self) -> Mask:
        """Where a stable may go (``placement.stable_squares``)."""
        return _placement.stable_squares(self)

    @property
    def merchant_squares(self) -> Mask:
        """Where a merchant may go (``placement.merchant_squares``)."""
        return _placement.merchant_squares(self)

    @classmethod
    def from_fields(cls, context: Context, fields: Mapping[str, Any]) -> State:
        """The state of ``context``'s game whose fields are ``fields`` (by name, lists for
        tuples: ``export()`` of the native engine's position, or test positions); a field
        ``fields`` does not name has its value in the initial position
        (``rules.initial_state``).  Other names are ignored."""
        # The initial position only where a field is missing (it costs a setup).
        base = None if all(name in fields for name in PUBLIC_FIELDS) else _rules.initial_state(context)
        s = blank(State)
        s.context = context
        for name in PUBLIC_FIELDS:
            if name not in fields:
                value = getattr(base, name)
            elif name == "palaces":
                value = tuple(Palace(*palace) for palace in fields[name])
            else:
                value = tupled(fields[name])
            setattr(s, name, value)
        return build(s)

    # -- static context -------------------------------------------------------------

    @property
    def game(self) -> Game:
        """The Medina game object."""
        return self.context.game

    @property
    def config(self) -> GameConfig:
        """The configuration the game was created with."""
        return self.context.config

    @property
    def rules(self) -> RuleSet:
        """The rule flags in force."""
        return self.context.rules

    @property
    def geo(self) -> Geometry:
        """The board side."""
        return self.context.geo

    @property
    def num_players(self) -> int:
        """Number of seats."""
        return self.context.num_players

    def __repr__(self) -> str:
        scores = "-".join(map(str, self.scores()))
        return f"<medina.State turn={self.turn} ply={self.ply} player={self.current_player} scores={scores}>"

    def __str__(self) -> str:
        return _render.render_text(self)

    def _repr_svg_(self) -> str:
        return str(_render.render_svg(self))

    # --- protocol ----------------------------------------------------------------------

    def legal_moves(self) -> Sequence[ProtocolMove]:
        """Every legal move, kinds in ``moves.KINDS`` order, squares in index order."""
        moves = self.known_moves
        if moves is None:
            by_kind = _moves.legal_by_kind(self)
            moves = tuple(m for ms in by_kind.values() for m in ms)
            set_memo(self, "known_moves", moves)
        return moves

    def legal_kinds(self) -> Sequence[str]:
        """The kinds that have at least one legal move, in ``moves.KINDS`` order."""
        return _moves.legal_kinds(self)

    def legal_moves_of_kind(self, kind: str) -> Sequence[ProtocolMove]:
        """The legal moves of one kind (empty for a kind with none)."""
        return _moves.legal_moves_of_kind(self, kind)

    def is_legal(self, move: ProtocolMove) -> bool:
        """Whether ``move`` may be applied now."""
        return _moves.illegal_reason(self, move) is None

    def apply(self, move: ProtocolMove) -> State:
        """The state after ``move``.

        Raises:
            IllegalMoveError: with the reason, if ``move`` is not legal here.
        """
        return _rules.apply(self, move)

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.phase == OVER

    def outcome(self) -> Outcome | None:
        """Final scores and the shared winners once the game is over."""
        if self.phase != OVER:
            return None
        outcome = Outcome.from_scores(self.scores(), "no_legal_placements")
        if self.rules.tie_break == "largest_palace" and len(outcome.winners) > 1:
            winner = _scoring.tie_break_winner(self, outcome.winners)
            return Outcome(outcome.scores, (winner,), outcome.termination)
        return outcome

    def scores(self) -> tuple[int, ...]:
        """Each seat's score if the game ended now (final scores once over)."""
        cached = self.known_scores
        if cached is None:
            cached = _scoring.scores(self)
            set_memo(self, "known_scores", cached)
        return cached

    def parse_move(self, text: str) -> ProtocolMove:
        """Reads a move; during setup ``merchant@SQ`` also means the starting merchant.

        Raises:
            InvalidMoveError: if ``text`` is not well-formed notation.
        """
        move = _notation.parse_move(text)
        square = getattr(move, "square", None)
        if square is not None and not self.geo.has(square):
            raise InvalidMoveError(_messages.SAY("no_square_here", square=_board.SQUARE_NAMES[square], text=text))
        if self.phase == START and move.kind == "merchant":
            return _notation.as_start(move)
        return move

    def move_to_str(self, move: ProtocolMove) -> str:
        """The notation of ``move`` (the second edition names the colour-2 pieces ``purple``)."""
        return _notation.move_to_str(move, self.rules.edition)

    def to_json(self) -> dict[str, Any]:
        """Everything a client needs to draw and play the position (see ``docs/medina.md``)."""
        return _notation.state_to_json(self)


PUBLIC_FIELDS: Final = tuple(name for name in State.FIELDS if name != "context")
"""The fields :meth:`State.from_fields` reads: every field but the context."""


# Late imports: these modules build and read States, and State delegates to them.
from tabletop.games.medina import board as _board  # noqa: E402
from tabletop.games.medina import messages as _messages  # noqa: E402
from tabletop.games.medina import moves as _moves  # noqa: E402
from tabletop.games.medina import notation as _notation  # noqa: E402
from tabletop.games.medina import placement as _placement  # noqa: E402
from tabletop.games.medina import render as _render  # noqa: E402
from tabletop.games.medina import rules as _rules  # noqa: E402
from tabletop.games.medina import scoring as _scoring  # noqa: E402
