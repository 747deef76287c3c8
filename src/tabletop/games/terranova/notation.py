"""Terra Nova notation: cell names, action text and the JSON view of a position.

Cells (``docs/notation.md``): a column letter for the axial column q (``a`` = the
smallest q on the map, then ``b``, ... ``z``, ``aa``) and a row number for r (``1`` = the
top row), as on a Hex board.  Columns run diagonally (down and to the left) on the
pointy-top drawing; the renderer labels them along the board's edge.

Actions::

    d4        placement of a pioneer on d4 (setup)
    d4-f4     move (slide) the pioneer on d4 to f4
    #e4       put a stone on e4
    pass      a turn with no possible action

Parsing is case-insensitive and ignores surrounding spaces; ``->`` is accepted for
``-`` and ``*e4``, ``@e4`` and ``P@e4`` for ``#e4``.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any, Final

from tabletop.core.errors import InvalidMoveError, count_of, reason_of, short_repr
from tabletop.games.terranova.board import MAX_CACHED_BOARDS, Board
from tabletop.games.terranova.messages import SAY
from tabletop.games.terranova.moves import PASS, Move, Pass, Place, Slide, Stone

if TYPE_CHECKING:
    from tabletop.games.terranova.state import State

_CELL_RE: Final = re.compile(r"([a-z]+)([0-9]+)")
_STONE_PREFIXES: Final = ("p@", "#", "*", "@")


def cell_name(board: Board, index: int) -> str:
    """The notation name of cell ``index`` (e.g. ``"d4"``).

    Raises:
        IndexError: if there is no such cell.
    """
    if not 0 <= index < board.num_cells:
        raise IndexError(f"no cell with index {index} (the board has {board.num_cells})")
    return board.names[index]


def parse_cell(board: Board, text: str) -> int:
    """The index of the cell named ``text`` (case-insensitive).

    Raises:
        InvalidMoveError: if ``text`` is not a cell name of this board.
    """
    key = text.strip().lower()
    index = board.name_index.get(key)
    if index is None:
        if not _CELL_RE.fullmatch(key):
            raise InvalidMoveError(SAY("bad_cell_name", text=short_repr(text)))
        raise InvalidMoveError(SAY("unknown_cell", text=short_repr(text), map=repr(board.map.id)))
    return index


def cell_labels(board: Board) -> dict[str, dict[int, str]]:
    """What the renderer writes along the edges: ``{"columns": {q: "a"}, "rows": {r: "1"}}``."""
    columns = {q: board.names[i].rstrip("0123456789") for i, (q, _) in enumerate(board.coords)}
    rows = {r: str(r - board.r_min + 1) for _, r in board.coords}
    return {"columns": dict(sorted(columns.items())), "rows": dict(sorted(rows.items()))}


def parse_move(board: Board, text: str) -> Move:
    """Reads an action in Terra Nova notation.

    Raises:
        InvalidMoveError: quoting ``text`` if it is not a well-formed action on ``board``.
    """
    if not isinstance(text, str):
        raise InvalidMoveError(SAY("not_move_text", text=short_repr(text)))
    key = text.strip().lower().replace("->", "-").replace(" ", "")
    if key == "pass":
        return PASS
    try:
        for prefix in _STONE_PREFIXES:
            if key.startswith(prefix):
                return board.stone_moves[parse_cell(board, key[len(prefix) :])]
        if "-" in key:
            parts = key.split("-")
            if len(parts) != 2:
                raise InvalidMoveError(SAY("two_cells"))
            src, dst = parse_cell(board, parts[0]), parse_cell(board, parts[1])
            move = board.slide(src, dst)
            # Not a straight line: still a well-formed move, rejected by the rules with a reason.
            return move if move is not None else Slide(src, dst, f"{board.names[src]}-{board.names[dst]}")
        return board.place_moves[parse_cell(board, key)]
    except InvalidMoveError as exc:
        # The English text keeps the whole story; the coded reason is the inner one.
        raise InvalidMoveError(f"cannot read move {text!r}: {exc}", reason=reason_of(exc)) from None


def move_to_str(board: Board, move: object) -> str:
    """The notation of ``move`` on ``board``.

    Raises:
        ValueError: if ``move`` is not a Terra Nova move of this board.
    """
    names = board.names
    try:
        if isinstance(move, Slide):
            return f"{names[move.src]}-{names[move.dst]}"
        if isinstance(move, Stone):
            return "#" + names[move.cell]
        if isinstance(move, Place):
            return names[move.cell]
    except IndexError:
        raise ValueError(f"{move!r} names a cell that is not on map {board.map.id!r}") from None
    if isinstance(move, Pass):
        return "pass"
    raise ValueError(f"{move!r} is not a Terra Nova move")


def _names(board: Board, mask: int) -> list[str]:
    return [board.names[i] for i in board.cells_of(mask)]


@functools.lru_cache(maxsize=MAX_CACHED_BOARDS)
def _board_json(board: Board) -> tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]]:
    """The cells and landscapes of :func:`state_to_json`, which depend on the board alone
    (built once a board; callers must not change the entries)."""
    cells = tuple(
        {"name": board.names[i], "q": q, "r": r, "landscape": board.landscapes[board.land[i]].id}
        for i, (q, r) in enumerate(board.coords)
    )
    landscapes = tuple(
        {"id": ls.id, "name": ls.name, "water": ls.water, "colour": ls.color, "pattern": ls.pattern}
        for ls in board.landscapes
    )
    return cells, landscapes


def state_to_json(state: State) -> dict[str, Any]:
    """Everything a client needs to draw and play the position.

    Keys: ``game``, ``map`` (id, name), ``cells`` (name, q, r, landscape per index),
    ``landscapes``, ``players`` (seat, colour, pioneers, in_hand, removed, score),
    ``pioneers`` (cell names per seat), ``stones``, ``closed``, ``areas`` (scored areas
    with their awards), ``scores``, ``supply``, ``current_player``, ``phase``, ``turn``,
    ``ply``, ``progress`` (action number, actions taken and left, movers with their start
    cells, pending return), ``stall``, ``start_player``, ``rules`` and ``outcome``.
    """
    context = state.context
    board = context.board
    cells, landscapes = _board_json(board)
    progress: dict[str, Any] = {
        "action": state.action + 1 if state.phase == "play" else None,
        "actions_taken": state.action,
        "actions_left": state.actions_left,
        "movers": [{"cell": board.names[cur], "start": board.names[start]} for cur, start in state.movers],
        "pending_return": board.names[state.pending_return] if state.pending_return >= 0 else None,
    }
    return {
        "game": "terranova",
        "map": {"id": board.map.id, "name": board.map.name},
        # New lists of the board's own entries: building 168 cells for every position was
        # most of this function's time (and a server sends them once per client).
        "cells": list(cells),
        "landscapes": list(landscapes),
        "players": [
            {
                "seat": p,
                "colour": context.seat_colors[p],
                "pioneers": _names(board, own),
                "in_hand": state.in_hand[p],
                "removed": state.removed[p],
                "score": state.points[p],
            }
            for p, own in enumerate(state.pioneers)
        ],
        "pioneers": [_names(board, own) for own in state.pioneers],
        "stones": _names(board, state.stones),
        "closed": _names(board, state.closed),
        "areas": [
            {
                "cells": [board.names[i] for i in area.cells],
                "size": area.size,
                "landscapes": list(area.landscapes),
                "t": area.t,
                "value": area.value,
                "counts": list(area.counts),
                "awards": list(area.awards),
                "turn": area.turn,
            }
            for area in state.areas
        ],
        "scores": list(state.points),
        "supply": state.supply,
        "current_player": state.current_player,
        "phase": state.phase,
        "turn": state.turn,
        "ply": state.ply,
        "progress": progress,
        "stall": state.stall,
        "start_player": state.start_player,
        "rules": context.rules.to_json(),
        "outcome": state.result.to_json() if state.result is not None else None,
    }


def summary(state: State) -> str:
    """A one-line description of the position."""
    context = state.context
    scores = "-".join(str(s) for s in state.points)
    if state.result is not None:
        return f"Terra Nova {context.num_players}p over ({state.result.termination}), scores {scores}"
    who = context.seat_colors[state.current_player]
    if state.phase == "placement":
        left = count_of(sum(state.in_hand), "pioneer")
        return f"Terra Nova {context.num_players}p placement, {who} to place, {left} left"
    return (
        f"Terra Nova {context.num_players}p turn {state.turn}, {who} to act "
        f"(action {state.action + 1} of 3), supply {state.supply}, scores {scores}"
    )
