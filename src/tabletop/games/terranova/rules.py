"""Terra Nova rules: applying moves, turn flow and the end of the game.

Pure functions over :class:`~tabletop.games.terranova.state.State`: :func:`apply` checks
a move (reasons from ``moves.py``), builds the next state and scores the areas a stone
closes (``scoring.py``).  Legal move generation lives in ``moves.py``.  The hot path
(kind-first random play asks for the legal kinds, then the moves of one kind, then
applies one) works on int bitsets in the board's lattice and lines layouts; see
``docs/terranova.md`` for the measured speed.

Turn flow (spec §3.8): a turn is 1 to 3 actions by one player, action 1 a move.  After
each action the turn goes on while an action is possible, so a turn that cannot continue
ends by itself; a player who cannot move at turn start has only the pass.  End checks
(§5) run after every turn and once after setup.
"""

from __future__ import annotations

import random
from typing import Final

from tabletop.core.errors import ConfigError, IllegalMoveError
from tabletop.core.outcome import Outcome
from tabletop.core.protocol import TERMINAL, GameConfig
from tabletop.core.state_base import draft, freeze
from tabletop.games.terranova.board import Board, flood_fill
from tabletop.games.terranova.moves import (
    Pass,
    Place,
    Slide,
    Stone,
    has_slide,
    illegal_reason,
    slide_reason,
    stone_reason,
    stone_targets,
)
from tabletop.games.terranova.scoring import landscape_count, parts_after_stone, score_parts, zones
from tabletop.games.terranova.state import (
    OVER,
    PIONEERS_PER_PLAYER,
    PLACEMENT,
    PLAY,
    TOTAL_STONES,
    Context,
    State,
    assemble,
)

# Termination reasons (Outcome.termination), in the order of the end checks (§5.2).
BOARD_DIVIDED: Final = "board_divided"  # E1
ONE_MOBILE_PLAYER: Final = "one_mobile_player"  # E2
PLAYER_ELIMINATED: Final = "player_eliminated"  # E3
STONES_EXHAUSTED: Final = "stones_exhausted"  # E4
STALL: Final = "stall"  # E5


# ---------------------------------------------------------------------------------
# Setup


def seeded_start(config: GameConfig, num_players: int) -> int | None:
    """The start player ``config`` names, or the one its seed draws; ``None`` without
    either (spec §1.3: the start player is drawn)."""
    if config.start_player is not None:
        return config.start_player
    if config.seed is None:
        return None
    return random.Random(config.seed).randrange(num_players)


def initial_state(context: Context) -> State:
    """The empty board in the placement phase (spec §1.3), the start player of the
    context's config (named, or drawn by its seed) to place first.

    Raises:
        ConfigError: if the config names neither a start player nor a seed
            (``TerraNovaGame.new_initial_state`` fills one in).
    """
    n = context.num_players
    start = seeded_start(context.config, n)
    if start is None:
        raise ConfigError("a Terra Nova game needs a start player or a seed to draw one")
    return assemble(
        context,
        {
            "current_player": start,
            "phase": PLACEMENT,
            "pioneers": (0,) * n,
            "stones": 0,
            "closed": 0,
            "supply": TOTAL_STONES,
            "points": (0,) * n,
            "in_hand": (PIONEERS_PER_PLAYER[n],) * n,
            "removed": (0,) * n,
            "areas": (),
            "action": 0,
            "movers": (),
            "moves_made": 0,
            "pending_return": -1,
            "turn_stones": 0,
            "turn": 0,
            "ply": 0,
            "stall": 0,
            "start_player": start,
            "result": None,
        },
    )


# ---------------------------------------------------------------------------------
# Applying moves


def apply(state: State, move: object) -> State:
    """The state after ``move``.

    Raises:
        IllegalMoveError: saying why, if ``move`` is not legal (``state`` is unchanged).
    """
    if isinstance(move, Slide):
        reason = slide_reason(state, state.context.board, move)
        if reason is None:
            return _apply_slide(state, move)
    elif isinstance(move, Stone):
        reason = stone_reason(state, state.context.board, move)
        if reason is None:
            return _apply_stone(state, move.cell)
    else:
        reason = illegal_reason(state, move)
        if reason is None:
            if isinstance(move, Place):
                return _apply_place(state, move.cell)
            return _finish_turn(state, placed_stone=False)
    text = str(move) if isinstance(move, Place | Slide | Stone | Pass) else repr(move)
    raise IllegalMoveError(f"{text!r}: {reason}", reason=reason)


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
    following = draft(state)  # setup: no turn progress, stall and turn stones to reset
    following.current_player = state.start_player if done else (p + 1) % n
    following.phase = PLAY if done else PLACEMENT
    following.pioneers = tuple(pioneers)
    following.in_hand = tuple(in_hand)
    following.turn = state.turn + 1
    following.ply = state.ply + 1
    following.line_pioneers = tuple(lines)
    following.filled = state.filled | (1 << cell)
    following.line_free = state.line_free & ~line_bit
    following = freeze(following)
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
    following = draft(state)
    following.pioneers = tuple(pioneers)
    following.action = action
    following.movers = tuple(movers)
    following.moves_made = state.moves_made + 1
    following.pending_return = pending
    following.ply = state.ply + 1
    following.line_pioneers = tuple(lines)
    following.filled = state.filled ^ ((1 << src) | (1 << dst))
    following.line_free = state.line_free ^ step
    following = freeze(following)
    # After a move a stone is always possible while stones remain: the cell the mover
    # just left (or passed over last) is empty and next to it (§3.3 note).
    if action < 3 and (state.supply > 0 or pending >= 0 or has_slide(following)):
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
        parts = parts_after_stone(board, rules, cell, board.lattice_all & ~blocked)
        if parts:
            pioneers, closed, points, removed, areas = score_parts(
                board, rules, parts, pioneers, closed, points, removed, areas, state.turn
            )
            lines = tuple(board.to_lines(own) for own in pioneers)
            for part in parts:
                blocked |= board.to_lattice(part)
                free &= ~board.to_lines(part)
            own = pioneers[state.current_player]
            movers = tuple(m for m in movers if own >> m[0] & 1)
    action = state.action + 1
    following = draft(state)
    following.pioneers = pioneers
    following.stones = stones
    following.closed = closed
    following.supply = state.supply - 1
    following.points = points
    following.removed = removed
    following.areas = areas
    following.action = action
    following.movers = movers
    following.pending_return = -1
    following.ply = state.ply + 1
    following.line_pioneers = lines
    following.lattice_blocked = blocked
    following.filled = state.filled | (1 << cell) | closed
    following.line_free = free
    following.turn_stones = state.turn_stones | (1 << cell)
    following = freeze(following)
    if action < 3 and (stone_targets(following, board.all_cells & ~following.filled) or has_slide(following)):
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
        open_cells = board.all_cells & ~state.stones & ~closed
        parts = [
            zone
            for zone in zones(board, open_cells)
            if landscape_count(board, rules, board.lands_of(zone)) <= 3
            and (rules.score_on_type_reduction or _split_off(board, zone, open_cells, state.turn_stones))
        ]
        if parts:
            pioneers, closed, points, removed, areas = score_parts(
                board, rules, parts, pioneers, closed, points, removed, areas, state.turn
            )
            lines = tuple(board.to_lines(own) for own in pioneers)
            blocked = board.to_lattice(state.stones | closed)
            free &= ~board.to_lines(closed)
    following = draft(state)
    following.current_player = (state.current_player + 1) % context.num_players
    following.phase = PLAY
    following.pioneers = pioneers
    following.closed = closed
    following.points = points
    following.removed = removed
    following.areas = areas
    following.action = 0
    following.movers = ()
    following.moves_made = 0
    following.pending_return = -1
    following.turn_stones = 0
    following.turn = state.turn + 1
    if not state.action:
        following.ply = state.ply + 1  # a pass is a move of its own
    following.stall = 0 if placed_stone else state.stall + 1
    following.line_pioneers = lines
    following.lattice_blocked = blocked
    following.filled = state.filled | closed
    following.line_free = free
    following = freeze(following)
    termination = _termination(following)
    if termination is not None:
        return _game_over(following, termination)
    return following


def _split_off(board: Board, zone: int, open_cells: int, turn_stones: int) -> bool:
    """Whether this turn's stones cut ``zone`` off from a larger zone.

    The zone it belonged to when the turn began is found by a flood fill over the open
    ground of then (now plus this turn's stones; no area closes during a turn under
    end-of-turn scoring).  If that zone still has open ground outside ``zone``, it was
    split.  Without type reduction (A18) only such newly separated parts are checked: a
    zone that this turn's stones only made smaller is not.
    """
    then = board.to_lattice(open_cells | turn_stones)
    old_zone = board.from_lattice(flood_fill(board.to_lattice(zone), then, board.lattice_width))
    return bool(old_zone & open_cells & ~zone)


def _game_over(state: State, termination: str) -> State:
    return state.replace(
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
        reach = board.from_lattice(flood_fill(empty, board.lattice_all & ~state.lattice_blocked, board.lattice_width))
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
