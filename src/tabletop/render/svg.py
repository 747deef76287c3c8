"""The shared SVG value type and what every board drawing has in common.

Renderers build SVG with :mod:`xml.etree.ElementTree` and return :class:`SvgImage`, a
``str`` that Jupyter shows as a picture.

A game draws its board once, with ``render_board``; the web page inserts that very
drawing (the server sends it with every state) and the standalone ``render_svg`` embeds
it next to a side panel, so the page and ``tabletop render`` show the same picture.  The
board drawing follows a small contract the web client relies on:

- the root ``<svg>`` has the class ``board-svg`` and ``data-game``; its ``width`` and
  ``height`` are its natural size, where a cell is at least :data:`MIN_TAP` units wide
  (the phone layout shows it at that size, so every cell can be tapped);
- every cell is one ``<g class="cell" data-cell="NAME" role="button">`` holding an
  ``hl`` shape the page lights up for legal targets; nothing else carries ``data-cell``;
- pieces, labels and marks ignore the pointer (``pointer-events="none"``), so a tap on a
  piece reaches its cell;
- coordinates are in ``<g class="coords">`` (on every edge), the legend in
  ``<g class="legend">``, both hidden by the page's toggles through CSS classes;
- what each seat did in its last turn (see :func:`last_turns`) is marked with
  ``data-ply``, ``data-seat`` and ``data-step`` (its order): ``motion-path`` for a slide,
  ``motion-mark`` around the cells, and on the piece that arrived ``data-ply`` plus
  ``data-from-x``/``data-from-y`` (where a sliding piece came from, relative to where it
  stands), so the page can animate the turn in order.

Colours are presentation attributes, never ``style`` attributes: the server's
Content-Security-Policy (``style-src 'self'``) blocks inline styles.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Final, NamedTuple

SVG_NS = "http://www.w3.org/2000/svg"

MIN_TAP: Final = 44.0
"""The smallest cell, in SVG units = CSS pixels at natural size (touch guidelines: 44 px)."""

SHADES: Final = {
    "yellow": "#f0e442",
    "red": "#d55e00",
    "blue": "#0072b2",
    "green": "#009e73",
    "orange": "#e69f00",
    "purple": "#cc79a7",
    "black": "#333333",
    "white": "#f4f4f4",
}
"""Okabe–Ito shades for colour names (colour-blind safe), the same as the web page's."""

SEAT_SHAPES: Final = ("circle", "square", "triangle", "diamond")
"""A shape per seat, so colour is never the only cue."""

INK: Final = "#1b1b1b"
MARK_COLOR: Final = "#cc79a7"
"""Reddish purple: the marks of what the other seats just did."""


class SvgImage(str):
    """SVG document text that renders itself in Jupyter."""

    __slots__ = ()

    def _repr_svg_(self) -> str:
        return str(self)


def to_svg_image(root: ET.Element, fragments: Mapping[str, str] | None = None) -> SvgImage:
    """Serialises an ``<svg>`` element tree into an :class:`SvgImage`.

    Args:
        root: the document's root.
        fragments: SVG text to put where :func:`placeholder` left a key: the parts of a
            drawing that never change are serialised once and spliced in (serialising
            is most of the cost of a drawing).
    """
    root.set("xmlns", SVG_NS)
    text = ET.tostring(root, encoding="unicode")
    for key, fragment in (fragments or {}).items():
        text = text.replace(f"<!--{key}-->", fragment, 1)
    return SvgImage(text)


def placeholder(parent: ET.Element, key: str) -> None:
    """Marks where :func:`to_svg_image` puts the fragment ``key``."""
    parent.append(ET.Comment(key))


def fragment(element: ET.Element) -> str:
    """The SVG text of a part of a drawing (for :func:`to_svg_image`'s ``fragments``)."""
    return ET.tostring(element, encoding="unicode")


def shade(color: str) -> str:
    """The display colour of a colour name (any other name is used as a CSS colour)."""
    return SHADES.get(color, color)


def num(value: float) -> str:
    """A coordinate with at most one decimal (short SVG text)."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def points(pts: Sequence[tuple[float, float]]) -> str:
    """An SVG ``points`` list."""
    return " ".join(f"{num(x)},{num(y)}" for x, y in pts)


def add(parent: ET.Element, tag: str, text: str | None = None, /, **attrs: object) -> ET.Element:
    """A child element; ``font_size`` becomes ``font-size`` and ``class_`` becomes ``class``."""
    element = ET.SubElement(
        parent,
        tag,
        {k.rstrip("_").replace("_", "-"): num(v) if isinstance(v, float) else str(v) for k, v in attrs.items()},
    )
    if text is not None:
        element.text = text
    return element


def seat_marker(parent: ET.Element, seat: int, color: str, x: float, y: float, radius: float) -> ET.Element:
    """A seat's token: its shape (:data:`SEAT_SHAPES`) in its colour, centred on (x, y)."""
    style = {"fill": shade(color), "stroke": INK, "stroke_width": 1.5, "class_": f"token p{seat}"}
    shape = SEAT_SHAPES[seat % len(SEAT_SHAPES)]
    if shape == "circle":
        return add(parent, "circle", cx=float(x), cy=float(y), r=radius * 0.95, **style)
    if shape == "square":
        s = radius * 0.85
        return add(parent, "rect", x=x - s, y=y - s, width=2 * s, height=2 * s, rx=radius * 0.15, **style)
    if shape == "triangle":
        s = radius * 1.15
        pts = [(x, y - s), (x + s * 0.95, y + s * 0.7), (x - s * 0.95, y + s * 0.7)]
        return add(parent, "polygon", points=points(pts), **style)
    s = radius * 1.15
    return add(parent, "polygon", points=points([(x, y - s), (x + s, y), (x, y + s), (x - s, y)]), **style)


class Recent(NamedTuple):
    """One action of the last turns: its ply (index in the game), who played it, the move."""

    ply: int
    seat: int
    move: object


def last_turns(history: Sequence[tuple[int, object]], first_ply: int = 0) -> list[Recent]:
    """The last turn of every seat, oldest first: what the page marks and animates.

    A turn is a run of consecutive actions by one seat.  Walking back from the newest
    action, each seat's newest turn is kept, and the walk stops at a seat's older turn,
    so the result covers one round at most.  The page then hides its own seats' actions
    and everything before its own last action ("until your next action").

    Args:
        history: ``(seat, move)`` of the actions that led to the position, oldest first
            (a tail of the game is enough: one round).
        first_ply: the ply of ``history[0]``.
    """
    out: list[Recent] = []
    done: set[int] = set()
    current: int | None = None
    for i in range(len(history) - 1, -1, -1):
        seat, move = history[i]
        if seat != current:
            if seat in done:
                break
            if current is not None:
                done.add(current)
            current = seat
        out.append(Recent(first_ply + i, seat, move))
    out.reverse()
    return out


def mark_recent(element: ET.Element, recent: Recent, step: int) -> None:
    """Tags ``element`` as drawn by ``recent`` (the page animates it at ``step``)."""
    element.set("data-ply", str(recent.ply))
    element.set("data-seat", str(recent.seat))
    element.set("data-step", str(step))


def board_root(game: str, width: float, height: float, view_box: str, label: str) -> ET.Element:
    """The root of a board drawing (see the module docstring for the contract)."""
    return ET.Element(
        "svg",
        {
            "class": "board-svg",
            "data-game": game,
            "width": num(width),
            "height": num(height),
            "viewBox": view_box,
            "role": "group",
            "aria-label": label,
            "font-family": "Helvetica, Arial, sans-serif",
        },
    )


def embed(parent: ET.Element, board: ET.Element, x: float, y: float) -> None:
    """Nests a board drawing into a larger document at (x, y), unchanged otherwise."""
    board.set("x", num(x))
    board.set("y", num(y))
    parent.append(board)
