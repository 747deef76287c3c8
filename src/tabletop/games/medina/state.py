"""Medina's immutable position: pieces as bitsets, palace records, supplies and tile holders.

A :class:`State` is never changed once it is handed out: :meth:`State.apply` builds a new
one (see :mod:`tabletop.games.medina.rules`).  The legal kinds, where the legal moves lie
(``moves.Sources``) and the derived square sets are cached per state in private slots,
since kind-first random play asks for them on every step; ``rules.py`` hands the next
state those a move leaves unchanged and the legal moves it found while ending the turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from tabletop.core.outcome import Outcome
from tabletop.core.protocol import GameConfig
from tabletop.core.protocol import Move as ProtocolMove
from tabletop.core.state_base import StateDefaults
from tabletop.games.medina.board import Mask, Square
from tabletop.games.medina.ruleset import RuleSet

if TYPE_CHECKING:
    from tabletop.games.medina import MedinaGame
    from tabletop.games.medina.moves import Move, Sources

START: Final = "start_merchant"
"""Phase: the start player places the starting merchant."""
PLAY: Final = "play"
"""Phase: the turns."""
OVER: Final = "over"
"""Phase: the game is over."""

SEAT_COLORS: Final = ("red", "blue", "green", "yellow")
"""Display colour of each seat (domes and markers)."""


class Palace(NamedTuple):
    """One palace: a maximal orthogonally connected set of same-colour palace pieces.

    Attributes:
        color: colour index (see ``moves.PALACE_COLORS``).
        pieces: its palace pieces (bitset).
        stables: its stables (bitset).
        touch: its components plus every square touching one (the street-rule zone).
        owner: the seat that domed it, or -1.
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


class State(StateDefaults):
    """A Medina position.  Treat every attribute as read-only.

    Board attributes are bitsets over :mod:`~tabletop.games.medina.board` square indices.

    Attributes:
        game: the game object.
        config: the canonical configuration.
        rules: the rule flags.
        num_players: 3 or 4.
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
    """

    __slots__ = (
        "_all_moves",
        "_by_kind",
        "_claimable",
        "_kinds",
        "_merchant_squares",
        "_scores",
        "_sources",
        "_stable_squares",
        "_wall_squares",
        "chain",
        "chain_ends",
        "config",
        "contested",
        "current_player",
        "ext",
        "forbid",
        "game",
        "merchants",
        "num_players",
        "obligation",
        "occupied",
        "owned",
        "palace_mask",
        "palace_tiles",
        "palaces",
        "phase",
        "placements_left",
        "ply",
        "retired",
        "rules",
        "runs",
        "stables",
        "start_square",
        "supply",
        "tower_tiles",
        "turn",
        "unfinished",
        "walls",
    )

    game: MedinaGame
    config: GameConfig
    rules: RuleSet
    num_players: int
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
    # Derived values (None: not known yet), computed when first needed (``moves.py``,
    # ``placement.py``, ``scoring.py``); ``rules.py`` hands some on to the next state
    # where a placement leaves them unchanged.
    _kinds: tuple[str, ...] | None
    _sources: Sources | None  # empty: the moves are listed in full (``moves._sources``)
    _by_kind: dict[str, tuple[Move, ...]] | None
    _all_moves: tuple[Move, ...] | None
    _wall_squares: Mask | None
    _stable_squares: Mask | None
    _merchant_squares: Mask | None
    _claimable: list[int] | None
    _scores: tuple[int, ...] | None

    def _copy(self) -> State:
        """A shallow copy with nothing derived known (for building the next state)."""
        new = State.__new__(State)
        new.chain = self.chain
        new.chain_ends = self.chain_ends
        new.config = self.config
        new.contested = self.contested
        new.current_player = self.current_player
        new.ext = self.ext
        new.forbid = self.forbid
        new.game = self.game
        new.merchants = self.merchants
        new.num_players = self.num_players
        new.obligation = self.obligation
        new.occupied = self.occupied
        new.owned = self.owned
        new.palace_mask = self.palace_mask
        new.palace_tiles = self.palace_tiles
        new.palaces = self.palaces
        new.phase = self.phase
        new.placements_left = self.placements_left
        new.ply = self.ply
        new.retired = self.retired
        new.rules = self.rules
        new.runs = self.runs
        new.stables = self.stables
        new.start_square = self.start_square
        new.supply = self.supply
        new.tower_tiles = self.tower_tiles
        new.turn = self.turn
        new.unfinished = self.unfinished
        new.walls = self.walls
        # Nothing derived is known yet (as _clear_caches, inlined: this runs on every move).
        new._kinds = new._sources = new._by_kind = new._all_moves = new._scores = None
        new._wall_squares = new._stable_squares = new._merchant_squares = new._claimable = None
        return new

    def _clear_caches(self) -> None:
        """Forgets every derived value (for a state whose fields were just set)."""
        self._kinds = self._sources = self._by_kind = self._all_moves = self._scores = None
        self._wall_squares = self._stable_squares = self._merchant_squares = self._claimable = None

    def _key(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in _KEY_FIELDS)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return self.config == other.config and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"<medina.State turn={self.turn} ply={self.ply} player={self.current_player}>"

    def __str__(self) -> str:
        return _render.render_text(self)

    def _repr_svg_(self) -> str:
        return str(_render.render_svg(self))

    # --- protocol ----------------------------------------------------------------------

    def legal_moves(self) -> Sequence[ProtocolMove]:
        """Every legal move, kinds in ``moves.KINDS`` order, squares in index order."""
        moves = self._all_moves
        if moves is None:
            by_kind = _moves.legal_by_kind(self)
            moves = self._all_moves = tuple(m for ms in by_kind.values() for m in ms)
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
        return Outcome.from_scores(self.scores(), "no_legal_placements")

    def scores(self) -> tuple[int, ...]:
        """Each seat's score if the game ended now (final scores once over)."""
        cached = self._scores
        if cached is None:
            cached = self._scores = _scoring.scores(self)
        return cached

    def parse_move(self, text: str) -> ProtocolMove:
        """Reads a move; during setup ``merchant@SQ`` also means the starting merchant.

        Raises:
            InvalidMoveError: if ``text`` is not well-formed notation.
        """
        move = _notation.parse_move(text)
        if self.phase == START and move.kind == "merchant":
            return _notation.as_start(move)
        return move

    def move_to_str(self, move: ProtocolMove) -> str:
        """The notation of ``move``."""
        return _notation.move_to_str(move)

    def to_json(self) -> dict[str, Any]:
        """Everything a client needs to draw and play the position (see ``docs/medina.md``)."""
        return _notation.state_to_json(self)


_FIELDS = tuple(name for name in State.__slots__ if not name.startswith("_"))
_KEY_FIELDS = tuple(name for name in _FIELDS if name not in ("game", "config", "rules"))

# Late imports: these modules build and read States, and State delegates to them.
from tabletop.games.medina import moves as _moves  # noqa: E402
from tabletop.games.medina import notation as _notation  # noqa: E402
from tabletop.games.medina import render as _render  # noqa: E402
from tabletop.games.medina import rules as _rules  # noqa: E402
from tabletop.games.medina import scoring as _scoring  # noqa: E402
