"""Drawing Terra Nova positions: terminal text and SVG.

Both drawings use the pointy-top layout of the spec (``x = √3·(q + r/2)``, ``y = 1.5·r``)
and label the board's edges with the engine's cell names (``notation.py``): a column
letter for q and a row number for r.  Colour is never the only cue: landscapes also have
a letter (text) or a fill pattern (SVG), players a letter and, in SVG, a token shape.

Text legend (one two-character token per cell)::

    f.   empty forest cell (landscape letter in lower case)
    fY   a yellow pioneer on forest (player letter in upper case)
    ##   a stone
    --   a cell of a scored (closed) area

Reading only the public fields of :class:`~tabletop.games.terranova.state.State` keeps
this module independent of the engine's internals.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from typing import Final

from tabletop.games.terranova.board import Board
from tabletop.games.terranova.moves import Place, Slide, Stone
from tabletop.games.terranova.notation import cell_labels
from tabletop.games.terranova.state import PLACEMENT, State
from tabletop.grid.hex import DIRECTIONS, Layout
from tabletop.render.svg import SvgImage, to_svg_image

PLAYER_COLORS: Final = {"yellow": "#f2c200", "red": "#d7263d", "blue": "#1f6fd1", "green": "#1b9e4b"}
"""Display colours of the player colours (§1.2); any other name is used as a CSS colour."""

# Token shapes, the second cue next to the player letter: one per seat in seat order.
PLAYER_SHAPES: Final = ("circle", "square", "triangle", "diamond")

STONE_COLOR: Final = "#4a4a4a"
CLOSED_COLOR: Final = "#6b6b6b"
HIGHLIGHT_COLOR: Final = "#ff00c8"  # magenta: stands out on every landscape colour

EMPTY_MARK: Final = "."
STONE_TOKEN: Final = "##"
CLOSED_TOKEN: Final = "--"

_CELL_PITCH: Final = 4  # text columns between neighbouring cells of one row
_RESET: Final = "\x1b[0m"


# --- shared helpers ---------------------------------------------------------------------


def player_letter(state: State, seat: int) -> str:
    """The letter of a seat's colour (``Y``, ``R``, ``B``, ``G``)."""
    return state.context.seat_colors[seat][:1].upper()


def player_color(state: State, seat: int) -> str:
    """The display colour of a seat as ``#rrggbb`` (or the colour name itself)."""
    name = state.context.seat_colors[seat]
    return PLAYER_COLORS.get(name, name)


def _seat_at(state: State) -> dict[int, int]:
    """Cell index -> seat of the pioneer standing there."""
    board: Board = state.board
    return {cell: seat for seat, own in enumerate(state.pioneers) for cell in board.cells_of(own)}


def _edge_labels(board: Board) -> list[tuple[tuple[int, int], str]]:
    """Where the coordinates go: off-board positions next to the edge, with their text.

    Each column letter sits just above its top cell and just below its bottom cell (on
    the column's own line, so it points along it); each row number sits just left of the
    row's first cell and just right of its last one.
    """
    labels = cell_labels(board)
    cells = set(board.coords)
    out: list[tuple[tuple[int, int], str]] = []
    taken: set[tuple[int, int]] = set()

    def put(pos: tuple[int, int], text: str) -> None:
        if pos not in cells and pos not in taken:
            taken.add(pos)
            out.append((pos, text))

    for q, letter in labels["columns"].items():
        rs = [r for cq, r in board.coords if cq == q]
        put((q, min(rs) - 1), letter)
        put((q, max(rs) + 1), letter)
    for r, number in labels["rows"].items():
        qs = [q for q, cr in board.coords if cr == r]
        put((min(qs) - 1, r), number)
        put((max(qs) + 1, r), number)
    return out


# --- text -------------------------------------------------------------------------------


def render_text(state: State, *, color: bool = False) -> str:
    """The position drawn for a terminal.

    Every cell is a two-character token (see the module docstring); column letters and
    row numbers of the cell names run along the edges.  Below the board come a status
    line (phase, whose turn, actions left, supply), one line per player (score and
    pioneers) and the legend.

    Args:
        state: the position.
        color: add ANSI 24-bit colours: landscape backgrounds, player-coloured pioneers.

    Returns:
        The drawing, lines separated by ``\\n``, without a trailing newline.
    """
    board: Board = state.board
    seat_at = _seat_at(state)
    # Each item: a board position and its text as (characters, ANSI style) segments.
    items: list[tuple[tuple[int, int], list[tuple[str, str]]]] = []
    for i, (q, r) in enumerate(board.coords):
        land = board.landscapes[board.land[i]]
        ground = _ansi_bg(land.color) + "\x1b[30m"
        if state.closed >> i & 1:
            segments = [(CLOSED_TOKEN, "\x1b[2;37;40m")]
        elif state.stones >> i & 1:
            segments = [(STONE_TOKEN, "\x1b[1;97;48;2;74;74;74m")]
        elif i in seat_at:
            seat = seat_at[i]
            pioneer = _ansi_bg(player_color(state, seat)) + "\x1b[1;30m"
            segments = [(land.id.lower(), ground), (player_letter(state, seat), pioneer)]
        else:
            segments = [(land.id.lower() + EMPTY_MARK, ground)]
        items.append(((q, r), segments))
    for pos, label in _edge_labels(board):
        items.append((pos, [(label, "\x1b[2m")]))

    def column(pos: tuple[int, int]) -> int:
        return _CELL_PITCH * pos[0] + (_CELL_PITCH // 2) * pos[1]

    left = min(column(pos) for pos, _ in items)
    rows: dict[int, list[tuple[int, list[tuple[str, str]]]]] = {}
    for pos, segments in items:
        rows.setdefault(pos[1], []).append((column(pos) - left, segments))
    out = []
    for r in sorted(rows):
        line: list[str] = []
        width = 0
        for col, segments in sorted(rows[r], key=lambda item: item[0]):
            line.append(" " * max(col - width, 0))
            for text, style in segments:
                line.append(f"{style}{text}{_RESET}" if color else text)
                width = max(col, width) + len(text)
                col = width
        out.append("".join(line).rstrip())
    out.append("")
    out.extend(_status_lines(state))
    out.append(_legend_line(state))
    return "\n".join(out)


def _ansi_bg(color: str) -> str:
    rgb = _rgb(color)
    return f"\x1b[48;2;{rgb[0]};{rgb[1]};{rgb[2]}m" if rgb else "\x1b[47m"


def _rgb(color: str) -> tuple[int, int, int] | None:
    text = color.lstrip("#")
    if len(text) == 3:
        text = "".join(ch * 2 for ch in text)
    if len(text) != 6:
        return None
    try:
        return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)
    except ValueError:
        return None


def _status_lines(state: State) -> list[str]:
    names = state.context.seat_colors
    head = f"{state.board.map.name}, {state.num_players} players, turn {state.turn}: "
    if state.result is not None:
        winners = " and ".join(names[p] for p in state.result.winners)
        verb = "wins" if len(state.result.winners) == 1 else "share the win"
        head += f"game over ({state.result.termination}), {winners} {verb}"
    elif state.phase == PLACEMENT:
        head += f"placement, {names[state.current_player]} to place ({sum(state.in_hand)} pioneers to go)"
    else:
        head += f"{names[state.current_player]} to act, action {state.action + 1} of 3 ({state.actions_left} left)"
        if state.movers:
            moved = ", ".join(f"{state.board.names[cur]} (from {state.board.names[s]})" for cur, s in state.movers)
            head += f"; moved: {moved}"
    lines = [head + f"; stones in supply {state.supply}"]
    for seat, own in enumerate(state.pioneers):
        mark = ">" if seat == state.current_player else " "
        lines.append(
            f"{mark} {player_letter(state, seat)} {names[seat]:<7} {state.points[seat]:>4} points  "
            f"pioneers: {own.bit_count()} on board, {state.in_hand[seat]} to place, {state.removed[seat]} removed"
        )
    return lines


def _legend_line(state: State) -> str:
    lands = "  ".join(f"{ls.id.lower()} {ls.name}" for ls in state.board.landscapes)
    return f"{lands}  |  {EMPTY_MARK} empty  {STONE_TOKEN} stone  {CLOSED_TOKEN} scored"


# --- SVG --------------------------------------------------------------------------------

_HEX: Final = 24.0  # hex size (centre to corner) in SVG units
_MARGIN: Final = 2.2 * _HEX  # room for the edge labels
_PANEL_WIDTH: Final = 300.0


def render_svg(state: State, *, last_moves: Sequence[object] = ()) -> SvgImage:
    """The position drawn as a standalone SVG document.

    Cells are filled with their landscape's colour and pattern (an SVG ``<pattern>``), with
    thick lines where landscapes meet and along the coast.  Pioneers are player-coloured
    tokens carrying the player letter, each seat with its own shape; stones are dark hexes;
    scored areas are greyed and hatched with their value and awards.  Cell names run along
    the edges, and a panel on the right holds the scores, the turn and the legend.

    Args:
        state: the position.
        last_moves: moves to highlight (e.g. the actions of the turn just played); moves
            of other games or the pass are ignored.

    Returns:
        The SVG document; every cell polygon carries ``data-cell`` with its name.
    """
    board: Board = state.board
    base = Layout(size=_HEX)
    xs, ys = zip(*(base.hex_to_pixel(h) for h in board.coords), strict=True)
    origin = (_MARGIN - min(xs) + _HEX, _MARGIN - min(ys) + _HEX)
    layout = Layout(size=_HEX, origin=origin)
    board_width = max(xs) - min(xs) + 2 * (_MARGIN + _HEX)
    board_height = max(ys) - min(ys) + 2 * (_MARGIN + _HEX)
    legend_rows = len(board.landscapes) + 3
    panel_height = 150 + 28 * state.num_players + 22 * legend_rows
    width, height = board_width + _PANEL_WIDTH, max(board_height, panel_height)

    root = ET.Element(
        "svg",
        {
            "width": _num(width),
            "height": _num(height),
            "viewBox": f"0 0 {_num(width)} {_num(height)}",
            "font-family": "Helvetica, Arial, sans-serif",
        },
    )
    ET.SubElement(root, "title").text = f"Terra Nova on {board.map.name}: {_short_status(state)}"
    defs = ET.SubElement(root, "defs")
    for k, ls in enumerate(board.landscapes):
        _add_pattern(defs, f"land-{k}", ls.color, ls.pattern)
    _add_closed_pattern(defs)
    ET.SubElement(root, "rect", {"width": "100%", "height": "100%", "fill": "#f7f4ec"})

    _draw_cells(root, state, layout)
    _draw_borders(root, board, layout)
    _draw_areas(root, state, layout)
    _draw_pieces(root, state, layout)
    _draw_last_moves(root, state, layout, last_moves)
    _draw_labels(root, board, layout)
    _draw_panel(root, state, board_width)
    return to_svg_image(root)


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _points(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in points)


def _short_status(state: State) -> str:
    scores = ", ".join(f"{name} {points}" for name, points in zip(state.context.seat_colors, state.points, strict=True))
    if state.result is not None:
        return f"game over, {scores}"
    return f"turn {state.turn}, {state.context.seat_colors[state.current_player]} to act, {scores}"


def _add_pattern(defs: ET.Element, pattern_id: str, color: str, kind: str) -> None:
    """A tile of the landscape's colour with a darker motif drawn over it."""
    size = 12
    pattern = ET.SubElement(
        defs, "pattern", {"id": pattern_id, "width": str(size), "height": str(size), "patternUnits": "userSpaceOnUse"}
    )
    ET.SubElement(pattern, "rect", {"width": str(size), "height": str(size), "fill": color})
    ink = {"stroke": "#000", "stroke-opacity": "0.35", "fill": "none", "stroke-width": "1.2"}
    solid = {"fill": "#000", "fill-opacity": "0.3"}
    if kind == "trees":
        ET.SubElement(pattern, "path", {"d": "M6 2 L9.5 9 L2.5 9 Z", **solid})
    elif kind == "grass":
        ET.SubElement(pattern, "path", {"d": "M3 10 L3 6 M6 10 L6 5 M9 10 L9 6", **ink})
    elif kind == "furrows":
        ET.SubElement(pattern, "path", {"d": "M0 3 H12 M0 9 H12", **ink})
    elif kind == "dots":
        ET.SubElement(pattern, "circle", {"cx": "3", "cy": "3", "r": "1.4", **solid})
        ET.SubElement(pattern, "circle", {"cx": "9", "cy": "9", "r": "1.4", **solid})
    elif kind == "dashes":
        ET.SubElement(pattern, "path", {"d": "M1 3 H5 M7 9 H11", **ink})
    elif kind == "hatch":
        ET.SubElement(pattern, "path", {"d": "M0 12 L12 0 M-3 3 L3 -3 M9 15 L15 9", **ink})
    elif kind == "rocks":
        ET.SubElement(pattern, "path", {"d": "M2 8 L4 5 L7 6 L7 9 Z M8 3 L10 2 L11 4 L9 5 Z", **solid})
    elif kind == "waves":
        ET.SubElement(pattern, "path", {"d": "M0 4 Q3 1 6 4 T12 4 M0 10 Q3 7 6 10 T12 10", **ink})
    # Any other pattern name: the plain colour (maps may use names we do not know).


def _add_closed_pattern(defs: ET.Element) -> None:
    """Scored cells: the landscape shows through a pale veil with dark diagonal hatching."""
    pattern = ET.SubElement(
        defs, "pattern", {"id": "closed", "width": "8", "height": "8", "patternUnits": "userSpaceOnUse"}
    )
    ET.SubElement(pattern, "rect", {"width": "8", "height": "8", "fill": "#ffffff", "fill-opacity": "0.6"})
    ET.SubElement(
        pattern, "path", {"d": "M0 8 L8 0 M-2 2 L2 -2 M6 10 L10 6", "stroke": CLOSED_COLOR, "stroke-width": "1.3"}
    )


def _draw_cells(root: ET.Element, state: State, layout: Layout) -> None:
    board: Board = state.board
    group = ET.SubElement(root, "g", {"class": "cells", "stroke": "#ffffff", "stroke-width": "0.8"})
    for i, h in enumerate(board.coords):
        land = board.landscapes[board.land[i]]
        closed = bool(state.closed >> i & 1)
        polygon = ET.SubElement(
            group,
            "polygon",
            {
                "points": _points(layout.polygon_corners(h)),
                "fill": f"url(#land-{board.land[i]})",
                "data-cell": board.names[i],
                "data-landscape": land.id,
            },
        )
        status = "scored area" if closed else "stone" if state.stones >> i & 1 else "open"
        ET.SubElement(polygon, "title").text = f"{board.names[i]}: {land.name} ({status})"
        if closed:
            veil = ET.SubElement(group, "polygon", {"points": polygon.get("points", ""), "fill": "url(#closed)"})
            veil.set("class", "closed")
            ET.SubElement(veil, "title").text = f"{board.names[i]}: {land.name} ({status})"


def _edge(layout: Layout, h: tuple[int, int], direction: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """The two corners of the side of cell ``h`` that faces ``direction``."""
    corners = layout.polygon_corners(h)
    return corners[(6 - direction) % 6], corners[(7 - direction) % 6]


def _draw_borders(root: ET.Element, board: Board, layout: Layout) -> None:
    """Thick lines between landscapes and along the coast: the regions read at a glance."""
    inner, coast = [], []
    for i, (q, r) in enumerate(board.coords):
        for d, (dq, dr) in enumerate(DIRECTIONS):
            j = board.index.get((q + dq, r + dr))
            if j is None:
                coast.append(_edge(layout, (q, r), d))
            elif j > i and board.land[j] != board.land[i]:
                inner.append(_edge(layout, (q, r), d))
    for segments, attrs in (
        (inner, {"class": "landscape-borders", "stroke": "#2b2b2b", "stroke-width": "2.2"}),
        (coast, {"class": "coast", "stroke": "#1d3b5a", "stroke-width": "3"}),
    ):
        path = " ".join(f"M{_num(a[0])} {_num(a[1])} L{_num(b[0])} {_num(b[1])}" for a, b in segments)
        ET.SubElement(root, "path", {"d": path, "fill": "none", "stroke-linecap": "round", **attrs})


def _draw_areas(root: ET.Element, state: State, layout: Layout) -> None:
    """Each scored area: its value and who scored, written on its middle cell."""
    board: Board = state.board
    group = ET.SubElement(root, "g", {"class": "areas"})
    for k, area in enumerate(state.areas, start=1):
        centres = [layout.hex_to_pixel(board.coords[i]) for i in area.cells]
        cx = sum(x for x, _ in centres) / len(centres)
        cy = sum(y for _, y in centres) / len(centres)
        x, y = min(centres, key=lambda p: math.dist(p, (cx, cy)))
        awards = " ".join(f"{player_letter(state, p)}+{a}" for p, a in enumerate(area.awards) if a) or "no score"
        area_group = ET.SubElement(group, "g", {"class": "area", "data-area": str(k)})
        ET.SubElement(
            area_group, "title"
        ).text = f"area {k}: {area.size} cells, landscapes {''.join(area.landscapes)}, value {area.value}; {awards}"
        ET.SubElement(
            area_group,
            "rect",
            {
                "x": _num(x - 1.1 * _HEX),
                "y": _num(y - 0.5 * _HEX),
                "width": _num(2.2 * _HEX),
                "height": _num(_HEX),
                "rx": "4",
                "fill": "#ffffff",
                "fill-opacity": "0.85",
                "stroke": "#333",
            },
        )
        for dy, text, weight in ((-2, f"{area.value} pts", "bold"), (8, awards, "normal")):
            label = ET.SubElement(
                area_group,
                "text",
                {
                    "x": _num(x),
                    "y": _num(y + dy),
                    "font-size": "8.5",
                    "font-weight": weight,
                    "text-anchor": "middle",
                },
            )
            label.text = text


def _draw_pieces(root: ET.Element, state: State, layout: Layout) -> None:
    board: Board = state.board
    stones = ET.SubElement(root, "g", {"class": "stones"})
    for i in board.cells_of(state.stones):
        cx, cy = layout.hex_to_pixel(board.coords[i])
        corners = [(cx + 0.72 * (x - cx), cy + 0.72 * (y - cy)) for x, y in layout.polygon_corners(board.coords[i])]
        stone = ET.SubElement(
            stones,
            "polygon",
            {
                "class": "stone",
                "points": _points(corners),
                "fill": STONE_COLOR,
                "stroke": "#d9d9d9",
                "stroke-width": "1.5",
                "data-cell": board.names[i],
            },
        )
        ET.SubElement(stone, "title").text = f"stone on {board.names[i]}"
    pioneers = ET.SubElement(root, "g", {"class": "pioneers"})
    for seat, own in enumerate(state.pioneers):
        for i in board.cells_of(own):
            x, y = layout.hex_to_pixel(board.coords[i])
            token = _token(pioneers, state, seat, x, y, 0.55 * _HEX)
            token.set("class", "pioneer")
            token.set("data-cell", board.names[i])
            token.set("data-seat", str(seat))
            ET.SubElement(token, "title").text = f"{state.context.seat_colors[seat]} pioneer on {board.names[i]}"


def _token(parent: ET.Element, state: State, seat: int, x: float, y: float, radius: float) -> ET.Element:
    """A player token: the seat's shape in its colour with its letter on top."""
    group = ET.SubElement(parent, "g")
    style = {"fill": player_color(state, seat), "stroke": "#111", "stroke-width": "1.5"}
    shape = PLAYER_SHAPES[seat % len(PLAYER_SHAPES)]
    if shape == "circle":
        ET.SubElement(group, "circle", {"cx": _num(x), "cy": _num(y), "r": _num(radius), **style})
    elif shape == "square":
        s = radius * 0.9
        ET.SubElement(
            group, "rect", {"x": _num(x - s), "y": _num(y - s), "width": _num(2 * s), "height": _num(2 * s), **style}
        )
    elif shape == "triangle":
        s = radius * 1.2
        pts = [(x, y - s), (x + s * 0.95, y + s * 0.65), (x - s * 0.95, y + s * 0.65)]
        ET.SubElement(group, "polygon", {"points": _points(pts), **style})
    else:
        s = radius * 1.15
        pts = [(x, y - s), (x + s, y), (x, y + s), (x - s, y)]
        ET.SubElement(group, "polygon", {"points": _points(pts), **style})
    letter = ET.SubElement(
        group,
        "text",
        {
            "x": _num(x),
            "y": _num(y + radius * 0.42),
            "font-size": _num(radius * 1.15),
            "font-weight": "bold",
            "text-anchor": "middle",
            "fill": "#111" if seat != 2 else "#fff",  # white letter on the dark blue token
        },
    )
    letter.text = player_letter(state, seat)
    return group


def _draw_last_moves(root: ET.Element, state: State, layout: Layout, moves: Sequence[object]) -> None:
    board: Board = state.board
    group = ET.SubElement(root, "g", {"class": "last-moves", "fill": "none", "stroke": HIGHLIGHT_COLOR})
    for move in moves:
        if isinstance(move, Slide) and move.src < board.num_cells and move.dst < board.num_cells:
            (x1, y1), (x2, y2) = (
                layout.hex_to_pixel(board.coords[move.src]),
                layout.hex_to_pixel(board.coords[move.dst]),
            )
            length = math.dist((x1, y1), (x2, y2)) or 1.0
            # Stop short of the token so the arrow head stays visible.
            ex, ey = x2 - (x2 - x1) / length * 0.7 * _HEX, y2 - (y2 - y1) / length * 0.7 * _HEX
            hx, hy = (x2 - x1) / length * 7, (y2 - y1) / length * 7
            head = [(ex + hy * 0.6 - hx, ey - hx * 0.6 - hy), (ex, ey), (ex - hy * 0.6 - hx, ey + hx * 0.6 - hy)]
            ET.SubElement(
                group,
                "path",
                {
                    "class": "last-move",
                    "d": f"M{_num(x1)} {_num(y1)} L{_num(ex)} {_num(ey)} M{_points(head[:1])} L{_points(head[1:2])} "
                    f"L{_points(head[2:])}",
                    "stroke-width": "3",
                    "stroke-linecap": "round",
                    "data-move": board.names[move.src] + "-" + board.names[move.dst],
                },
            )
            cells = [move.src, move.dst]
        elif isinstance(move, Place | Stone) and move.cell < board.num_cells:
            cells = [move.cell]
        else:
            continue
        for i in cells:
            ET.SubElement(
                group,
                "polygon",
                {
                    "class": "last-move-cell",
                    "points": _points(layout.polygon_corners(board.coords[i])),
                    "stroke-width": "3",
                    "stroke-dasharray": "5 3" if isinstance(move, Slide) and i == move.src else "none",
                },
            )


def _draw_labels(root: ET.Element, board: Board, layout: Layout) -> None:
    group = ET.SubElement(root, "g", {"class": "coordinates", "font-size": "12", "fill": "#555"})
    for pos, text in _edge_labels(board):
        x, y = layout.hex_to_pixel(pos)
        label = ET.SubElement(group, "text", {"x": _num(x), "y": _num(y + 4), "text-anchor": "middle"})
        label.text = text


def _draw_panel(root: ET.Element, state: State, left: float) -> None:
    """Scores, whose turn, the supply and the legend, to the right of the board."""
    names = state.context.seat_colors
    panel = ET.SubElement(root, "g", {"class": "panel", "font-size": "13", "fill": "#222"})
    x0, y = left, 28.0

    def text(x: float, y: float, value: str, **attrs: str) -> ET.Element:
        element = ET.SubElement(panel, "text", {"x": _num(x), "y": _num(y), **attrs})
        element.text = value
        return element

    text(x0, y, f"Terra Nova: {state.board.map.name}", **{"font-size": "16", "font-weight": "bold"})
    y += 22
    if state.result is not None:
        winners = " and ".join(names[p] for p in state.result.winners)
        status = (
            f"Game over ({state.result.termination}): {winners} {'wins' if len(state.result.winners) == 1 else 'win'}"
        )
    elif state.phase == PLACEMENT:
        status = f"Placement: {names[state.current_player]} to place"
    else:
        status = f"Turn {state.turn}: {names[state.current_player]}, action {state.action + 1} of 3"
    text(x0, y, status, **{"class": "status"})
    y += 18
    text(x0, y, f"Stones in supply: {state.supply}", **{"class": "supply"})
    y += 28
    for seat, own in enumerate(state.pioneers):
        row = ET.SubElement(panel, "g", {"class": "score", "data-seat": str(seat)})
        if seat == state.current_player:
            ET.SubElement(
                row,
                "rect",
                {
                    "x": _num(x0 - 6),
                    "y": _num(y - 16),
                    "width": _num(_PANEL_WIDTH - 16),
                    "height": "26",
                    "rx": "4",
                    "fill": "#fff3b0",
                },
            )
        _token(row, state, seat, x0 + 8, y - 3, 9)
        label = ET.SubElement(row, "text", {"x": _num(x0 + 24), "y": _num(y + 1)})
        label.text = f"{names[seat]}: {state.points[seat]} pts"
        detail = ET.SubElement(row, "text", {"x": _num(x0 + 120), "y": _num(y + 1), "font-size": "10", "fill": "#555"})
        detail.text = f"{own.bit_count()} on board, {state.in_hand[seat]} to place, {state.removed[seat]} out"
        y += 28
    y += 10
    text(x0, y, "Landscapes", **{"font-weight": "bold"})
    y += 8
    small = Layout(size=8.0)
    for k, ls in enumerate(state.board.landscapes):
        cx, cy = x0 + 8, y + 10
        ET.SubElement(
            panel,
            "polygon",
            {
                "points": _points((cx + px, cy + py) for px, py in small.polygon_corners((0, 0))),
                "fill": f"url(#land-{k})",
                "stroke": "#333",
            },
        )
        text(x0 + 24, y + 14, f"{ls.id}  {ls.name}" + (" (water)" if ls.water else ""))
        y += 22
    cx, cy = x0 + 8, y + 10
    corners = [(cx + px * 0.72, cy + py * 0.72) for px, py in small.polygon_corners((0, 0))]
    ET.SubElement(panel, "polygon", {"points": _points(corners), "fill": STONE_COLOR, "stroke": "#999"})
    text(x0 + 24, y + 14, "stone")
    y += 22
    swatch = _points((cx + px, y + 10 + py) for px, py in small.polygon_corners((0, 0)))
    ET.SubElement(panel, "polygon", {"points": swatch, "fill": "url(#land-0)", "stroke": "#333"})
    ET.SubElement(panel, "polygon", {"points": swatch, "fill": "url(#closed)"})
    text(x0 + 24, y + 14, "scored area (value, awards)")
    y += 22
    ET.SubElement(
        panel,
        "polygon",
        {
            "points": _points((cx + px, y + 10 + py) for px, py in small.polygon_corners((0, 0))),
            "fill": "none",
            "stroke": HIGHLIGHT_COLOR,
            "stroke-width": "2.5",
        },
    )
    text(x0 + 24, y + 14, "last move")
