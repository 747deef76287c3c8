"""Terra Nova moves: the move values, legal move generation and legality with reasons.

Moves name cells by board index (see :mod:`tabletop.games.terranova.board`).  A move's
notation is part of its value (``label``, compared like the cells): cell names depend on
the map, so the board makes every move (``board.place_moves``, ``board.slide`` ...,
``notation.parse_move``), one interned object per possible move, so move generation
never allocates, ``str(move)`` is the notation and two equal moves print the same.

Kinds: ``"place"`` (setup placement), ``"move"`` (slide a pioneer), ``"stone"`` (place a
border stone) and ``"pass"`` (a turn with no possible action).

Generation is kind-first, as random play asks for it: :func:`legal_kinds`, then
:func:`legal_moves_of_kind` (slides as a lazy :class:`~tabletop.core.moves.LazyMoves`), then one move is
applied (``rules.py``).  It works on int bitsets in the board's lines layout (§3.3-3.6,
the return rule §3.5 included).  :func:`illegal_reason` says why a move is not legal.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import compress
from typing import TYPE_CHECKING, ClassVar, Final

from tabletop.core.errors import Message, short_repr
from tabletop.core.moves import LazyMoves
from tabletop.games.terranova.board import bit_indices
from tabletop.games.terranova.messages import SAY
from tabletop.grid.hex import direction_between

if TYPE_CHECKING:
    from tabletop.games.terranova.board import Board
    from tabletop.games.terranova.state import State


@dataclass(frozen=True, slots=True)
class Place:
    """Setup: put one of your pioneers on the empty cell ``cell``."""

    kind: ClassVar[str] = "place"
    cell: int
    label: str
    """The notation, the cell's name on its board (``c3``)."""

    def __str__(self) -> str:
        return self.label


@dataclass(frozen=True, slots=True)
class Slide:
    """Action M: slide your pioneer from ``src`` in a straight line to ``dst``."""

    kind: ClassVar[str] = "move"
    src: int
    dst: int
    label: str
    """The notation on its board (``c3-c6``)."""

    def __str__(self) -> str:
        return self.label


@dataclass(frozen=True, slots=True)
class Stone:
    """Action P: put a border stone from the supply on ``cell``."""

    kind: ClassVar[str] = "stone"
    cell: int
    label: str
    """The notation on its board (``#c3``)."""

    def __str__(self) -> str:
        return self.label


@dataclass(frozen=True, slots=True)
class Pass:
    """The only move of a player none of whose pioneers can move at the start of a turn."""

    kind: ClassVar[str] = "pass"

    def __str__(self) -> str:
        return "pass"


PASS = Pass()
"""The pass move (all passes are equal)."""

Move = Place | Slide | Stone | Pass
"""Any Terra Nova move."""

KIND_PLACE: Final = ("place",)
KIND_MOVE: Final = ("move",)
KIND_PASS: Final = ("pass",)
KIND_STONE: Final = ("stone",)
KIND_MOVE_STONE: Final = ("move", "stone")
NO_KINDS: Final[tuple[str, ...]] = ()
_PASS_ONLY: Final = (PASS,)


# ---------------------------------------------------------------------------------
# Move generation


_SlideData = tuple["Board", int, int]
"""What the lazy slide list reads: the board, the movable pioneers and every destination
(both in the lines layout)."""


def slide_list(board: Board, own: int, targets: int) -> LazyMoves[Slide, _SlideData]:
    """The legal slides, listed lazily (:class:`~tabletop.core.moves.LazyMoves`).

    Slides are found bit-parallel in the board's lines layout (six copies of the board,
    one per direction, where a step is a one-bit shift): ``targets`` holds every
    destination in every direction, ``own`` the movable pioneers.  Two pioneers never
    reach the same cell in the same direction (one would block the other), so a
    destination bit names one slide, the count is a popcount, and indexing walks back
    from the chosen destination to its pioneer.  A random choice therefore never builds
    every move.
    """
    return LazyMoves(targets.bit_count(), _nth_slide, _walk_slides, (board, own, targets))


def _nth_slide(data: _SlideData, index: int) -> Slide:
    board, own, targets = data
    # Select the index-th set bit: halve the range by popcounts, then step.
    mask = targets
    base = 0
    size = mask.bit_length()
    while size > 48:
        half = size >> 1
        low = mask & ((1 << half) - 1)
        count = low.bit_count()
        if index < count:
            mask = low
            size = half
        else:
            index -= count
            mask >>= half
            base += half
            size -= half
    for _ in range(index):
        mask &= mask - 1
    dst = base + (mask & -mask).bit_length() - 1
    src = dst - 1
    while not own >> src & 1:
        src -= 1
    cells = board.line_cells
    key = cells[src] * board.num_cells + cells[dst]
    try:
        return board.slide_moves[key]
    except KeyError:  # made on first use
        move = board.slide_at(key)
        assert move is not None
        return move


def _walk_slides(data: _SlideData) -> Iterator[Slide]:
    board, own, targets = data
    cells = board.line_cells
    n = board.num_cells
    table = board.slide_moves
    mask = targets
    previous = src = -2
    while mask:
        low = mask & -mask
        mask ^= low
        dst = low.bit_length() - 1
        if dst != previous + 1:
            # A run of consecutive destinations belongs to one pioneer, which usually
            # sits right before it (not when a forbidden return cut the run).
            back = dst - 1
            while not own >> back & 1:
                back -= 1
            src = cells[back] * n
        previous = dst
        try:
            move = table[src + cells[dst]]
        except KeyError:  # made on first use
            made = board.slide_at(src + cells[dst])
            assert made is not None
            move = made
        yield move


def _slide_targets(own: int, free: int) -> int:
    """Every cell (lines layout) a pioneer in ``own`` can slide to, all directions at once."""
    targets = 0
    reach = own
    while True:
        reach = (reach << 1) & free
        if not reach:
            return targets
        targets |= reach


def _forbidden_returns(state: State) -> tuple[tuple[int, int], ...]:
    """The movers (cell, s(X)) that may not move back onto s(X) as the next action (§3.5)."""
    movers = state.movers
    if not movers:
        return ()
    rule = state.context.rules.return_rule
    if rule == "end_of_turn":
        return movers if state.action == 2 else ()
    if rule == "strict":
        return movers
    # three_moves_only: forbidden only as the third of three moves by one pioneer
    if state.action == 2 and state.moves_made == 2 and len(movers) == 1:
        return movers
    return ()


def _legal_slides(state: State) -> LazyMoves[Slide, _SlideData]:
    board = state.context.board
    if state.pending_return >= 0:
        own = board.line_bits[state.pending_return]
        return slide_list(board, own, _slide_targets(own, state.line_free))
    own = state.line_pioneers[state.current_player]
    targets = _slide_targets(own, state.line_free)
    if state.action:
        forbidden = _forbidden_returns(state)
        if forbidden:
            occ = state.filled
            for cur, start in forbidden:
                path = board.path_at(cur * board.num_cells + start)
                if path is not None and not path[0] & occ:
                    # The return is among the slides: s(X) reached in its direction.
                    targets &= ~(1 << board.line_positions[path[1]][start])
    return slide_list(board, own, targets)


def has_slide(state: State) -> bool:
    """Whether the current player has a legal slide (the return rule included)."""
    if state.pending_return >= 0:
        return True  # §3.5(c): the cell it came from is still free
    board = state.context.board
    own = state.line_pioneers[state.current_player]
    # In the lines layout a pioneer is mobile if the next bit of some copy is free.
    step_free = state.line_free >> 1
    forbidden = _forbidden_returns(state) if state.action else ()
    if not forbidden:
        return bool(own & step_free)
    restricted = 0
    for cur, _ in forbidden:
        restricted |= board.line_bits[cur]
    if own & ~restricted & step_free:
        return True
    return bool(_legal_slides(state))


def stone_targets(state: State, empty: int) -> int:
    """Empty cells next to an eligible mover (§3.6), or 0 if no stone may be placed."""
    if state.supply <= 0 or state.action == 0 or state.pending_return >= 0:
        return 0
    neighbor_masks = state.context.board.neighbor_masks
    near = 0
    for cur, _ in state.movers:
        near |= neighbor_masks[cur]
    return near & empty


def legal_kinds(state: State) -> tuple[str, ...]:
    """The kinds of the legal moves, in the order of :func:`legal_moves`."""
    phase = state.phase
    if phase == PLAY:
        if state.action == 0:
            mobile = state.line_pioneers[state.current_player] & (state.line_free >> 1)
            return KIND_MOVE if mobile else KIND_PASS
        if state.pending_return >= 0:
            return KIND_MOVE
        if state.moves_made == state.action:
            # Only moves so far: the cell behind the last mover is free, so a stone fits
            # while the supply lasts (§3.3 note) ...
            stone = state.supply > 0
            if state.action == 1 and state.context.rules.return_rule == "end_of_turn":
                # ... and as action 2 the mover may always go back the way it came.
                return KIND_MOVE_STONE if stone else KIND_MOVE
        else:
            stone = bool(stone_targets(state, state.context.board.all_cells & ~state.filled))
        if has_slide(state):
            return KIND_MOVE_STONE if stone else KIND_MOVE
        return KIND_STONE if stone else NO_KINDS
    if phase == PLACEMENT:
        return KIND_PLACE
    return NO_KINDS


def legal_moves_of_kind(state: State, kind: str) -> Sequence[Move]:
    """The legal moves of one kind, in a deterministic order."""
    phase = state.phase
    if phase == PLAY:
        if kind == "move":
            return _legal_slides(state)  # empty when no slide is legal, return rule included
        if kind == "stone":
            board = state.context.board
            table = board.stone_moves
            return [table[c] for c in bit_indices(stone_targets(state, board.all_cells & ~state.filled))]
        if kind == "pass" and legal_kinds(state) == KIND_PASS:
            return _PASS_ONLY
        return []
    if phase == PLACEMENT and kind == "place":
        board = state.context.board
        return list(compress(board.place_moves, board.selector(board.all_cells & ~state.filled)))
    return []


def legal_moves(state: State) -> list[Move]:
    """Every legal move: placements; or slides, then stones; or the pass."""
    out: list[Move] = []
    for kind in legal_kinds(state):
        out += legal_moves_of_kind(state, kind)
    return out


# ---------------------------------------------------------------------------------
# Legality with reasons


def _name(board: Board, cell: object) -> str:
    return board.names[cell] if isinstance(cell, int) and 0 <= cell < board.num_cells else f"cell {cell!r}"


def _valid_cell(board: Board, cell: object) -> bool:
    return isinstance(cell, int) and 0 <= cell < board.num_cells


def illegal_reason(state: State, move: object) -> Message | None:
    """Why ``move`` is illegal in ``state``, or ``None`` if it is legal."""
    board = state.context.board
    phase = state.phase
    if isinstance(move, Slide):
        return slide_reason(state, board, move)
    if isinstance(move, Stone):
        return stone_reason(state, board, move)
    if phase == OVER:
        return SAY("game_over")
    if isinstance(move, Place):
        if phase != PLACEMENT:
            return SAY("all_placed")
        if not _valid_cell(board, move.cell):
            return SAY("no_such_cell", cell=_name(board, move.cell))
        if state.filled >> move.cell & 1:
            return SAY("occupied", cell=board.names[move.cell])
        return None
    if isinstance(move, Pass):
        if phase != PLAY:
            return SAY("no_pass_in_setup")
        if state.action:
            return SAY("no_voluntary_end")
        if legal_kinds(state) != KIND_PASS:
            return SAY("must_move_not_pass")
        return None
    return SAY("not_a_move", move=short_repr(move))


def slide_reason(state: State, board: Board, move: Slide) -> Message | None:
    """Why the slide ``move`` is illegal, or ``None`` (:func:`illegal_reason` for a slide)."""
    if state.phase != PLAY:
        return SAY("game_over") if state.phase == OVER else SAY("no_slide_in_setup")
    src, dst = move.src, move.dst
    n = board.num_cells
    if not (type(src) is int and type(dst) is int and 0 <= src < n and 0 <= dst < n):
        return SAY("no_such_cell", cell=_name(board, src if not _valid_cell(board, src) else dst))
    names = board.names
    if not state.pioneers[state.current_player] >> src & 1:
        return SAY("no_pioneer_at", cell=names[src])
    if state.pending_return >= 0 and src != state.pending_return:
        return SAY("must_move_returned", cell=names[state.pending_return])
    path = board.paths.get(src * n + dst) or board.path_at(src * n + dst)
    if path is None:
        if src == dst:
            return SAY("zero_length")
        if direction_between(board.coords[src], board.coords[dst]) is not None:
            return SAY("leaves_board", src=names[src], dst=names[dst])
        return SAY("not_straight", src=names[src], dst=names[dst])
    mask, direction, steps = path
    occ = state.filled
    if mask & occ:
        for cell in board.ray(src, direction)[:steps]:
            if occ >> cell & 1:
                return SAY("blocked", src=names[src], dst=names[dst], cell=names[cell])
    start = state.start_cell(src)
    if dst == start and start != src:
        rule = state.context.rules.return_rule
        if rule == "strict":
            return SAY("no_return_strict", cell=names[dst])
        if rule == "end_of_turn" and state.action != 1:
            return SAY("no_return_end_of_turn", cell=names[dst])
        if rule == "three_moves_only" and state.action == 2 and state.moves_made == 2 and len(state.movers) == 1:
            return SAY("no_return_third_move", cell=names[dst])
    return None


def stone_reason(state: State, board: Board, move: Stone) -> Message | None:
    """Why the stone ``move`` is illegal, or ``None`` (:func:`illegal_reason` for a stone)."""
    if state.phase != PLAY:
        return SAY("game_over") if state.phase == OVER else SAY("no_stone_in_setup")
    if state.action == 0:
        return SAY("first_action_moves")
    if state.pending_return >= 0:
        return SAY("must_move_returned", cell=board.names[state.pending_return])
    if state.supply <= 0:
        return SAY("supply_empty")
    cell = move.cell
    if not _valid_cell(board, cell):
        return SAY("no_such_cell", cell=_name(board, cell))
    if state.closed >> cell & 1:
        return SAY("scored_area", cell=board.names[cell])
    if state.filled >> cell & 1:
        return SAY("occupied", cell=board.names[cell])
    if not stone_targets(state, 1 << cell):
        return SAY("stone_not_adjacent")
    return None


# state.py imports the Move types, and State delegates move generation to this module:
# importing state last lets either module be loaded first.
from tabletop.games.terranova.state import OVER, PLACEMENT, PLAY  # noqa: E402
