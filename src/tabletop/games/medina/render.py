"""Pictures of a Medina position: terminal text and a standalone SVG document."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tabletop.games.medina.board import (
    FILES,
    HEIGHT,
    SQUARE_NAMES,
    TOWER_SQUARES,
    TOWERS,
    WALL_SPACES,
    WIDTH,
    square,
    squares_of,
)
from tabletop.games.medina.moves import PALACE_COLORS, SLOT_NAMES
from tabletop.games.medina.state import SEAT_COLORS, START
from tabletop.render.svg import SvgImage, to_svg_image

if TYPE_CHECKING:
    from tabletop.core.protocol import Move as ProtocolMove
    from tabletop.games.medina.state import State

PLAYER_FILL = ("#d62828", "#1d4ed8", "#2a9d3c", "#e9c21b")
PALACE_FILL = ("#9aa0a6", "#2b2b2b", "#8b5a2b", "#f28c28")
PALACE_TEXT = ("#000000", "#ffffff", "#ffffff", "#000000")
PALACE_LETTER = ("G", "K", "B", "O")
"""One letter per palace colour (gray, blacK, Brown, Orange): the second cue besides colour."""

_ANSI_PALACE = ("\x1b[37m", "\x1b[90m", "\x1b[33m", "\x1b[38;5;208m")
_ANSI_PLAYER = ("\x1b[31m", "\x1b[34m", "\x1b[32m", "\x1b[93m")
_ANSI_RESET = "\x1b[0m"


def _cells(s: State) -> dict[int, tuple[str, int, int]]:
    """Per occupied square: (kind, colour index, owner) for drawing."""
    cells: dict[int, tuple[str, int, int]] = {}
    for pal in s.palaces:
        for sq in squares_of(pal.pieces):
            # owner >= 0 on every piece of an owned palace; the dome square is marked with -2 - owner.
            cells[sq] = ("palace", pal.color, (-2 - pal.owner if sq == pal.dome else pal.owner))
        for sq in squares_of(pal.stables):
            cells[sq] = ("stable", pal.color, -1)
    for sq in squares_of(s.merchants):
        cells[sq] = ("merchant", 1 if s.chain >> sq & 1 else 0, -1)
    for sq in squares_of(s.walls):
        cells[sq] = ("wall", 0, -1)
    return cells


def render_text(s: State, *, color: bool = False) -> str:
    """The city with coordinates, supplies and tile holders.

    Symbols: palace pieces ``g k b o`` (gray, black, brown, orange), a domed piece shows the
    capital letter and the owner's seat number (``G2``), ``s`` stable, ``m`` merchant
    (``M`` in the active chain), ``#`` wall piece, ``_`` empty wall space, ``.`` empty
    building square, ``T1``..``T4`` towers with their tile value.
    """
    values = s.rules.tower_value_tuple()
    cells = _cells(s)
    lines = [("     " + "".join(f"{f:<3}" for f in FILES)).rstrip()]
    for row in range(HEIGHT - 1, -1, -1):
        out = [f"{row + 1:>3}  "]
        for col in range(WIDTH):
            sq = square(col, row)
            text, ansi = _cell_text(s, sq, cells, values)
            out.append(f"{ansi}{text:<3}{_ANSI_RESET}" if color and ansi else f"{text:<3}")
        lines.append("".join(out).rstrip())
    lines.append("")
    lines.append(_status_line(s))
    for seat in range(s.num_players):
        sup = ", ".join(f"{name} {s.supply[seat * 8 + i]}" for i, name in enumerate(SLOT_NAMES))
        label = f"P{seat + 1} ({SEAT_COLORS[seat]})"
        if color:
            label = f"{_ANSI_PLAYER[seat]}{label}{_ANSI_RESET}"
        lines.append(f"{label}: {sup}; score {s.scores()[seat]}")
    tiles = [f"{PALACE_COLORS[c]}({c + 1}): {_who(h)}" for c, h in enumerate(s.palace_tiles)]
    lines.append("palace tiles: " + ", ".join(tiles))
    towers = [f"{SQUARE_NAMES[sq]}({values[t]}): {_who(s.tower_tiles[t])}" for t, sq in enumerate(TOWER_SQUARES)]
    lines.append("tower tiles: " + ", ".join(towers))
    return "\n".join(lines)


def _who(holder: int) -> str:
    return f"P{holder + 1}" if holder >= 0 else "-"


def _status_line(s: State) -> str:
    if s.is_terminal():
        return f"game over after {s.ply} moves; scores {list(s.scores())}"
    if s.phase == START:
        return f"P{s.current_player + 1} places the starting merchant"
    extra = " (dome obligation)" if s.obligation else ""
    return f"turn {s.turn}: P{s.current_player + 1} to place, {s.placements_left} placement(s) left{extra}"


def _cell_text(s: State, sq: int, cells: dict[int, tuple[str, int, int]], values: Sequence[int]) -> tuple[str, str]:
    bit = 1 << sq
    if TOWERS & bit:
        return f"T{values[TOWER_SQUARES.index(sq)]}", ""
    cell = cells.get(sq)
    if cell is None:
        return ("_" if WALL_SPACES & bit else "."), ""
    kind, col, owner = cell
    if kind == "palace":
        if owner <= -2:  # the dome
            return f"{PALACE_LETTER[col]}{-1 - owner}", _ANSI_PLAYER[-2 - owner]
        if owner >= 0:  # another piece of an owned palace
            return PALACE_LETTER[col], _ANSI_PLAYER[owner]
        return PALACE_LETTER[col].lower(), _ANSI_PALACE[col]
    if kind == "stable":
        return "s", _ANSI_PALACE[col]
    if kind == "merchant":
        return ("M" if col else "m"), ""
    return "#", ""


# --- SVG ---------------------------------------------------------------------------------------

CELL = 32
MARGIN = 24
PANEL = 250


def _xy(sq: int) -> tuple[int, int]:
    col, row = sq % WIDTH, sq // WIDTH
    return MARGIN + col * CELL, MARGIN + (HEIGHT - 1 - row) * CELL


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: object) -> ET.Element:
    e = ET.SubElement(parent, tag, {k.rstrip("_").replace("_", "-"): str(v) for k, v in attrs.items()})
    if text is not None:
        e.text = text
    return e


def render_svg(s: State, *, last_moves: Sequence[ProtocolMove] = ()) -> SvgImage:
    """The position as a standalone SVG document (board, pieces, tiles and a supply panel)."""
    values = s.rules.tower_value_tuple()
    width = 2 * MARGIN + WIDTH * CELL + PANEL
    height = 2 * MARGIN + HEIGHT * CELL + 20
    root = ET.Element("svg", {"width": str(width), "height": str(height), "viewBox": f"0 0 {width} {height}"})
    _el(root, "title", "Medina")
    _el(root, "rect", x=0, y=0, width=width, height=height, fill="#fbf7ee")
    board = _el(root, "g", font_family="sans-serif", text_anchor="middle")
    for col in range(WIDTH):
        x = MARGIN + col * CELL + CELL // 2
        _el(board, "text", FILES[col], x=x, y=MARGIN - 8, font_size=11)
        _el(board, "text", FILES[col], x=x, y=MARGIN + HEIGHT * CELL + 14, font_size=11)
    for row in range(HEIGHT):
        y = MARGIN + (HEIGHT - 1 - row) * CELL + CELL // 2 + 4
        _el(board, "text", str(row + 1), x=MARGIN // 2, y=y, font_size=11)
    cells = _cells(s)
    for sq in range(WIDTH * HEIGHT):
        x, y = _xy(sq)
        bit = 1 << sq
        if TOWERS & bit:
            t = TOWER_SQUARES.index(sq)
            holder = s.tower_tiles[t]
            _el(board, "rect", x=x + 1, y=y + 1, width=CELL - 2, height=CELL - 2, fill="#6b4f3a", rx=4)
            _el(board, "text", f"T{values[t]}", x=x + CELL // 2, y=y + 14, font_size=11, fill="#ffffff")
            if holder >= 0:
                _el(board, "circle", cx=x + CELL // 2, cy=y + 23, r=5, fill=PLAYER_FILL[holder], stroke="#ffffff")
            continue
        fill = "#e2d3ad" if WALL_SPACES & bit else "#f3e6c4"
        _el(board, "rect", x=x, y=y, width=CELL, height=CELL, fill=fill, stroke="#c8b88f", stroke_width=0.5)
        cell = cells.get(sq)
        if cell is None:
            continue
        kind, col, owner = cell
        cx, cy = x + CELL // 2, y + CELL // 2
        if kind == "palace":
            _el(board, "rect", x=x + 2, y=y + 2, width=CELL - 4, height=CELL - 4, fill=PALACE_FILL[col])
            _el(board, "text", PALACE_LETTER[col], x=cx, y=cy + 4, font_size=11, fill=PALACE_TEXT[col])
            if owner <= -2:  # the dome, in its owner's colour
                seat = -2 - owner
                _el(board, "circle", cx=cx, cy=cy, r=10, fill=PLAYER_FILL[seat], stroke="#000000", stroke_width=1)
                _el(board, "text", f"{PALACE_LETTER[col]}{seat + 1}", x=cx, y=cy + 4, font_size=9, fill="#000000")
            elif owner >= 0:  # owner's colour as a frame on the other pieces
                _el(
                    board,
                    "rect",
                    x=x + 3,
                    y=y + 3,
                    width=CELL - 6,
                    height=CELL - 6,
                    fill="none",
                    stroke=PLAYER_FILL[owner],
                    stroke_width=2,
                )
        elif kind == "stable":
            _el(board, "rect", x=x + 5, y=y + 5, width=CELL - 10, height=CELL - 10, fill="#c9a46b", stroke="#5a3d1e")
            _el(board, "text", "S", x=cx, y=cy + 4, font_size=11, fill="#5a3d1e")
        elif kind == "merchant":
            _el(board, "circle", cx=cx, cy=cy, r=8, fill="#ffffff", stroke="#333333", stroke_width=3 if col else 1)
            _el(board, "text", "m", x=cx, y=cy + 4, font_size=10)
        else:
            _el(board, "rect", x=x + 2, y=y + 2, width=CELL - 4, height=CELL - 4, fill="#7a7a7a", stroke="#444444")
            _el(board, "text", "#", x=cx, y=cy + 4, font_size=11, fill="#ffffff")
    for move in last_moves:
        target = getattr(move, "square", None)
        if isinstance(target, int) and 0 <= target < WIDTH * HEIGHT:
            x, y = _xy(target)
            _el(
                board,
                "rect",
                x=x + 1,
                y=y + 1,
                width=CELL - 2,
                height=CELL - 2,
                fill="none",
                stroke="#e00000",
                stroke_width=2,
            )
    _panel(root, s, values)
    return to_svg_image(root)


def _panel(root: ET.Element, s: State, values: Sequence[int]) -> None:
    """The supply panel: per seat supply and score, then the tile holders."""
    x0 = 2 * MARGIN + WIDTH * CELL
    g = _el(root, "g", font_family="sans-serif", font_size=11)
    y = MARGIN + 4
    _el(g, "text", _status_line(s), x=MARGIN, y=2 * MARGIN + HEIGHT * CELL + 12, font_size=11)
    scores = s.scores()
    for seat in range(s.num_players):
        marker = " ◀" if seat == s.current_player else ""
        _el(g, "rect", x=x0, y=y, width=12, height=12, fill=PLAYER_FILL[seat])
        _el(g, "text", f"P{seat + 1} {SEAT_COLORS[seat]}: {scores[seat]} points{marker}", x=x0 + 18, y=y + 10)
        sup = s.supply[seat * 8 : seat * 8 + 8]
        _el(g, "text", "palace " + " ".join(f"{PALACE_LETTER[c]}{sup[c]}" for c in range(4)), x=x0 + 18, y=y + 24)
        _el(g, "text", f"dome {sup[4]}  stable {sup[5]}  merchant {sup[6]}  wall {sup[7]}", x=x0 + 18, y=y + 38)
        y += 52
    _el(g, "text", "Palace tiles", x=x0, y=y + 10, font_weight="bold")
    y += 16
    for c in range(4):
        holder = s.palace_tiles[c]
        _el(g, "rect", x=x0, y=y, width=14, height=14, fill=PALACE_FILL[c])
        _el(g, "text", PALACE_LETTER[c], x=x0 + 7, y=y + 11, fill=PALACE_TEXT[c], text_anchor="middle")
        _el(g, "text", f"{PALACE_COLORS[c]} ({c + 1}): {_holder_name(holder)}", x=x0 + 20, y=y + 11)
        y += 18
    _el(g, "text", "Tower tiles", x=x0, y=y + 10, font_weight="bold")
    y += 16
    for t, sq in enumerate(TOWER_SQUARES):
        holder = s.tower_tiles[t]
        _el(g, "rect", x=x0, y=y, width=14, height=14, fill="#6b4f3a")
        _el(g, "text", f"{SQUARE_NAMES[sq]} ({values[t]}): {_holder_name(holder)}", x=x0 + 20, y=y + 11)
        y += 18


def _holder_name(holder: int) -> str:
    return f"P{holder + 1} ({SEAT_COLORS[holder]})" if holder >= 0 else "supply"
