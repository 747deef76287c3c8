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

import functools
import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from typing import Final, NamedTuple

from tabletop.core.errors import count_of
from tabletop.games.terranova.board import Board
from tabletop.games.terranova.moves import Place, Slide, Stone
from tabletop.games.terranova.notation import cell_labels
from tabletop.games.terranova.state import PLACEMENT, State
from tabletop.grid.hex import DIRECTIONS, Layout
from tabletop.render.svg import (
    MARK_COLOR,
    SHADES,
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

PLAYER_COLORS: Final = {name: SHADES[name] for name in ("yellow", "red", "blue", "green")}
"""Display colours of the player colours (§1.2), the web page's; any other name is used as a CSS colour."""

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
        head += f"placement, {names[state.current_player]} to place ({count_of(sum(state.in_hand), 'pioneer')} to go)"
    else:
        head += f"{names[state.current_player]} to act, action {state.action + 1} of 3 ({state.actions_left} left)"
        if state.movers:
            moved = ", ".join(f"{state.board.names[cur]} (from {state.board.names[s]})" for cur, s in state.movers)
            head += f"; moved: {moved}"
    lines = [head + f"; stones in supply {state.supply}"]
    for seat, own in enumerate(state.pioneers):
        mark = ">" if seat == state.current_player else " "
        lines.append(
            f"{mark} {player_letter(state, seat)} {names[seat]:<7} {count_of(state.points[seat], 'point'):>11}  "
            f"pioneers: {own.bit_count()} on board, {state.in_hand[seat]} to place, {state.removed[seat]} removed"
        )
    return lines


def _legend_line(state: State) -> str:
    lands = "  ".join(f"{ls.id.lower()} {ls.name}" for ls in state.board.landscapes)
    return f"{lands}  |  {EMPTY_MARK} empty  {STONE_TOKEN} stone  {CLOSED_TOKEN} scored"


# --- SVG --------------------------------------------------------------------------------

_HEX: Final = 26.0  # hex size (centre to corner): a hex is 45 units across, at least MIN_TAP
_PANEL_WIDTH: Final = 300.0
_LEGEND_ITEM: Final = 150.0  # width of one legend entry
_LEGEND_ROW: Final = 26.0
_SEA: Final = "#dcebf2"


def render_board(state: State, *, history: Sequence[tuple[int, object]] = (), first_ply: int = 0) -> SvgImage:
    """The board alone, as the web page shows it (the one drawing of a position).

    Cells are filled with their landscape's colour and pattern, with thick lines where
    landscapes meet and along the coast; pioneers are player tokens (a shape per seat and
    the colour's letter), stones dark hexes, scored areas veiled with their value.  The
    coordinates run along every edge and the legend sits under the island.  The last turn
    of every seat (:func:`~tabletop.render.svg.last_turns` of ``history``) is marked: a
    slide as an arrow along its path, placed pieces with a ring, all tagged for the page's
    animation (see :mod:`tabletop.render.svg` for the contract).

    Args:
        state: the position.
        history: ``(seat, move)`` of the actions before ``state``, oldest first.
        first_ply: the ply of ``history[0]``.
    """
    return to_svg_image(*_board(state, last_turns(history, first_ply)))


def render_svg(state: State, *, last_moves: Sequence[object] = ()) -> SvgImage:
    """The position drawn as a standalone SVG document: the board and a side panel.

    The board is :func:`render_board`'s drawing, unchanged (the web page shows the same);
    the panel on the right holds the status line, the scores and the stone supply.

    Args:
        state: the position.
        last_moves: moves to mark as the last turn (e.g. the actions of the turn just
            played); moves of other games or the pass are ignored.

    Returns:
        The SVG document; every cell of the board carries ``data-cell`` with its name.
    """
    seat = -1  # who played ``last_moves`` is not known here
    board, fragments = _board(state, [Recent(i, seat, m) for i, m in enumerate(last_moves)])
    board_width, board_height = float(board.get("width", "0")), float(board.get("height", "0"))
    panel_height = 150 + 32 * state.num_players
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
    ET.SubElement(root, "title").text = f"Terra Nova on {state.board.map.name}: {_short_status(state)}"
    ET.SubElement(root, "rect", {"width": "100%", "height": "100%", "fill": "#f7f4ec"})
    embed(root, board, 0, 0)
    _draw_panel(root, state, board_width + 10)
    return to_svg_image(root, fragments)


class _Static(NamedTuple):
    """The layers that depend only on the map, built once per board and shared by every drawing."""

    layout: Layout
    width: float
    island_height: float
    height: float
    fragments: dict[str, str]  # SVG text of the layers: defs, sea and cells; borders; coordinates and legend


@functools.lru_cache(maxsize=16)
def _static(board: Board) -> _Static:
    # Serialised once: splicing the text in is what keeps a drawing fast (a few ms).
    base = Layout(size=_HEX)
    labels = _edge_labels(board)
    spots = [base.hex_to_pixel(h) for h in board.coords] + [base.hex_to_pixel(pos) for pos, _ in labels]
    xs, ys = zip(*spots, strict=True)
    pad = _HEX * 1.1
    layout = Layout(size=_HEX, origin=(pad - min(xs), pad - min(ys)))
    width = max(xs) - min(xs) + 2 * pad
    island_height = max(ys) - min(ys) + 2 * pad
    entries = _legend_entries(board)
    per_row = max(1, int((width - 16) // _LEGEND_ITEM))
    height = island_height + 12 + _LEGEND_ROW * ((len(entries) + per_row - 1) // per_row)
    defs = ET.Element("defs")
    for k, ls in enumerate(board.landscapes):
        _add_pattern(defs, f"land-{k}", ls.color, ls.pattern)
    _add_closed_pattern(defs)
    add(defs, "polygon", id="hex", points=_points(Layout(size=_HEX).polygon_corners((0, 0))))
    add(defs, "polygon", id="hex-hl", points=_points(Layout(size=_HEX * 0.88).polygon_corners((0, 0))))
    sea = ET.Element("rect", {"class": "sea", "width": _num(width), "height": _num(island_height), "fill": _SEA})
    sea.set("rx", "8")
    cells = _cells(board, layout)
    borders = ET.Element("g", {"class": "borders", "pointer-events": "none"})
    _draw_borders(borders, board, layout)
    coords = _labels(labels, layout)
    legend = _legend(entries, 8, island_height + 6, per_row)
    fragments = {
        "tn-under": fragment(defs) + fragment(sea) + fragment(cells),
        "tn-borders": fragment(borders),
        "tn-over": fragment(coords) + fragment(legend),
    }
    return _Static(layout, width, island_height, height, fragments)


def _board(state: State, recent: Sequence[Recent]) -> tuple[ET.Element, dict[str, str]]:
    board: Board = state.board
    static = _static(board)
    layout = static.layout
    root = board_root("terranova", static.width, static.height, f"0 0 {_num(static.width)} {_num(static.height)}", "")
    root.set("aria-label", f"Terra Nova on {board.map.name}")
    ET.SubElement(root, "title").text = f"Terra Nova on {board.map.name}: {_short_status(state)}"
    placeholder(root, "tn-under")
    _draw_closed(root, state, layout)
    placeholder(root, "tn-borders")
    _draw_areas(root, state, layout)
    pieces = _draw_pieces(root, state, layout, _recent_pieces(board, recent))
    _draw_motion(root, board, layout, recent)
    placeholder(root, "tn-over")
    return root, {**static.fragments, **pieces}


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


def _num(value: float) -> str:
    return num(value)


def _points(pts: Iterable[tuple[float, float]]) -> str:
    return points(list(pts))


def _short_status(state: State) -> str:
    scores = ", ".join(f"{name} {points}" for name, points in zip(state.context.seat_colors, state.points, strict=True))
    if state.result is not None:
        return f"game over, {scores}"
    return f"turn {state.turn}, {state.context.seat_colors[state.current_player]} to act, {scores}"


def _shrunk(layout: Layout, h: tuple[int, int], k: float) -> list[tuple[float, float]]:
    """The corners of hex ``h`` pulled towards its centre by the factor ``k``."""
    cx, cy = layout.hex_to_pixel(h)
    return [(cx + k * (x - cx), cy + k * (y - cy)) for x, y in layout.polygon_corners(h)]


def _cells(board: Board, layout: Layout) -> ET.Element:
    """One ``g.cell`` per cell: its land and the page's highlight shape (``hl``)."""
    group = ET.Element("g", {"class": "cells", "stroke": "#ffffff", "stroke-width": "0.8"})
    for i, h in enumerate(board.coords):
        land = board.landscapes[board.land[i]]
        x, y = (_num(v) for v in layout.hex_to_pixel(h))
        cell = add(group, "g", class_="cell", data_cell=board.names[i], role="button")
        add(cell, "title", f"{board.names[i]} {land.name}")
        add(cell, "use", href="#hex", x=x, y=y, fill=f"url(#land-{board.land[i]})")
        add(cell, "use", href="#hex-hl", x=x, y=y, class_="hl", fill="none")
    return group


def _draw_closed(root: ET.Element, state: State, layout: Layout) -> None:
    """Cells of scored areas: the landscape shows through a hatched veil."""
    board: Board = state.board
    group = add(root, "g", class_="closed-cells", pointer_events="none")
    for i in board.cells_of(state.closed):
        x, y = (_num(v) for v in layout.hex_to_pixel(board.coords[i]))
        add(group, "use", href="#hex", x=x, y=y, fill="url(#closed)", class_="closed", data_at=board.names[i])


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
        ET.SubElement(
            root, "path", {"d": path, "fill": "none", "stroke-linecap": "round", "pointer-events": "none", **attrs}
        )


def _draw_areas(root: ET.Element, state: State, layout: Layout) -> None:
    """Each scored area: its value and who scored, written on its middle cell."""
    board: Board = state.board
    group = ET.SubElement(root, "g", {"class": "areas", "pointer-events": "none"})
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


_Marks = dict[int, tuple[Recent, int, tuple[int, int] | None]]
"""Cell -> (the recent action that put a piece there, its step, where a slide came from)."""


def _recent_pieces(board: Board, recent: Sequence[Recent]) -> _Marks:
    marks: _Marks = {}
    for step, item in enumerate(recent):
        move = item.move
        if isinstance(move, Slide) and move.src < board.num_cells and move.dst < board.num_cells:
            marks[move.dst] = (item, step, board.coords[move.src])
        elif isinstance(move, Place | Stone) and move.cell < board.num_cells:
            marks[move.cell] = (item, step, None)
    return marks


def _tag(element: ET.Element, i: int, marks: _Marks, layout: Layout, board: Board) -> None:
    """Tags a piece that arrived in the last turns (and where it slid from)."""
    if i not in marks:
        return
    item, step, origin = marks[i]
    mark_recent(element, item, step)
    if origin is not None:
        x, y = layout.hex_to_pixel(board.coords[i])
        ox, oy = layout.hex_to_pixel(origin)
        element.set("data-from-x", _num(ox - x))
        element.set("data-from-y", _num(oy - y))


def _draw_piece(parent: ET.Element, board: Board, color: str, seat: int, i: int) -> ET.Element:
    """A stone (``seat`` -1) or a pioneer of ``seat`` (colour name ``color``) on cell ``i``."""
    layout = _static(board).layout
    if seat < 0:
        stone = add(
            parent,
            "polygon",
            class_="stone",
            points=_points(_shrunk(layout, board.coords[i], 0.72)),
            fill=STONE_COLOR,
            stroke="#d9d9d9",
            stroke_width=1.5,
            data_on=board.names[i],
        )
        add(stone, "title", f"stone on {board.names[i]}")
        return stone
    x, y = layout.hex_to_pixel(board.coords[i])
    token = _token_of(parent, color, seat, x, y, 0.55 * _HEX)
    token.set("class", "pioneer")
    token.set("data-on", board.names[i])
    token.set("data-seat", str(seat))
    add(token, "title", f"{color} pioneer on {board.names[i]}")
    return token


@functools.lru_cache(maxsize=8192)
def _piece_text(board: Board, color: str, seat: int, i: int) -> str:
    """A piece's SVG text: the same piece on the same cell is drawn once per process."""
    return fragment(_draw_piece(ET.Element("g"), board, color, seat, i))


def _draw_pieces(root: ET.Element, state: State, layout: Layout, marks: _Marks) -> dict[str, str]:
    """Stones, then pioneers; pieces of the last turns are built anew, to carry their marks."""
    board: Board = state.board
    colors = state.context.seat_colors
    layers = {"tn-stones": [(-1, i) for i in board.cells_of(state.stones)]}
    layers["tn-pioneers"] = [(seat, i) for seat, own in enumerate(state.pioneers) for i in board.cells_of(own)]
    texts: dict[str, str] = {}
    for key, pieces in layers.items():
        group = add(root, "g", class_=key[3:], pointer_events="none")
        placeholder(group, key)
        out = []
        for seat, i in pieces:
            color = colors[seat] if seat >= 0 else ""
            if i in marks:
                fresh = _draw_piece(ET.Element("g"), board, color, seat, i)
                _tag(fresh, i, marks, layout, board)
                out.append(fragment(fresh))
            else:
                out.append(_piece_text(board, color, seat, i))
        texts[key] = "".join(out)
    return texts


def _token(parent: ET.Element, state: State, seat: int, x: float, y: float, radius: float) -> ET.Element:
    """A player token: the seat's shape in its colour with its letter on top."""
    return _token_of(parent, state.context.seat_colors[seat], seat, x, y, radius)


def _token_of(parent: ET.Element, color: str, seat: int, x: float, y: float, radius: float) -> ET.Element:
    group = add(parent, "g")
    seat_marker(group, seat, color, x, y, radius)
    dark = shade(color) in (SHADES["blue"], SHADES["black"], SHADES["green"])
    add(
        group,
        "text",
        color[:1].upper(),
        x=_num(x),
        y=_num(y + radius * 0.42),
        font_size=_num(radius * 1.1),
        font_weight="bold",
        text_anchor="middle",
        fill="#ffffff" if dark else "#111111",
    )
    return group


def _draw_motion(root: ET.Element, board: Board, layout: Layout, recent: Sequence[Recent]) -> None:
    """The last turn of every seat: an arrow along each slide, a ring on each cell it touched."""
    group = add(root, "g", class_="motion", fill="none", stroke=MARK_COLOR, pointer_events="none")
    for step, item in enumerate(recent):
        move = item.move
        if isinstance(move, Slide) and move.src < board.num_cells and move.dst < board.num_cells:
            (x1, y1), (x2, y2) = (
                layout.hex_to_pixel(board.coords[move.src]),
                layout.hex_to_pixel(board.coords[move.dst]),
            )
            length = math.dist((x1, y1), (x2, y2)) or 1.0
            ux, uy = (x2 - x1) / length, (y2 - y1) / length
            # Stop short of the token so the arrow head stays visible.
            ex, ey = x2 - ux * 0.62 * _HEX, y2 - uy * 0.62 * _HEX
            hx, hy = ux * 8, uy * 8
            head = [(ex + hy * 0.7 - hx, ey - hx * 0.7 - hy), (ex, ey), (ex - hy * 0.7 - hx, ey + hx * 0.7 - hy)]
            path = add(
                group,
                "path",
                class_="motion-path last-move",
                d=f"M{_num(x1)} {_num(y1)} L{_num(ex)} {_num(ey)} M{_points(head)}",
                stroke_width=4,
                stroke_linecap="round",
                stroke_linejoin="round",
                data_move=f"{board.names[move.src]}-{board.names[move.dst]}",
            )
            mark_recent(path, item, step)
            cells = [(move.src, True), (move.dst, False)]
        elif isinstance(move, Place | Stone) and move.cell < board.num_cells:
            cells = [(move.cell, False)]
        else:
            continue
        for i, is_origin in cells:
            ring = add(
                group,
                "polygon",
                class_="motion-mark last-move-cell" + (" origin" if is_origin else ""),
                points=_points(_shrunk(layout, board.coords[i], 0.93)),
                stroke_width=3.5,
                stroke_dasharray="6 4" if is_origin else "none",
                data_at=board.names[i],
            )
            mark_recent(ring, item, step)


def _labels(labels: Sequence[tuple[tuple[int, int], str]], layout: Layout) -> ET.Element:
    group = ET.Element("g")
    _set(group, class_="coords coordinates", font_size=14, fill="#35566b", pointer_events="none")
    for pos, text in labels:
        x, y = layout.hex_to_pixel(pos)
        add(group, "text", text, x=_num(x), y=_num(y + 5), text_anchor="middle", font_weight="bold")
    return group


def _legend_entries(board: Board) -> list[tuple[str, str]]:
    """(kind, text) of each legend entry: every landscape, then the pieces and marks."""
    out = [(f"land-{k}", ls.name + (" (water)" if ls.water else "")) for k, ls in enumerate(board.landscapes)]
    out += [("stone", "stone"), ("closed", "scored area"), ("mark", "last turn")]
    return out


def _legend(entries: Sequence[tuple[str, str]], x0: float, y0: float, per_row: int) -> ET.Element:
    legend = ET.Element("g")
    _set(legend, class_="legend", font_size=13, fill="#222222", pointer_events="none")
    small = Layout(size=9.0)
    for k, (kind, text) in enumerate(entries):
        x = x0 + 10 + (k % per_row) * _LEGEND_ITEM
        y = y0 + 12 + (k // per_row) * _LEGEND_ROW
        hexagon = _points((x + px, y + py) for px, py in small.polygon_corners((0, 0)))
        entry = add(legend, "g", class_="legend-entry", data_kind=kind)
        if kind.startswith("land-"):
            add(entry, "polygon", points=hexagon, fill=f"url(#{kind})", stroke="#333333")
        elif kind == "stone":
            add(entry, "polygon", points=hexagon, fill=STONE_COLOR, stroke="#999999")
        elif kind == "closed":
            add(entry, "polygon", points=hexagon, fill="url(#land-0)", stroke="#333333")
            add(entry, "polygon", points=hexagon, fill="url(#closed)")
        else:
            add(entry, "polygon", points=hexagon, fill="none", stroke=MARK_COLOR, stroke_width=3)
        add(entry, "text", text, x=_num(x + 15), y=_num(y + 4.5))
    return legend


def _set(element: ET.Element, **attrs: object) -> None:
    for key, value in attrs.items():
        element.set(key.rstrip("_").replace("_", "-"), str(value))


def _draw_panel(root: ET.Element, state: State, left: float) -> None:
    """Scores, whose turn and the supply, to the right of the board."""
    names = state.context.seat_colors
    panel = add(root, "g", class_="panel", font_size=13, fill="#222")
    x0, y = left, 28.0
    add(panel, "text", f"Terra Nova: {state.board.map.name}", x=x0, y=y, font_size=16, font_weight="bold")
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
    add(panel, "text", status, x=x0, y=y, class_="status")
    y += 18
    add(panel, "text", f"Stones in supply: {state.supply}", x=x0, y=y, class_="supply")
    y += 28
    for seat, own in enumerate(state.pioneers):
        row = add(panel, "g", class_="score", data_seat=seat)
        if seat == state.current_player:
            add(row, "rect", x=x0 - 6, y=y - 16, width=_PANEL_WIDTH - 16, height=26, rx=4, fill="#fff3b0")
        _token(row, state, seat, x0 + 8, y - 3, 9)
        add(row, "text", f"{names[seat]}: {state.points[seat]} pts", x=x0 + 24, y=y + 1)
        detail = f"{own.bit_count()} on board, {state.in_hand[seat]} to place, {state.removed[seat]} out"
        add(row, "text", detail, x=x0 + 120, y=y + 1, font_size=10, fill="#555")
        y += 32
