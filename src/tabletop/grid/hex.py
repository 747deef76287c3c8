"""Axial/cube hex-grid helpers (after Red Blob Games' "Hexagonal Grids").

Axial coordinates ``(q, r)`` are stored; the cube coordinate ``s = -q - r`` is implied.
The six directions follow the Terra Nova spec's order: E, NE, NW, W, SW, SE.

Pointy-top layout, y pointing down (spec §0)::

         NW   NE
           \\ /
      W --  *  -- E
           / \\
         SW   SE

    x = size · √3 · (q + r/2),   y = size · 1.5 · r
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

Hex = tuple[int, int]
"""An axial coordinate ``(q, r)``."""

DIRECTIONS: Final[tuple[Hex, ...]] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
"""Unit vectors E, NE, NW, W, SW, SE (index = direction number)."""

DIRECTION_NAMES: Final[tuple[str, ...]] = ("E", "NE", "NW", "W", "SW", "SE")

SQRT3: Final[float] = math.sqrt(3.0)


def add(a: Hex, b: Hex) -> Hex:
    """The vector sum of two axial coordinates."""
    return (a[0] + b[0], a[1] + b[1])


def subtract(a: Hex, b: Hex) -> Hex:
    """The vector difference ``a - b``."""
    return (a[0] - b[0], a[1] - b[1])


def scale(a: Hex, k: int) -> Hex:
    """``a`` multiplied by the integer ``k``."""
    return (a[0] * k, a[1] * k)


def neighbor(h: Hex, direction: int) -> Hex:
    """The cell next to ``h`` in ``direction`` (an index into :data:`DIRECTIONS`)."""
    dq, dr = DIRECTIONS[direction]
    return (h[0] + dq, h[1] + dr)


def neighbors(h: Hex) -> tuple[Hex, ...]:
    """The six cells around ``h`` in direction order (the board may lack some)."""
    q, r = h
    return tuple((q + dq, r + dr) for dq, dr in DIRECTIONS)


def length(h: Hex) -> int:
    """Distance of ``h`` from the origin: half the L1 norm of the cube coordinate."""
    q, r = h
    return (abs(q) + abs(r) + abs(q + r)) // 2


def distance(a: Hex, b: Hex) -> int:
    """Hex distance between two cells.

    >>> distance((0, 0), (2, -1))
    2
    """
    return length(subtract(a, b))


def direction_between(a: Hex, b: Hex) -> tuple[int, int] | None:
    """``(direction, steps)`` if ``b`` lies on a straight line from ``a``, else ``None``.

    >>> direction_between((0, 0), (0, 3))
    (5, 3)
    """
    dq, dr = b[0] - a[0], b[1] - a[1]
    steps = length((dq, dr))
    if steps == 0:
        return None
    for index, (uq, ur) in enumerate(DIRECTIONS):
        if uq * steps == dq and ur * steps == dr:
            return index, steps
    return None


def ring(center: Hex, radius: int) -> tuple[Hex, ...]:
    """The cells at exactly ``radius`` from ``center`` (``(center,)`` for radius 0)."""
    if radius == 0:
        return (center,)
    cells = []
    h = add(center, scale(DIRECTIONS[4], radius))
    for d in range(6):
        for _ in range(radius):
            cells.append(h)
            h = neighbor(h, d)
    return tuple(cells)


def disc(radius: int, center: Hex = (0, 0)) -> tuple[Hex, ...]:
    """Every cell within ``radius`` of ``center``, sorted by ``(r, q)``."""
    cq, cr = center
    cells = [
        (cq + q, cr + r)
        for q in range(-radius, radius + 1)
        for r in range(max(-radius, -q - radius), min(radius, -q + radius) + 1)
    ]
    return tuple(sorted(cells, key=lambda h: (h[1], h[0])))


@dataclass(frozen=True, slots=True)
class Layout:
    """Pointy-top hex layout: converts cells to pixel centres and corner polygons.

    Attributes:
        size: distance from a cell's centre to its corners, in pixels.
        origin: pixel position of cell ``(0, 0)``.
    """

    size: float = 1.0
    origin: tuple[float, float] = (0.0, 0.0)

    def hex_to_pixel(self, h: Hex) -> tuple[float, float]:
        """Pixel centre of cell ``h``: x = √3·(q + r/2)·size, y = 1.5·r·size (y down)."""
        q, r = h
        return (
            self.origin[0] + self.size * SQRT3 * (q + r / 2.0),
            self.origin[1] + self.size * 1.5 * r,
        )

    def pixel_to_hex(self, x: float, y: float) -> Hex:
        """The cell containing the pixel ``(x, y)`` (for click hit-testing)."""
        px = (x - self.origin[0]) / self.size
        py = (y - self.origin[1]) / self.size
        fr = py * 2.0 / 3.0
        fq = px / SQRT3 - fr / 2.0
        return round_hex(fq, fr)

    def polygon_corners(self, h: Hex) -> tuple[tuple[float, float], ...]:
        """The six corner points of cell ``h``, clockwise from the top-right (pointy top)."""
        cx, cy = self.hex_to_pixel(h)
        corners = []
        for i in range(6):
            angle = math.radians(60 * i - 30)
            corners.append((cx + self.size * math.cos(angle), cy + self.size * math.sin(angle)))
        return tuple(corners)


def round_hex(fq: float, fr: float) -> Hex:
    """Rounds fractional axial coordinates to the nearest cell (cube rounding)."""
    fs = -fq - fr
    q, r, s = round(fq), round(fr), round(fs)
    dq, dr, ds = abs(q - fq), abs(r - fr), abs(s - fs)
    if dq > dr and dq > ds:
        q = -r - s
    elif dr > ds:
        r = -q - s
    return (q, r)
