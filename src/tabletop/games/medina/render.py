"""Pictures of a Medina position: terminal text and a standalone SVG document."""

from __future__ import annotations

import functools
import math
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
from tabletop.render.svg import (
    INK,
    MARK_COLOR,
    Recent,
    SvgImage,
    add,
    board_root,
    embed,
    fragment,
    last_turns,
    mark_recent,
    num,
    placeholder,
    points,
    seat_marker,
    shade,
    to_svg_image,
)

if TYPE_CHECKING:
    from tabletop.core.protocol import Move as ProtocolMove
    from tabletop.games.medina.state import State

PALACE_FILL = ("#a9adb1", "#3a3a3a", "#8b5a2b", "#f7b560")
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

CELL = 44  # a square is MIN_TAP units: tappable at the drawing's natural size
EDGE = 26  # room for the coordinates on every edge
PANEL = 270
LEGEND_ITEM = 200
LEGEND_ROW = 30
SAND = "#ecdcb4"
STREET = "#e3cf9f"
RING = "#bfae8a"
STONE = "#8c8273"
STABLE_FILL = "#a9773f"
MERCHANT_FILL = "#7b4f9d"
MERCHANT_ACTIVE = "#cc79a7"
PALACE_NAMES = PALACE_COLORS
PALACE_MOTIF = (None, "M0,0 L8,8 M8,0 L0,8", "M0,2.5 H8 M0,6.5 H8", "M0,8 L8,0")
"""A texture per palace colour, the second cue besides colour (plain, cross, planks, diagonal)."""


def _xy(sq: int) -> tuple[int, int]:
    col, row = sq % WIDTH, sq // WIDTH
    return EDGE + col * CELL, EDGE + (HEIGHT - 1 - row) * CELL


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: object) -> ET.Element:
    return add(parent, tag, text, **attrs)


def render_board(s: State, *, history: Sequence[tuple[int, ProtocolMove]] = (), first_ply: int = 0) -> SvgImage:
    """The city alone, as the web page shows it (the one drawing of a position).

    Palaces are buildings in their colour (each colour with its own texture), a dome in
    its owner's colour crowns an owned palace, stables are huts, merchants stand along
    their lane, wall pieces sit on the ring and the four corner towers show their value
    and holder.  Coordinates run along every edge, a legend sits below, and the last turn
    of every seat (:func:`~tabletop.render.svg.last_turns` of ``history``) is marked and
    tagged for the page's animation (see :mod:`tabletop.render.svg`).

    Args:
        s: the position.
        history: ``(seat, move)`` of the actions before ``s``, oldest first.
        first_ply: the ply of ``history[0]``.
    """
    return to_svg_image(*_board(s, last_turns(history, first_ply)))


def render_svg(s: State, *, last_moves: Sequence[ProtocolMove] = ()) -> SvgImage:
    """The position as a standalone SVG document: :func:`render_board`'s city and a supply panel."""
    seat = -1  # who played ``last_moves`` is not known here
    board, fragments = _board(s, [Recent(i, seat, m) for i, m in enumerate(last_moves)])
    board_width, board_height = float(board.get("width", "0")), float(board.get("height", "0"))
    width = board_width + PANEL
    height = max(board_height, 120 + 56 * s.num_players + 18 * 10)
    root = ET.Element("svg", {"width": num(width), "height": num(height), "viewBox": f"0 0 {num(width)} {num(height)}"})
    _el(root, "title", "Medina")
    _el(root, "rect", x=0, y=0, width=num(width), height=num(height), fill="#fbf7ee")
    embed(root, board, 0, 0)
    _panel(root, s, s.rules.tower_value_tuple(), board_width + 8)
    return to_svg_image(root, fragments)


_CITY_WIDTH = 2 * EDGE + WIDTH * CELL
_CITY_HEIGHT = 2 * EDGE + HEIGHT * CELL


def _legend_entries() -> list[tuple[str, str]]:
    out = [(f"palace-{c}", f"{name} palace") for c, name in enumerate(PALACE_NAMES)]
    out += [
        ("dome", "dome (owner's colour)"),
        ("stable", "stable"),
        ("merchant", "merchant"),
        ("merchant-active", "merchant, active lane"),
        ("wall", "wall piece"),
        ("tower", "tower (tile value)"),
        ("mark", "last turn"),
    ]
    return out


_PER_ROW = max(1, (_CITY_WIDTH - 16) // LEGEND_ITEM)
_LEGEND_HEIGHT = 14 + LEGEND_ROW * ((len(_legend_entries()) + _PER_ROW - 1) // _PER_ROW)


@functools.lru_cache(maxsize=1)
def _fragments() -> dict[str, str]:
    """The parts of the city that never change, serialised once (see ``to_svg_image``)."""
    defs = ET.Element("defs")
    for c, motif in enumerate(PALACE_MOTIF):
        pattern = _el(defs, "pattern", id=f"palace-{c}", width=8, height=8, patternUnits="userSpaceOnUse")
        _el(pattern, "rect", width=8, height=8, fill=PALACE_FILL[c])
        if motif:
            ink = "#bbbbbb" if c == 1 else "#000000"
            _el(pattern, "path", d=motif, stroke=ink, stroke_opacity=0.45, stroke_width=1.2)
    sand = _el(defs, "pattern", id="sand", width=22, height=22, patternUnits="userSpaceOnUse")
    _el(sand, "rect", width=22, height=22, fill=SAND)
    _el(sand, "path", d="M3 5 h2 M14 9 h2 M8 17 h2 M18 19 h1", stroke="#c9b07a", stroke_width=1.2)
    dome = _el(defs, "radialGradient", id="dome-light", cx=0.35, cy=0.3, r=0.75)
    _el(dome, "stop", offset=0, stop_color="#ffffff", stop_opacity=0.75)
    _el(dome, "stop", offset=0.6, stop_color="#ffffff", stop_opacity=0)
    ground = ET.Element("g", {"class": "cells"})
    _el(ground, "rect", class_="city-ground", x=EDGE, y=EDGE, width=WIDTH * CELL, height=HEIGHT * CELL, fill=RING, rx=6)
    for sq in range(WIDTH * HEIGHT):
        x, y = _xy(sq)
        bit = 1 << sq
        kind = "tower" if TOWERS & bit else "wall-space" if WALL_SPACES & bit else "building"
        cell = _el(ground, "g", class_=f"cell {kind}", data_cell=SQUARE_NAMES[sq], role="button")
        _el(cell, "title", f"{SQUARE_NAMES[sq]} {kind.replace('-', ' ')}")
        if kind == "building":
            _el(cell, "rect", class_="sq", x=x, y=y, width=CELL, height=CELL, fill="url(#sand)", stroke=STREET)
        else:
            _el(cell, "rect", class_="sq", x=x, y=y, width=CELL, height=CELL, fill=RING, stroke="#a8987a")
        _el(cell, "rect", class_="hl", x=x + 3, y=y + 3, width=CELL - 6, height=CELL - 6, rx=5, fill="none")
    coords = ET.Element("g", {"class": "coords", "font-size": "14", "font-weight": "bold", "fill": "#5a4a2e"})
    coords.set("text-anchor", "middle")
    coords.set("pointer-events", "none")
    for col in range(WIDTH):
        x = EDGE + col * CELL + CELL // 2
        _el(coords, "text", FILES[col], x=x, y=EDGE - 8)
        _el(coords, "text", FILES[col], x=x, y=EDGE + HEIGHT * CELL + 19)
    for row in range(HEIGHT):
        y = EDGE + (HEIGHT - 1 - row) * CELL + CELL // 2 + 5
        _el(coords, "text", str(row + 1), x=EDGE // 2, y=y)
        _el(coords, "text", str(row + 1), x=EDGE + WIDTH * CELL + EDGE // 2, y=y)
    legend = ET.Element("g", {"class": "legend", "font-size": "13", "fill": "#222222", "pointer-events": "none"})
    for k, (kind, text) in enumerate(_legend_entries()):
        x = 12 + (k % _PER_ROW) * LEGEND_ITEM
        y = _CITY_HEIGHT + 8 + (k // _PER_ROW) * LEGEND_ROW
        entry = _el(legend, "g", class_="legend-entry", data_kind=kind)
        _legend_icon(entry, kind, x, y)
        _el(entry, "text", text, x=x + 30, y=y + 17)
    return {"md-under": fragment(defs) + fragment(ground), "md-over": fragment(coords) + fragment(legend)}


def _legend_icon(parent: ET.Element, kind: str, x: float, y: float) -> None:
    size = 24
    if kind.startswith("palace-"):
        _building(parent, int(kind[7:]), x, y, size, -1)
    elif kind == "dome":
        _el(parent, "rect", x=x, y=y, width=size, height=size, fill="url(#palace-0)")
        _dome(parent, 1, "red", x, y, size)
    elif kind == "stable":
        _stable(parent, x, y, size)
    elif kind.startswith("merchant"):
        _merchant(parent, x, y, size, kind.endswith("active"))
    elif kind == "wall":
        _el(parent, "rect", x=x, y=y, width=size, height=size, fill=RING)
        _wall(parent, x, y, size, horizontal=True)
    elif kind == "tower":
        _tower(parent, x + size / 2, y + size / 2, size * 0.38, "4")
    else:
        _el(parent, "rect", x=x + 1, y=y + 1, width=size - 2, height=size - 2, rx=4, fill="none")
        parent[-1].set("stroke", MARK_COLOR)
        parent[-1].set("stroke-width", "3.5")


def _building(parent: ET.Element, color: int, x: float, y: float, size: float, owner: int) -> ET.Element:
    """A palace piece: a block in its colour, lit on top and shaded on its south face."""
    g = _el(parent, "g", class_=f"palace {PALACE_NAMES[color]}")
    _el(g, "rect", x=x + 2, y=y + 2, width=size - 4, height=size - 4, rx=2, fill=f"url(#palace-{color})")
    _el(g, "rect", x=x + 2, y=y + size * 0.72, width=size - 4, height=size * 0.28 - 2, fill="#000000", opacity=0.28)
    _el(
        g,
        "path",
        d=f"M{num(x + 4)} {num(y + 4)} h{num(size - 8)}",
        stroke="#ffffff",
        stroke_opacity=0.55,
        stroke_width=2,
    )
    _el(g, "rect", x=x + 2, y=y + 2, width=size - 4, height=size - 4, rx=2, fill="none", stroke=INK, stroke_width=1)
    return g


def _dome(parent: ET.Element, seat: int, color: str, x: float, y: float, size: float) -> ET.Element:
    """The owner's dome: a round roof in the seat's colour, with the seat's shape on top."""
    g = _el(parent, "g", class_=f"dome p{seat}")
    cx, cy, r = x + size / 2, y + size * 0.55, size * 0.27
    _el(g, "circle", cx=cx, cy=cy, r=r, fill=shade(color), stroke=INK, stroke_width=1.5)
    _el(g, "circle", cx=cx, cy=cy, r=r, fill="url(#dome-light)")
    seat_marker(g, seat, color, cx, cy - r - 1, size * 0.11)
    return g


def _stable(parent: ET.Element, x: float, y: float, size: float) -> ET.Element:
    """A stable: a small hut with a pitched roof and a door."""
    g = _el(parent, "g", class_="stable")
    w, left, top = size * 0.62, x + size * 0.19, y + size * 0.42
    _el(g, "rect", x=left, y=top, width=w, height=size * 0.42, fill=STABLE_FILL, stroke=INK, stroke_width=1)
    roof = [(left - 3, top), (x + size / 2, y + size * 0.14), (left + w + 3, top)]
    _el(g, "polygon", points=points(roof), fill="#6e4520", stroke=INK, stroke_width=1)
    door = f"M{num(x + size / 2 - 4)} {num(top + size * 0.42)} v-8 a4 4 0 0 1 8 0 v8 z"
    _el(g, "path", d=door, fill="#3b2410")
    return g


def _merchant(parent: ET.Element, x: float, y: float, size: float, active: bool) -> ET.Element:
    """A merchant: a small robed figure (the active lane's are lighter)."""
    g = _el(parent, "g", class_="merchant active" if active else "merchant")
    fill = MERCHANT_ACTIVE if active else MERCHANT_FILL
    cx = x + size / 2
    foot = num(y + size * 0.86)
    robe = f"M{num(cx - size * 0.24)} {foot} L{num(cx)} {num(y + size * 0.34)} L{num(cx + size * 0.24)} {foot} z"
    _el(g, "path", d=robe, fill=fill, stroke=INK, stroke_width=1, stroke_linejoin="round")
    _el(g, "circle", cx=cx, cy=y + size * 0.3, r=size * 0.13, fill=fill, stroke=INK, stroke_width=1)
    return g


def _wall(parent: ET.Element, x: float, y: float, size: float, *, horizontal: bool) -> ET.Element:
    """A wall piece along the ring: a stone band with battlements."""
    g = _el(parent, "g", class_="wall")
    t = size * 0.36
    if horizontal:
        _el(g, "rect", x=x, y=y + (size - t) / 2, width=size, height=t, fill=STONE, stroke=INK, stroke_width=1)
        for k in range(3):
            mx = x + size * (0.08 + 0.33 * k)
            _el(g, "rect", x=mx, y=y + (size - t) / 2 - 5, width=size * 0.18, height=6, fill=STONE, stroke=INK)
    else:
        _el(g, "rect", x=x + (size - t) / 2, y=y, width=t, height=size, fill=STONE, stroke=INK, stroke_width=1)
        for k in range(3):
            my = y + size * (0.08 + 0.33 * k)
            _el(g, "rect", x=x + (size - t) / 2 - 5, y=my, width=6, height=size * 0.18, fill=STONE, stroke=INK)
    return g


def _tower(parent: ET.Element, cx: float, cy: float, r: float, value: str) -> ET.Element:
    """A corner tower: a round keep with battlements and its tile's value."""
    g = _el(parent, "g", class_="tower")
    for k in range(8):
        a = k * math.pi / 4
        _el(g, "circle", cx=cx + r * math.cos(a), cy=cy + r * math.sin(a), r=r * 0.28, fill=STONE, stroke=INK)
    _el(g, "circle", cx=cx, cy=cy, r=r, fill="#e9e1d2", stroke=INK, stroke_width=1.5)
    if value:
        _el(
            g,
            "text",
            value,
            x=cx,
            y=cy + r * 0.4,
            font_size=r * 1.2,
            font_weight="bold",
            text_anchor="middle",
            fill=INK,
        )
    return g


_Piece = tuple[str, int, int, int]
"""What a piece looks like: (kind, square, palace colour or -1, owner seat or -1 / active merchant)."""


def _draw_piece(parent: ET.Element, piece: _Piece) -> ET.Element:
    kind, sq, color, seat = piece
    x, y = _xy(sq)
    if kind == "palace":
        element = _building(parent, color, x, y, CELL, seat)
        if seat >= 0:  # the owner's colour as a frame on every piece of the palace
            frame = shade(SEAT_COLORS[seat])
            _el(element, "rect", x=x + 4, y=y + 4, width=CELL - 8, height=CELL - 8, fill="none", stroke=frame)
            element[-1].set("stroke-width", "2.5")
    elif kind == "stable":
        element = _stable(parent, x, y, CELL)
    elif kind == "dome":
        element = _dome(parent, seat, SEAT_COLORS[seat], x, y, CELL)
        _el(element, "title", f"{SEAT_COLORS[seat]} dome on the {PALACE_NAMES[color]} palace")
    elif kind == "merchant":
        element = _merchant(parent, x, y, CELL, seat > 0)
    else:
        element = _wall(parent, x, y, CELL, horizontal=sq // WIDTH in (0, HEIGHT - 1))
    element.set("data-on", SQUARE_NAMES[sq])
    return element


@functools.lru_cache(maxsize=4096)
def _piece_text(piece: _Piece) -> str:
    """A piece's SVG text: the same piece on the same square is drawn once per process."""
    return fragment(_draw_piece(ET.Element("g"), piece))


def _pieces(s: State) -> list[_Piece]:
    """Every piece on the board, in drawing order (domes over their palace)."""
    out: list[_Piece] = []
    for pal in s.palaces:
        out += [("palace", sq, pal.color, pal.owner) for sq in squares_of(pal.pieces)]
        out += [("stable", sq, pal.color, -1) for sq in squares_of(pal.stables)]
    out += [("dome", pal.dome, pal.color, pal.owner) for pal in s.palaces if pal.owner >= 0 and pal.dome >= 0]
    out += [("merchant", sq, -1, s.chain >> sq & 1) for sq in squares_of(s.merchants)]
    out += [("wall", sq, -1, -1) for sq in squares_of(s.walls)]
    return out


def _board(s: State, recent: Sequence[Recent]) -> tuple[ET.Element, dict[str, str]]:
    values = s.rules.tower_value_tuple()
    width, height = _CITY_WIDTH, _CITY_HEIGHT + _LEGEND_HEIGHT
    root = board_root("medina", width, height, f"0 0 {width} {height}", "Medina")
    _el(root, "title", f"Medina: {_status_line(s)}")
    placeholder(root, "md-under")
    colors = SEAT_COLORS
    pieces = _el(root, "g", class_="pieces", pointer_events="none")
    arrived: dict[int, tuple[Recent, int]] = {}
    for step, item in enumerate(recent):
        target = getattr(item.move, "square", None)
        if isinstance(target, int) and 0 <= target < WIDTH * HEIGHT:
            arrived[target] = (item, step)
    _lanes(pieces, s)
    # Pieces are text cached per piece (drawing them anew is most of a drawing's cost);
    # only those of the last turns are built here, to carry their marks.
    texts: list[str] = []
    for piece in _pieces(s):
        if piece[1] in arrived:
            fresh = _draw_piece(ET.Element("g"), piece)
            mark_recent(fresh, *arrived[piece[1]])
            texts.append(fragment(fresh))
        else:
            texts.append(_piece_text(piece))
    placeholder(pieces, "md-pieces")
    for t, sq in enumerate(TOWER_SQUARES):
        x, y = _xy(sq)
        tower = _tower(pieces, x + CELL / 2, y + CELL / 2, CELL * 0.36, str(values[t]))
        tower.set("data-on", SQUARE_NAMES[sq])
        holder = s.tower_tiles[t]
        who = "no one yet" if holder < 0 else colors[holder]
        _el(tower, "title", f"tower {SQUARE_NAMES[sq]}: value {values[t]}, held by {who}")
        if holder >= 0:
            seat_marker(tower, holder, colors[holder], x + CELL - 8, y + 8, 6)
    motion = _el(root, "g", class_="motion", fill="none", stroke=MARK_COLOR, pointer_events="none")
    for step, item in enumerate(recent):
        target = getattr(item.move, "square", None)
        if isinstance(target, int) and 0 <= target < WIDTH * HEIGHT:
            x, y = _xy(target)
            ring = _el(motion, "rect", class_="motion-mark last-move", x=x + 1.5, y=y + 1.5, width=CELL - 3)
            for key, value in (
                ("height", CELL - 3),
                ("rx", 5),
                ("stroke-width", 3.5),
                ("data-at", SQUARE_NAMES[target]),
            ):
                ring.set(key, str(value))
            mark_recent(ring, item, step)
    placeholder(root, "md-over")
    return root, {**_fragments(), "md-pieces": "".join(texts)}


def _lanes(parent: ET.Element, s: State) -> None:
    """The merchants' lane: a track joining orthogonal neighbours (the active lane bolder)."""
    segments: list[str] = []
    active: list[str] = []
    for sq in squares_of(s.merchants):
        x, y = _xy(sq)
        for other in (sq + 1, sq + WIDTH):
            if other < WIDTH * HEIGHT and s.merchants >> other & 1 and (other != sq + 1 or other % WIDTH):
                ox, oy = _xy(other)
                seg = f"M{x + CELL // 2} {y + CELL // 2} L{ox + CELL // 2} {oy + CELL // 2}"
                (active if s.chain >> sq & 1 and s.chain >> other & 1 else segments).append(seg)
    if segments:
        _el(
            parent,
            "path",
            class_="lane",
            d=" ".join(segments),
            stroke=MERCHANT_FILL,
            stroke_width=6,
            stroke_opacity=0.45,
            stroke_linecap="round",
        )
    if active:
        _el(
            parent,
            "path",
            class_="lane active",
            d=" ".join(active),
            stroke=MERCHANT_ACTIVE,
            stroke_width=8,
            stroke_opacity=0.6,
            stroke_linecap="round",
        )


def _panel(root: ET.Element, s: State, values: Sequence[int], x0: float) -> None:
    """The supply panel: per seat supply and score, then the tile holders."""
    g = _el(root, "g", class_="panel", font_family="sans-serif", font_size=12)
    y = EDGE + 4.0
    _el(g, "text", _status_line(s), x=x0, y=y, font_weight="bold")
    y += 14
    scores = s.scores()
    for seat in range(s.num_players):
        marker = " ◀" if seat == s.current_player else ""
        seat_marker(g, seat, SEAT_COLORS[seat], x0 + 7, y + 6, 6)
        _el(g, "text", f"P{seat + 1} {SEAT_COLORS[seat]}: {scores[seat]} points{marker}", x=x0 + 18, y=y + 10)
        sup = s.supply[seat * 8 : seat * 8 + 8]
        _el(g, "text", "palace " + " ".join(f"{PALACE_LETTER[c]}{sup[c]}" for c in range(4)), x=x0 + 18, y=y + 24)
        _el(g, "text", f"dome {sup[4]}  stable {sup[5]}  merchant {sup[6]}  wall {sup[7]}", x=x0 + 18, y=y + 38)
        y += 52
    _el(g, "text", "Palace tiles", x=x0, y=y + 10, font_weight="bold")
    y += 16
    for c in range(4):
        holder = s.palace_tiles[c]
        _el(g, "rect", x=x0, y=y, width=14, height=14, fill=f"url(#palace-{c})", stroke=INK)
        _el(g, "text", f"{PALACE_COLORS[c]} ({c + 1}): {_holder_name(holder)}", x=x0 + 20, y=y + 11)
        y += 18
    _el(g, "text", "Tower tiles", x=x0, y=y + 10, font_weight="bold")
    y += 16
    for t, sq in enumerate(TOWER_SQUARES):
        holder = s.tower_tiles[t]
        _el(g, "circle", cx=x0 + 7, cy=y + 7, r=7, fill="#a39785", stroke=INK)
        _el(g, "text", f"{SQUARE_NAMES[sq]} ({values[t]}): {_holder_name(holder)}", x=x0 + 20, y=y + 11)
        y += 18


def _holder_name(holder: int) -> str:
    return f"P{holder + 1} ({SEAT_COLORS[holder]})" if holder >= 0 else "supply"
