"""Terra Nova rules: legal actions, applying them, scoring and the end of the game.

Pure functions over :class:`~tabletop.games.terranova.state.State`.  The hot path
(kind-first random play asks for the legal kinds, then the moves of one kind, then
applies one) works on int bitsets in the board's lattice and lines layouts; see
``docs/terranova.md`` for the measured speed.

Turn flow (spec §3.8): a turn is 1 to 3 actions by one player, action 1 a move.  After
each action the turn goes on while an action is possible, so a turn that cannot continue
ends by itself; a player who cannot move at turn start has only the pass.  End checks
(§5) run after every turn and once after setup.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import compress
from typing import Final, overload

from tabletop.core.errors import IllegalMoveError
from tabletop.core.outcome import Outcome
from tabletop.core.protocol import TERMINAL
from tabletop.games.terranova.board import RING_ARCS, Board
from tabletop.games.terranova.moves import PASS, Move, Pass, Place, Slide, Stone
from tabletop.games.terranova.ruleset import RuleSet
from tabletop.games.terranova.state import OVER, PLACEMENT, PLAY, ScoredArea, State
from tabletop.grid.hex import direction_between

KIND_PLACE: Final = ("place",)
KIND_MOVE: Final = ("move",)
KIND_PASS: Final = ("pass",)
KIND_STONE: Final = ("stone",)
KIND_MOVE_STONE: Final = ("move", "stone")
NO_KINDS: Final[tuple[str, ...]] = ()
_PASS_ONLY: Final = (PASS,)

# Termination reasons (Outcome.termination), in the order of the end checks (§5.2).
BOARD_DIVIDED: Final = "board_divided"  # E1
ONE_MOBILE_PLAYER: Final = "one_mobile_player"  # E2
PLAYER_ELIMINATED: Final = "player_eliminated"  # E3
STONES_EXHAUSTED: Final = "stones_exhausted"  # E4
STALL: Final = "stall"  # E5


# ---------------------------------------------------------------------------------
# Bitset helpers.  Cell bitsets use board indices; "lattice" bitsets use the board's
# padded layout (board.py), where one shift moves a whole set of cells one step.


def _spread(cells: int, width: int) -> int:
    """Every lattice cell next to one of ``cells`` (padding bits included)."""
    return (
        (cells << 1)
        | (cells >> 1)
        | (cells << width)
        | (cells >> width)
        | (cells << (width - 1))
        | (cells >> (width - 1))
    )


def _cells(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def landscape_count(board: Board, rules: RuleSet, lands: int) -> int:
    """t(Z) for a zone whose landscape-index bitset is ``lands`` (A2 aware)."""
    if rules.lake_is_landscape:
        return lands.bit_count()
    t = (lands & ~board.water_lands).bit_count()
    return t if t or not lands else 1  # a lake-only area counts as one landscape


def _lattice_lands(board: Board, lattice: int) -> int:
    lands = 0
    for i, mask in enumerate(board.lattice_land_masks):
        if lattice & mask:
            lands |= 1 << i
    return lands


# ---------------------------------------------------------------------------------
# Move generation


class SlideList(Sequence[Slide]):
    """The legal slides, listed lazily.

    Slides are found bit-parallel in the board's lines layout (six copies of the board,
    one per direction, where a step is a one-bit shift): one bitset holds every
    destination in every direction.  Two pioneers never reach the same cell in the same
    direction (one would block the other), so a destination bit names one slide, the
    count is a popcount, and indexing walks back from the chosen destination to its
    pioneer.  A random choice therefore never builds every move.
    """

    __slots__ = ("_board", "_len", "_own", "_targets")

    def __init__(self, board: Board, own: int, targets: int) -> None:
        self._board = board
        self._own = own  # the movable pioneers, lines layout
        self._targets = targets  # every destination, lines layout
        self._len = targets.bit_count()

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> Slide: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Slide]: ...

    def __getitem__(self, index: int | slice) -> Slide | Sequence[Slide]:
        if isinstance(index, slice):
            return list(self)[index]
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("slide index out of range")
        # Select the index-th set bit: halve the range by popcounts, then step.
        mask = self._targets
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
        return self._slide(base + (mask & -mask).bit_length() - 1)

    def _slide(self, dst: int) -> Slide:
        own = self._own
        src = dst - 1
        while not own >> src & 1:
            src -= 1
        board = self._board
        cells = board.line_cells
        return board.slide_moves[cells[src] * board.num_cells + cells[dst]]

    def __iter__(self) -> Iterator[Slide]:
        board = self._board
        cells = board.line_cells
        n = board.num_cells
        table = board.slide_moves
        own = self._own
        mask = self._targets
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
            yield table[src + cells[dst]]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SlideList | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a sequence value, like list

    def __repr__(self) -> str:
        return f"SlideList({list(self)!r})"


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


def _legal_slides(state: State) -> SlideList:
    board = state.context.board
    if state.pending_return >= 0:
        own = board.line_bits[state.pending_return]
        return SlideList(board, own, _slide_targets(own, state.line_free))
    own = state.line_pioneers[state.current_player]
    targets = _slide_targets(own, state.line_free)
    if state.action:
        forbidden = _forbidden_returns(state)
        if forbidden:
            occ = state.filled
            for cur, start in forbidden:
                path = board.paths.get(cur * board.num_cells + start)
                if path is not None and not path[0] & occ:
                    # The return is among the slides: s(X) reached in its direction.
                    targets &= ~board.line_direction_bits[path[1]][start]
    return SlideList(board, own, targets)


def _has_slide(state: State) -> bool:
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


def _stone_targets(state: State, empty: int) -> int:
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
            stone = bool(_stone_targets(state, state.context.board.all_cells & ~state.filled))
        if _has_slide(state):
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
            return [table[c] for c in _cells(_stone_targets(state, board.all_cells & ~state.filled))]
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


def illegal_reason(state: State, move: object) -> str | None:
    """Why ``move`` is illegal in ``state``, or ``None`` if it is legal."""
    board = state.context.board
    phase = state.phase
    if isinstance(move, Slide):
        return _slide_reason(state, board, move)
    if isinstance(move, Stone):
        return _stone_reason(state, board, move)
    if phase == OVER:
        return "the game is over"
    if isinstance(move, Place):
        if phase != PLACEMENT:
            return "all pioneers are already on the board"
        if not _valid_cell(board, move.cell):
            return f"there is no {_name(board, move.cell)} on this board"
        if state.filled >> move.cell & 1:
            return f"{board.names[move.cell]} is occupied"
        return None
    if isinstance(move, Pass):
        if phase != PLAY:
            return "no passing while placing pioneers"
        if state.action:
            return "a turn cannot be ended voluntarily: an action is still possible"
        if legal_kinds(state) != KIND_PASS:
            return "you can move a pioneer, so you may not pass"
        return None
    return f"{move!r} is not a Terra Nova move"


def _slide_reason(state: State, board: Board, move: Slide) -> str | None:
    if state.phase != PLAY:
        return "the game is over" if state.phase == OVER else "pioneers cannot move while they are being placed"
    src, dst = move.src, move.dst
    n = board.num_cells
    if not (type(src) is int and type(dst) is int and 0 <= src < n and 0 <= dst < n):
        return f"there is no {_name(board, src if not _valid_cell(board, src) else dst)} on this board"
    names = board.names
    if not state.pioneers[state.current_player] >> src & 1:
        return f"you have no pioneer at {names[src]}"
    if state.pending_return >= 0 and src != state.pending_return:
        at = names[state.pending_return]
        return f"the pioneer at {at} is back on its start cell and must move again as action 3"
    path = board.paths.get(src * board.num_cells + dst)
    if path is None:
        if src == dst:
            return "a move must go at least one cell"
        if direction_between(board.coords[src], board.coords[dst]) is not None:
            return f"the line from {names[src]} to {names[dst]} leaves the board"
        return f"{names[dst]} is not in a straight line from {names[src]}"
    mask, direction, steps = path
    occ = state.filled
    if mask & occ:
        for cell in board.rays[src][direction][:steps]:
            if occ >> cell & 1:
                return f"pioneer at {names[src]} cannot reach {names[dst]}: path blocked at {names[cell]}"
    start = state.start_cell(src)
    if dst == start and start != src:
        rule = state.context.rules.return_rule
        if rule == "strict":
            return f"the pioneer may not return to its start cell {names[dst]} (return_rule=strict)"
        if rule == "end_of_turn" and state.action != 1:
            return f"the pioneer may not end the turn on its start cell {names[dst]}"
        if rule == "three_moves_only" and state.action == 2 and state.moves_made == 2 and len(state.movers) == 1:
            return f"a third move of the same pioneer may not end on its start cell {names[dst]}"
    return None


def _stone_reason(state: State, board: Board, move: Stone) -> str | None:
    if state.phase != PLAY:
        return "the game is over" if state.phase == OVER else "no stones while pioneers are being placed"
    if state.action == 0:
        return "the first action of a turn must move a pioneer"
    if state.pending_return >= 0:
        at = board.names[state.pending_return]
        return f"the pioneer at {at} is back on its start cell and must move again as action 3"
    if state.supply <= 0:
        return "the stone supply is empty"
    cell = move.cell
    if not _valid_cell(board, cell):
        return f"there is no {_name(board, cell)} on this board"
    if state.closed >> cell & 1:
        return f"{board.names[cell]} belongs to a scored area"
    if state.filled >> cell & 1:
        return f"{board.names[cell]} is occupied"
    if not _stone_targets(state, 1 << cell):
        return "a stone must touch a pioneer you moved this turn"
    return None


# ---------------------------------------------------------------------------------
# Applying moves


def apply(state: State, move: object) -> State:
    """The state after ``move``.

    Raises:
        IllegalMoveError: saying why, if ``move`` is not legal (``state`` is unchanged).
    """
    if isinstance(move, Slide):
        reason = _slide_reason(state, state.context.board, move)
        if reason is None:
            return _apply_slide(state, move)
    elif isinstance(move, Stone):
        reason = _stone_reason(state, state.context.board, move)
        if reason is None:
            return _apply_stone(state, move.cell)
    else:
        reason = illegal_reason(state, move)
        if reason is None:
            if isinstance(move, Place):
                return _apply_place(state, move.cell)
            return _finish_turn(state, placed_stone=False)
    text = str(move) if isinstance(move, Place | Slide | Stone | Pass) else repr(move)
    raise IllegalMoveError(f"{text!r}: {reason}")


def _apply_place(state: State, cell: int) -> State:
    p = state.current_player
    n = state.context.num_players
    pioneers = list(state.pioneers)
    pioneers[p] |= 1 << cell
    lines = list(state.line_pioneers)
    line_bit = state.context.board.line_bits[cell]
    lines[p] |= line_bit
    in_hand = list(state.in_hand)
    in_hand[p] -= 1
    done = not any(in_hand)
    following = State(
        state.context,
        state.start_player if done else (p + 1) % n,
        PLAY if done else PLACEMENT,
        tuple(pioneers),
        state.stones,
        state.closed,
        state.supply,
        state.points,
        tuple(in_hand),
        state.removed,
        state.areas,
        0,
        (),
        0,
        -1,
        state.turn + 1,
        state.ply + 1,
        0,
        state.start_player,
        None,
        tuple(lines),
        state.lattice_blocked,
        state.filled | (1 << cell),
        state.line_free & ~line_bit,
    )
    if done:  # §1.3.4: the end checks run once after setup
        termination = _termination(following)
        if termination is not None:
            return _game_over(following, termination)
    return following


def _apply_slide(state: State, move: Slide) -> State:
    src, dst = move.src, move.dst
    p = state.current_player
    bits = state.context.board.line_bits
    step = bits[src] | bits[dst]
    pioneers = list(state.pioneers)
    pioneers[p] ^= (1 << src) | (1 << dst)
    lines = list(state.line_pioneers)
    lines[p] ^= step
    start = src
    movers = list(state.movers)
    for i, (cur, s) in enumerate(movers):
        if cur == src:
            start = s
            movers[i] = (dst, s)
            break
    else:
        movers.append((dst, src))
    action = state.action + 1
    pending = dst if dst == start and state.context.rules.return_rule == "end_of_turn" else -1
    following = State(
        state.context,
        p,
        PLAY,
        tuple(pioneers),
        state.stones,
        state.closed,
        state.supply,
        state.points,
        state.in_hand,
        state.removed,
        state.areas,
        action,
        tuple(movers),
        state.moves_made + 1,
        pending,
        state.turn,
        state.ply + 1,
        state.stall,
        state.start_player,
        None,
        tuple(lines),
        state.lattice_blocked,
        state.filled ^ ((1 << src) | (1 << dst)),
        state.line_free ^ step,
    )
    # After a move a stone is always possible while stones remain: the cell the mover
    # just left (or passed over last) is empty and next to it (§3.3 note).
    if action < 3 and (state.supply > 0 or pending >= 0 or _has_slide(following)):
        return following
    return _finish_turn(following, placed_stone=following.action > following.moves_made)


def _apply_stone(state: State, cell: int) -> State:
    context = state.context
    board = context.board
    rules = context.rules
    stones = state.stones | (1 << cell)
    blocked = state.lattice_blocked | board.lattice_bits[cell]
    pioneers = state.pioneers
    lines = state.line_pioneers
    free = state.line_free & ~board.line_bits[cell]
    closed = state.closed
    points = state.points
    removed = state.removed
    areas = state.areas
    movers = state.movers
    if rules.scoring_timing == "immediate":
        parts = _parts_after_stone(board, rules, cell, board.lattice_all & ~blocked)
        if parts:
            pioneers, closed, points, removed, areas = _score(
                board, rules, parts, pioneers, closed, points, removed, areas, state.turn
            )
            lines = tuple(board.to_lines(own) for own in pioneers)
            for part in parts:
                blocked |= board.to_lattice(part)
                free &= ~board.to_lines(part)
            own = pioneers[state.current_player]
            movers = tuple(m for m in movers if own >> m[0] & 1)
    action = state.action + 1
    following = State(
        context,
        state.current_player,
        PLAY,
        pioneers,
        stones,
        closed,
        state.supply - 1,
        points,
        state.in_hand,
        removed,
        areas,
        action,
        movers,
        state.moves_made,
        -1,
        state.turn,
        state.ply + 1,
        state.stall,
        state.start_player,
        None,
        lines,
        blocked,
        state.filled | (1 << cell) | closed,
        free,
    )
    if action < 3 and (_stone_targets(following, board.all_cells & ~following.filled) or _has_slide(following)):
        return following
    return _finish_turn(following, placed_stone=True)


def _finish_turn(state: State, *, placed_stone: bool) -> State:
    """Ends the current player's turn: end-of-turn scoring, end checks, next player."""
    context = state.context
    rules = context.rules
    pioneers = state.pioneers
    closed = state.closed
    points = state.points
    removed = state.removed
    areas = state.areas
    lines = state.line_pioneers
    blocked = state.lattice_blocked
    free = state.line_free
    if rules.scoring_timing == "end_of_turn":
        board = context.board
        parts = [
            zone
            for zone in zones(board, board.all_cells & ~state.stones & ~closed)
            if landscape_count(board, rules, board.lands_of(zone)) <= 3
        ]
        if parts:
            pioneers, closed, points, removed, areas = _score(
                board, rules, parts, pioneers, closed, points, removed, areas, state.turn
            )
            lines = tuple(board.to_lines(own) for own in pioneers)
            blocked = board.to_lattice(state.stones | closed)
            free &= ~board.to_lines(closed)
    following = State(
        context,
        (state.current_player + 1) % context.num_players,
        PLAY,
        pioneers,
        state.stones,
        closed,
        state.supply,
        points,
        state.in_hand,
        removed,
        areas,
        0,
        (),
        0,
        -1,
        state.turn + 1,
        state.ply if state.action else state.ply + 1,  # a pass is a move of its own
        0 if placed_stone else state.stall + 1,
        state.start_player,
        None,
        lines,
        blocked,
        state.filled | closed,
        free,
    )
    termination = _termination(following)
    if termination is not None:
        return _game_over(following, termination)
    return following


def _game_over(state: State, termination: str) -> State:
    return state._replace(
        current_player=TERMINAL,
        phase=OVER,
        action=0,
        movers=(),
        moves_made=0,
        pending_return=-1,
        result=Outcome.from_scores(state.points, termination),
    )


# ---------------------------------------------------------------------------------
# End of the game (§5)


def mobile_players(state: State) -> tuple[int, ...]:
    """The seats with a mobile pioneer by the ruleset's ``mobility_test`` (E2)."""
    return _mobile_players(state, stop_at=state.context.num_players)


def _mobile_players(state: State, stop_at: int) -> tuple[int, ...]:
    if state.context.rules.mobility_test == "potential":
        # A player can still move if a pioneer shares a zone with an empty cell (A22).
        board = state.context.board
        empty = board.to_lattice(board.all_cells & ~state.filled)
        reach = board.from_lattice(_fill(empty, board.lattice_all & ~state.lattice_blocked, board.lattice_width))
        return tuple(p for p, own in enumerate(state.pioneers) if own & reach)
    step_free = state.line_free >> 1
    found = []
    for p, own in enumerate(state.line_pioneers):
        if own & step_free:
            found.append(p)
            if len(found) >= stop_at:
                break
    return tuple(found)


def _termination(state: State) -> str | None:
    """The first end condition E1-E5 that holds after a turn (or setup), or ``None``."""
    context = state.context
    rules = context.rules
    if not context.board.lattice_all & ~state.lattice_blocked:
        return BOARD_DIVIDED
    if len(_mobile_players(state, stop_at=2)) <= 1:
        return ONE_MOBILE_PLAYER
    if rules.end_on_player_eliminated and not all(state.pioneers):
        return PLAYER_ELIMINATED
    if rules.end_on_stones_exhausted and state.supply <= 0:
        return STONES_EXHAUSTED
    limit = rules.stall_limit_rounds
    if limit is not None and state.stall >= limit * context.num_players:
        return STALL
    return None


# ---------------------------------------------------------------------------------
# Zones and scoring (§4)


def _fill(seed: int, allowed: int, width: int) -> int:
    """The lattice cells of ``allowed`` connected to ``seed`` (``seed`` included)."""
    reached = frontier = seed & allowed
    while frontier:
        frontier = _spread(frontier, width) & allowed & ~reached
        reached |= frontier
    return reached


def zones(board: Board, open_cells: int) -> list[int]:
    """The zones (§4.1) of a set of open cells, each as a cell bitset, by lowest cell."""
    out = []
    remaining = board.to_lattice(open_cells)
    while remaining:
        zone = _fill(remaining & -remaining, remaining, board.lattice_width)
        out.append(board.from_lattice(zone))
        remaining &= ~zone
    out.sort(key=lambda zone: zone & -zone)
    return out


def _parts_after_stone(board: Board, rules: RuleSet, x: int, open_after: int) -> list[int]:
    """The parts of x's old zone to score after a stone on ``x`` (§4.2), as cell bitsets.

    ``open_after`` is the lattice bitset of open cells after the stone.  Relies on the
    invariant that every unscored zone had t ≥ 4 before the stone (with
    ``score_on_type_reduction``), so it stops exploring a part as soon as that part is
    known to stay open ground.  Several parts grow at once, one layer each, so a small
    enclosed part is found without walking the big one.
    """
    pattern = 0
    neighbors = board.lattice_neighbors[x]
    for direction_bit, bit in neighbors:
        if open_after & bit:
            pattern |= direction_bit
    arcs = RING_ARCS[pattern]
    if not arcs:
        return []
    reduce_types = rules.score_on_type_reduction
    # The invariant "t(Z0) ≥ 4" needs type reduction on and a starting board of ≥ 4
    # counted landscapes (only a map with < 4 dry landscapes and lake_is_landscape=false
    # starts as one scorable area).
    invariant = reduce_types and (rules.lake_is_landscape or board.dry_landscapes >= 4)
    if len(arcs) == 1 and (not reduce_types or (invariant and open_after & board.lattice_same_land[x])):
        # Not split, and x's landscape is still in the zone: t is unchanged (≥ 4).
        return []
    seeds = []
    for arc in arcs:
        seed = 0
        for direction_bit, bit in neighbors:
            if arc & direction_bit:
                seed |= bit
        seeds.append(seed)
    w = board.lattice_width
    w1 = w - 1
    x_land_cells = board.lattice_land_masks[board.land[x]]
    # Look near x first: usually the open neighbours join up around the adjacent stones
    # within two steps, and x's landscape shows up there too.
    window = board.lattice_near[x] & open_after
    near = frontier = seeds[0]
    while frontier:
        frontier = (
            (
                (frontier << 1)
                | (frontier >> 1)
                | (frontier << w)
                | (frontier >> w)
                | (frontier << w1)
                | (frontier >> w1)
            )
            & window
            & ~near
        )
        near |= frontier
    if all(seed & near for seed in seeds):
        if not reduce_types or (invariant and near & x_land_cells):
            return []
        return _explore_one_part(board, rules, near, open_after, x_land_cells if invariant else 0)
    if len(seeds) == 1:
        return _explore_one_part(board, rules, seeds[0], open_after, x_land_cells if invariant else 0)
    # Parts that the window already joined grow as one.
    seeds = [near] + [seed for seed in seeds if not seed & near]
    if len(seeds) == 2:
        return _two_parts(board, rules, seeds[0], seeds[1], open_after, x_land_cells if invariant else 0)
    groups: list[list[int]] = [[seed, seed] for seed in seeds]  # [reached, frontier] per growing part
    while True:
        active = [g for g in groups if g[1]]
        if not active:
            break
        if len(groups) == 1:
            if not reduce_types:
                return []
            return _explore_one_part(board, rules, groups[0][0], open_after, x_land_cells if invariant else 0)
        if len(active) == 1 and not _is_area(board, rules, active[0][0]):
            # Split for sure (the others are complete parts); the big part stays open ground.
            return [board.from_lattice(g[0]) for g in groups if not g[1] and _is_area(board, rules, g[0])]
        for group in active:
            if not any(g is group for g in groups):
                continue  # merged into another group earlier in this round
            frontier = group[1]
            reached = group[0]
            frontier = (
                (
                    (frontier << 1)
                    | (frontier >> 1)
                    | (frontier << w)
                    | (frontier >> w)
                    | (frontier << w1)
                    | (frontier >> w1)
                )
                & open_after
                & ~reached
            )
            group[0] = reached = reached | frontier
            group[1] = frontier
            merged = [g for g in groups if g is not group and g[0] & reached]
            if merged:
                for other in merged:
                    group[0] |= other[0]
                    group[1] |= other[1]
                groups = [g for g in groups if not any(g is m for m in merged)]
    return [board.from_lattice(g[0]) for g in groups if _is_area(board, rules, g[0])]


def _two_parts(board: Board, rules: RuleSet, a: int, b: int, open_after: int, stop_cells: int) -> list[int]:
    """The areas to score when x's open neighbours form two groups ``a`` and ``b``.

    Both grow a layer at a time.  If they meet, it is one part (as
    :func:`_explore_one_part`); if one of them stops growing first, the zone is split.
    """
    w = board.lattice_width
    w1 = w - 1
    a_new, b_new = a, b
    while True:
        a_new = (
            ((a_new << 1) | (a_new >> 1) | (a_new << w) | (a_new >> w) | (a_new << w1) | (a_new >> w1))
            & open_after
            & ~a
        )
        a |= a_new
        if a & b:
            break
        b_new = (
            ((b_new << 1) | (b_new >> 1) | (b_new << w) | (b_new >> w) | (b_new << w1) | (b_new >> w1))
            & open_after
            & ~b
        )
        b |= b_new
        if a & b:
            break
        if not a_new or not b_new:
            # Split: one part is complete; finish the other (it may be an area too).
            done, other = (a, b) if not a_new else (b, a)
            parts = [board.from_lattice(done)] if _is_area(board, rules, done) else []
            return parts + _explore_one_part(board, rules, other, open_after, 0)
    if not rules.score_on_type_reduction:
        return []
    return _explore_one_part(board, rules, a | b, open_after, stop_cells)


def _explore_one_part(board: Board, rules: RuleSet, reached: int, open_after: int, stop_cells: int) -> list[int]:
    """Grows the single part containing ``reached``: ``[]`` once it is known to stay open
    ground (it touches ``stop_cells``, or shows 4 landscapes), else the complete area."""
    w = board.lattice_width
    w1 = w - 1
    unseen = list(board.lattice_land_masks)
    seen = 0
    frontier = reached
    count_water = rules.lake_is_landscape
    water = board.water_lands
    while True:
        if reached & stop_cells:
            return []
        found = [i for i, mask in enumerate(unseen) if mask and frontier & mask]
        if found:
            for i in found:
                unseen[i] = 0
                seen |= 1 << i
            t = seen.bit_count() if count_water else (seen & ~water).bit_count()
            if t >= 4:
                return []
        frontier = (
            (
                (frontier << 1)
                | (frontier >> 1)
                | (frontier << w)
                | (frontier >> w)
                | (frontier << w1)
                | (frontier >> w1)
            )
            & open_after
            & ~reached
        )
        if not frontier:
            return [board.from_lattice(reached)]
        reached |= frontier


def _is_area(board: Board, rules: RuleSet, lattice: int) -> bool:
    """Whether a zone (lattice bitset) has at most 3 counted landscapes."""
    return landscape_count(board, rules, _lattice_lands(board, lattice)) <= 3


def _score(
    board: Board,
    rules: RuleSet,
    parts: list[int],
    pioneers: tuple[int, ...],
    closed: int,
    points: tuple[int, ...],
    removed: tuple[int, ...],
    areas: tuple[ScoredArea, ...],
    turn: int,
) -> tuple[tuple[int, ...], int, tuple[int, ...], tuple[int, ...], tuple[ScoredArea, ...]]:
    """Scores and closes each area in ``parts`` (§4.3-4.4)."""
    pioneer_list = list(pioneers)
    point_list = list(points)
    removed_list = list(removed)
    new_areas = list(areas)
    for cells in parts:
        lands = board.lands_of(cells)
        t = landscape_count(board, rules, lands)
        value = cells.bit_count() * (4 - t)
        counts = tuple((own & cells).bit_count() for own in pioneer_list)
        top = max(counts)
        awards = [0] * len(counts)
        if top:
            leaders = [p for p, c in enumerate(counts) if c == top]
            share = value // len(leaders)
            for p in leaders:
                awards[p] = share
                point_list[p] += share
        for p, c in enumerate(counts):
            if c:
                pioneer_list[p] &= ~cells
                removed_list[p] += c
        closed |= cells
        landscape_ids = tuple(ls.id for i, ls in enumerate(board.landscapes) if lands >> i & 1)
        new_areas.append(ScoredArea(tuple(_cells(cells)), landscape_ids, t, value, counts, tuple(awards), turn))
    return tuple(pioneer_list), closed, tuple(point_list), tuple(removed_list), tuple(new_areas)
