"""Pictures of a Medina position: terminal text and a standalone SVG document."""

from __future__ import annotations

import functools
import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tabletop.games.medina.board import (
    BOARD_34,
    FILES,
    NEUTRAL,
    SQUARE_NAMES,
    WIDTH,
    Geometry,
    square,
    squares_of,
)
from tabletop.games.medina.moves import PALACE_COLORS, SLOT_NAMES, color_names
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


NEUTRAL_COLOR = "white"
"""The neutral domes' colour (2e: a colour no player uses; its colour has no rules meaning)."""


def _cells(s: State) -> dict[int, tuple[str, int, int]]:
    """Per occupied square: (kind, colour index, owner) for drawing."""
    cells: dict[int, tuple[str, int, int]] = {}
    for pal in s.palaces:
        for sq in squares_of(pal.pieces):
            if pal.owner == NEUTRAL:
                cells[sq] = ("neutral" if sq == pal.dome else "neutral-piece", pal.color, -1)
                continue
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

    Symbols: palace pieces ``g k b o`` (gray, black, brown, orange; ``p`` purple in the
    second edition), a domed piece shows the capital letter and the owner's seat number
    (``G2``; ``GN`` a neutral dome, the other pieces of its palace ``Gn``), ``s`` stable,
    ``m`` merchant (``M`` in the active chain), ``#`` wall piece, ``_`` empty wall space,
    ``.`` empty building square, ``T1``..``T4`` towers with their tile value; the second
    edition's well ``@``, its red squares ``x`` and yellow bonus squares ``+`` when empty.
    """
    values = s.rules.tower_value_tuple()
    cells = _cells(s)
    geo = s.geo
    lines = [("     " + "".join(f"{f:<3}" for f in FILES[: geo.columns])).rstrip()]
    for row in range(geo.rows - 1, -1, -1):
        out = [f"{row + 1:>3}  "]
        for col in range(geo.columns):
            sq = square(col, row)
            text, ansi = _cell_text(s, sq, cells, values)
            out.append(f"{ansi}{text:<3}{_ANSI_RESET}" if color and ansi else f"{text:<3}")
        lines.append("".join(out).rstrip())
    lines.append("")
    lines.append(_status_line(s))
    second = s.rules.edition == 2
    names = color_names(s.rules.edition)
    slots = (*names, *SLOT_NAMES[4:])
    for seat in range(s.num_players):
        sup = ", ".join(f"{name} {s.supply[seat * 8 + i]}" for i, name in enumerate(slots))
        if second:
            sup += f", neutral {s.neutral[seat]}, tea {s.tea[seat]}"
        label = f"P{seat + 1} ({SEAT_COLORS[seat]})"
        if color:
            label = f"{_ANSI_PLAYER[seat]}{label}{_ANSI_RESET}"
        lines.append(f"{label}: {sup}; score {s.scores()[seat]}")
    tiles = [f"{names[c]}({c + 1}): {_who(h)}" for c, h in enumerate(s.palace_tiles)]
    lines.append("palace tiles: " + ", ".join(tiles))
    towers = [
        f"{SQUARE_NAMES[sq]}({values[t]}): {_who(s.tower_tiles[t])}"
        + (f" +{s.tower_merchants[t]} merchants" if s.tower_merchants[t] else "")
        for t, sq in enumerate(geo.towers)
    ]
    lines.append("tower tiles: " + ", ".join(towers))
    if second:
        well = SQUARE_NAMES[s.well] if s.well >= 0 else "none"
        lines.append(f"well: {well}; tea pool {s.tea_pool}")
    return "\n".join(lines)


def _who(holder: int) -> str:
    return f"P{holder + 1}" if holder >= 0 else "neutral" if holder == NEUTRAL else "-"


def _status_line(s: State) -> str:
    if s.is_terminal():
        return f"game over after {s.ply} moves; scores {list(s.scores())}"
    if s.phase == START:
        return f"P{s.current_player + 1} places the starting merchant"
    extra = " (dome obligation)" if s.obligation else ""
    return f"turn {s.turn}: P{s.current_player + 1} to place, {s.placements_left} placement(s) left{extra}"


def _cell_text(s: State, sq: int, cells: dict[int, tuple[str, int, int]], values: Sequence[int]) -> tuple[str, str]:
    bit = 1 << sq
    geo = s.geo
    if geo.tower_mask & bit:
        return f"T{values[geo.towers.index(sq)]}", ""
    if sq == s.well:
        return "@", "\x1b[36m"
    cell = cells.get(sq)
    if cell is None:
        if s.red & bit:
            return "x", "\x1b[31m"
        if s.yellow & bit:
            return "+", "\x1b[33m"
        return ("_" if geo.wall_spaces & bit else "."), ""
    kind, col, owner = cell
    letter = ("G", "P", "B", "O")[col] if s.rules.edition == 2 else PALACE_LETTER[col]
    if kind == "neutral":
        return f"{letter}N", ""
    if kind == "neutral-piece":
        return f"{letter}n", ""
    if kind == "palace" and s.rules.edition == 2:
        if owner <= -2:
            return f"{letter}{-1 - owner}", _ANSI_PLAYER[-2 - owner]
        if owner >= 0:
            return letter, _ANSI_PLAYER[owner]
        return letter.lower(), _ANSI_PALACE[col]
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


PURPLE_FILL = "#7d4aa8"
WELL_WATER = "#3b7dd8"
RED_SQUARE = "#d9534f"
YELLOW_SQUARE = "#e8b400"


def _xy(sq: int, rows: int = BOARD_34.rows) -> tuple[int, int]:
    """The top-left corner of a square on a board of ``rows`` rows (row 1 at the bottom)."""
    col, row = sq % WIDTH, sq // WIDTH
    return EDGE + col * CELL, EDGE + (rows - 1 - row) * CELL


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
    extra = 70 * s.num_players + 40 if s.rules.edition == 2 else 56 * s.num_players
    height = max(board_height, 120 + extra + 18 * 10)
    root = ET.Element("svg", {"width": num(width), "height": num(height), "viewBox": f"0 0 {num(width)} {num(height)}"})
    _el(root, "title", "Medina")
    _el(root, "rect", x=0, y=0, width=num(width), height=num(height), fill="#fbf7ee")
    embed(root, board, 0, 0)
    _panel(root, s, s.rules.tower_value_tuple(), board_width + 8)
    return to_svg_image(root, fragments)


def _city_size(geo: Geometry) -> tuple[int, int]:
    """The city's width and height (without the legend) on a board side."""
    return 2 * EDGE + geo.columns * CELL, 2 * EDGE + geo.rows * CELL


def _legend_entries(edition: int = 1) -> list[tuple[str, str]]:
    # The second edition's colour-2 palace is purple: its own legend key (not "black palace").
    out = [
        (f"palace-{c}" if (c, edition) != (1, 2) else "palace-purple", f"{name} palace")
        for c, name in enumerate(color_names(edition))
    ]
    out += [
        ("dome", "dome (owner's colour)"),
        ("stable", "stable"),
        ("merchant", "merchant"),
        ("merchant-active", "merchant, active lane"),
        ("wall", "wall piece"),
        ("tower", "tower (tile value)"),
    ]
    if edition == 2:
        out += [
            ("neutral", "neutral dome (nobody's)"),
            ("well", "well"),
            ("red", "no palace or stable"),
            ("yellow", "well bonus +4"),
        ]
    return [*out, ("mark", "last turn")]


def _legend_height(geo: Geometry, edition: int) -> int:
    per_row = max(1, (_city_size(geo)[0] - 16) // LEGEND_ITEM)
    return 14 + LEGEND_ROW * ((len(_legend_entries(edition)) + per_row - 1) // per_row)


@functools.lru_cache(maxsize=4)
def _fragments(geo: Geometry = BOARD_34, edition: int = 1) -> dict[str, str]:
    """The parts of the city that never change, serialised once per board side and
    edition (see ``to_svg_image``)."""
    city_width, city_height = _city_size(geo)
    per_row = max(1, (city_width - 16) // LEGEND_ITEM)
    width, height, rows = geo.columns, geo.rows, geo.rows
    defs = ET.Element("defs")
    for c, motif in enumerate(PALACE_MOTIF):
        pattern = _el(defs, "pattern", id=f"palace-{c}", width=8, height=8, patternUnits="userSpaceOnUse")
        # The second edition's colour-2 palaces are purple (the tea colour), not black.
        _el(pattern, "rect", width=8, height=8, fill=PURPLE_FILL if edition == 2 and c == 1 else PALACE_FILL[c])
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
    _el(ground, "rect", class_="city-ground", x=EDGE, y=EDGE, width=width * CELL, height=height * CELL, fill=RING, rx=6)
    for sq in squares_of(geo.grid):
        x, y = _xy(sq, rows)
        bit = 1 << sq
        kind = "tower" if geo.tower_mask & bit else "wall-space" if geo.wall_spaces & bit else "building"
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
    for col in range(width):
        x = EDGE + col * CELL + CELL // 2
        _el(coords, "text", FILES[col], x=x, y=EDGE - 8)
        _el(coords, "text", FILES[col], x=x, y=EDGE + height * CELL + 19)
    for row in range(height):
        y = EDGE + (height - 1 - row) * CELL + CELL // 2 + 5
        _el(coords, "text", str(row + 1), x=EDGE // 2, y=y)
        _el(coords, "text", str(row + 1), x=EDGE + width * CELL + EDGE // 2, y=y)
    legend = ET.Element("g", {"class": "legend", "font-size": "13", "fill": "#222222", "pointer-events": "none"})
    for k, (kind, text) in enumerate(_legend_entries(edition)):
        x = 12 + (k % per_row) * LEGEND_ITEM
        y = city_height + 8 + (k // per_row) * LEGEND_ROW
        entry = _el(legend, "g", class_="legend-entry", data_kind=kind)
        _legend_icon(entry, kind, x, y)
        _el(entry, "text", text, x=x + 30, y=y + 17)
    return {"md-under": fragment(defs) + fragment(ground), "md-over": fragment(coords) + fragment(legend)}


def _legend_icon(parent: ET.Element, kind: str, x: float, y: float) -> None:
    size = 24
    if kind.startswith("palace-"):
        _building(parent, int(kind[7:]) if kind[7:].isdigit() else 1, x, y, size, -1)
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
    elif kind == "neutral":
        _el(parent, "rect", x=x, y=y, width=size, height=size, fill="url(#palace-0)")
        _neutral_dome(parent, x, y, size)
    elif kind == "well":
        _well(parent, x, y, size)
    elif kind in ("red", "yellow"):
        _plaza_square(parent, kind, x, y, size)
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


def _neutral_dome(parent: ET.Element, x: float, y: float, size: float) -> ET.Element:
    """A neutral dome (2e): a white roof marked N, the palace finished for nobody."""
    g = _el(parent, "g", class_="dome neutral")
    cx, cy, r = x + size / 2, y + size * 0.55, size * 0.27
    _el(g, "circle", cx=cx, cy=cy, r=r, fill="#f4f4f4", stroke=INK, stroke_width=1.5, stroke_dasharray="3 2")
    _el(g, "text", "N", x=cx, y=cy + r * 0.45, font_size=r * 1.2, font_weight="bold", text_anchor="middle", fill=INK)
    return g


def _well(parent: ET.Element, x: float, y: float, size: float) -> ET.Element:
    """The well (2e): a round stone rim with water."""
    g = _el(parent, "g", class_="well")
    cx, cy = x + size / 2, y + size / 2
    _el(g, "circle", cx=cx, cy=cy, r=size * 0.4, fill=STONE, stroke=INK, stroke_width=1.5)
    _el(g, "circle", cx=cx, cy=cy, r=size * 0.27, fill=WELL_WATER, stroke=INK, stroke_width=1)
    _el(g, "path", d=f"M{num(cx - 6)} {num(cy)} q3 -3 6 0 t6 0", stroke="#ffffff", stroke_width=1.5, fill="none")
    return g


def _plaza_square(parent: ET.Element, kind: str, x: float, y: float, size: float) -> ET.Element:
    """A square of the well's plaza (2e): red (closed to palaces and stables, hatched) or
    yellow (the +4 bonus, a ring): a tint and a pattern, not colour alone."""
    g = _el(parent, "g", class_=f"plaza {kind}")
    if kind == "red":
        _el(g, "rect", x=x + 1, y=y + 1, width=size - 2, height=size - 2, fill=RED_SQUARE, fill_opacity=0.22)
        _el(
            g,
            "path",
            d=f"M{num(x + 4)} {num(y + 4)} L{num(x + size - 4)} {num(y + size - 4)} "
            f"M{num(x + size - 4)} {num(y + 4)} L{num(x + 4)} {num(y + size - 4)}",
            stroke=RED_SQUARE,
            stroke_opacity=0.55,
            stroke_width=2,
        )
    else:
        _el(g, "rect", x=x + 1, y=y + 1, width=size - 2, height=size - 2, fill=YELLOW_SQUARE, fill_opacity=0.25)
        _el(g, "circle", cx=x + size / 2, cy=y + size / 2, r=size * 0.36, fill="none", stroke=YELLOW_SQUARE)
        g[-1].set("stroke-width", "2.5")
        _el(g, "text", "+4", x=x + size - 3, y=y + 12, font_size=10, font_weight="bold", text_anchor="end", fill=INK)
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


def _draw_piece(parent: ET.Element, piece: _Piece, rows: int = BOARD_34.rows, edition: int = 1) -> ET.Element:
    kind, sq, color, seat = piece
    x, y = _xy(sq, rows)
    if kind == "palace":
        element = _building(parent, color, x, y, CELL, seat)
        if seat >= 0 or seat == NEUTRAL:  # the owner's colour as a frame on every piece of the palace
            frame = shade(SEAT_COLORS[seat]) if seat >= 0 else "#f4f4f4"
            _el(element, "rect", x=x + 4, y=y + 4, width=CELL - 8, height=CELL - 8, fill="none", stroke=frame)
            element[-1].set("stroke-width", "2.5")
    elif kind == "stable":
        element = _stable(parent, x, y, CELL)
    elif kind == "dome" and seat == NEUTRAL:
        element = _neutral_dome(parent, x, y, CELL)
        _el(element, "title", f"neutral dome on the {color_names(edition)[color]} palace")
    elif kind == "dome":
        element = _dome(parent, seat, SEAT_COLORS[seat], x, y, CELL)
        _el(element, "title", f"{SEAT_COLORS[seat]} dome on the {color_names(edition)[color]} palace")
    elif kind == "merchant":
        element = _merchant(parent, x, y, CELL, seat > 0)
    else:
        element = _wall(parent, x, y, CELL, horizontal=sq // WIDTH in (0, rows - 1))
    element.set("data-on", SQUARE_NAMES[sq])
    return element


@functools.lru_cache(maxsize=4096)
def _piece_text(piece: _Piece, rows: int = BOARD_34.rows, edition: int = 1) -> str:
    """A piece's SVG text: the same piece on the same square is drawn once per process."""
    return fragment(_draw_piece(ET.Element("g"), piece, rows, edition))


def _pieces(s: State) -> list[_Piece]:
    """Every piece on the board, in drawing order (domes over their palace)."""
    out: list[_Piece] = []
    for pal in s.palaces:
        out += [("palace", sq, pal.color, pal.owner) for sq in squares_of(pal.pieces)]
        out += [("stable", sq, pal.color, -1) for sq in squares_of(pal.stables)]
    out += [("dome", pal.dome, pal.color, pal.owner) for pal in s.palaces if pal.owner != -1 and pal.dome >= 0]
    out += [("merchant", sq, -1, s.chain >> sq & 1) for sq in squares_of(s.merchants)]
    out += [("wall", sq, -1, -1) for sq in squares_of(s.walls)]
    return out


def _board(s: State, recent: Sequence[Recent]) -> tuple[ET.Element, dict[str, str]]:
    values = s.rules.tower_value_tuple()
    geo = s.geo
    edition = s.rules.edition
    rows = geo.rows
    city_width, city_height = _city_size(geo)
    width, height = city_width, city_height + _legend_height(geo, edition)
    root = board_root("medina", width, height, f"0 0 {width} {height}", "Medina")
    _el(root, "title", f"Medina: {_status_line(s)}")
    placeholder(root, "md-under")
    colors = SEAT_COLORS
    pieces = _el(root, "g", class_="pieces", pointer_events="none")
    arrived: dict[int, tuple[Recent, int]] = {}
    for step, item in enumerate(recent):
        target = getattr(item.move, "square", None)
        if isinstance(target, int) and geo.has(target):
            arrived[target] = (item, step)
    _plaza(pieces, s)
    _lanes(pieces, s)
    # Pieces are text cached per piece (drawing them anew is most of a drawing's cost);
    # only those of the last turns are built here, to carry their marks.
    texts: list[str] = []
    for piece in _pieces(s):
        if piece[1] in arrived:
            fresh = _draw_piece(ET.Element("g"), piece, rows, edition)
            mark_recent(fresh, *arrived[piece[1]])
            texts.append(fragment(fresh))
        else:
            texts.append(_piece_text(piece, rows, edition))
    placeholder(pieces, "md-pieces")
    for t, sq in enumerate(geo.towers):
        x, y = _xy(sq, rows)
        tower = _tower(pieces, x + CELL / 2, y + CELL / 2, CELL * 0.36, str(values[t]))
        tower.set("data-on", SQUARE_NAMES[sq])
        holder = s.tower_tiles[t]
        who = "neutral (nobody)" if holder == NEUTRAL else "no one yet" if holder < 0 else colors[holder]
        on_tile = s.tower_merchants[t]
        extra = f"; {on_tile} merchants on its tile" if on_tile else ""
        _el(tower, "title", f"tower {SQUARE_NAMES[sq]}: value {values[t]}, held by {who}{extra}")
        if holder >= 0:
            seat_marker(tower, holder, colors[holder], x + CELL - 8, y + 8, 6)
        elif holder == NEUTRAL:
            _el(tower, "circle", cx=x + CELL - 8, cy=y + 8, r=6, fill="#f4f4f4", stroke=INK)
        if on_tile:  # the second edition's tower merchants, still waiting on the tile
            badge = _el(tower, "g", class_="tower-merchants", data_count=on_tile)
            _merchant(badge, x - 2, y + CELL * 0.45, CELL * 0.55, False)
            _el(badge, "text", f"×{on_tile}", x=x + CELL * 0.5, y=y + CELL - 2, font_size=12, font_weight="bold")
    motion = _el(root, "g", class_="motion", fill="none", stroke=MARK_COLOR, pointer_events="none")
    for step, item in enumerate(recent):
        target = getattr(item.move, "square", None)
        if isinstance(target, int) and geo.has(target):
            x, y = _xy(target, rows)
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
    return root, {**_fragments(geo, edition), "md-pieces": "".join(texts)}


def _plaza(parent: ET.Element, s: State) -> None:
    """The second edition's well with its red (closed) and yellow (bonus) squares."""
    if s.well < 0:
        return
    rows = s.geo.rows
    g = _el(parent, "g", class_="well-plaza")
    for kind, mask in (("red", s.red), ("yellow", s.yellow)):
        for sq in squares_of(mask):
            x, y = _xy(sq, rows)
            _plaza_square(g, kind, x, y, CELL).set("data-on", SQUARE_NAMES[sq])
    x, y = _xy(s.well, rows)
    well = _well(g, x, y, CELL)
    well.set("data-on", SQUARE_NAMES[s.well])
    _el(well, "title", f"the well on {SQUARE_NAMES[s.well]}")


def _lanes(parent: ET.Element, s: State) -> None:
    """The merchants' lane: a track joining orthogonal neighbours (the active lane bolder)."""
    segments: list[str] = []
    active: list[str] = []
    rows = s.geo.rows
    for sq in squares_of(s.merchants):
        x, y = _xy(sq, rows)
        for other in (sq + 1, sq + WIDTH):
            if s.merchants >> other & 1 and (other != sq + 1 or other % WIDTH):
                ox, oy = _xy(other, rows)
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
    second = s.rules.edition == 2
    letters = ("G", "P", "B", "O") if second else PALACE_LETTER
    for seat in range(s.num_players):
        marker = " ◀" if seat == s.current_player else ""
        seat_marker(g, seat, SEAT_COLORS[seat], x0 + 7, y + 6, 6)
        _el(g, "text", f"P{seat + 1} {SEAT_COLORS[seat]}: {scores[seat]} points{marker}", x=x0 + 18, y=y + 10)
        sup = s.supply[seat * 8 : seat * 8 + 8]
        _el(g, "text", "palace " + " ".join(f"{letters[c]}{sup[c]}" for c in range(4)), x=x0 + 18, y=y + 24)
        _el(g, "text", f"dome {sup[4]}  stable {sup[5]}  merchant {sup[6]}  wall {sup[7]}", x=x0 + 18, y=y + 38)
        if second:
            text = f"neutral dome {s.neutral[seat]}  tea {s.tea[seat]}"
            _el(g, "text", text, x=x0 + 18, y=y + 52, class_="tea")
            y += 14
        y += 52
    if second:
        _el(g, "text", f"Tea pool: {s.tea_pool}", x=x0, y=y + 10, font_weight="bold", class_="tea-pool")
        y += 18
    _el(g, "text", "Palace tiles", x=x0, y=y + 10, font_weight="bold")
    y += 16
    names = color_names(s.rules.edition)
    for c in range(4):
        holder = s.palace_tiles[c]
        _el(g, "rect", x=x0, y=y, width=14, height=14, fill=f"url(#palace-{c})", stroke=INK)
        _el(g, "text", f"{names[c]} ({c + 1}): {_holder_name(holder)}", x=x0 + 20, y=y + 11)
        y += 18
    _el(g, "text", "Tower tiles", x=x0, y=y + 10, font_weight="bold")
    y += 16
    for t, sq in enumerate(s.geo.towers):
        holder = s.tower_tiles[t]
        _el(g, "circle", cx=x0 + 7, cy=y + 7, r=7, fill="#a39785", stroke=INK)
        on_tile = f", {s.tower_merchants[t]} merchants on it" if s.tower_merchants[t] else ""
        _el(g, "text", f"{SQUARE_NAMES[sq]} ({values[t]}): {_holder_name(holder)}{on_tile}", x=x0 + 20, y=y + 11)
        y += 18


def _holder_name(holder: int) -> str:
    if holder == NEUTRAL:
        return "neutral (nobody)"
    return f"P{holder + 1} ({SEAT_COLORS[holder]})" if holder >= 0 else "supply"
