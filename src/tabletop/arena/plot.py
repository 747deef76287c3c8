"""The ratings plot: one row per bot, its Elo as a dot and its confidence interval as a bar.

Hand-written SVG through :mod:`xml.etree` (as every renderer in tabletop), so the arena
needs no plotting library.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from tabletop.arena.ratings import Rating
from tabletop.render.svg import SvgImage, to_svg_image

_ROW = 28
_LEFT = 150
_WIDTH = 640
_TOP = 40
_BOTTOM = 36


def _nice_step(span: float) -> float:
    """A round tick step giving about six ticks over ``span``."""
    raw = span / 6
    power = math.pow(10.0, math.floor(math.log10(raw)))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def ratings_svg(ratings: Sequence[Rating], *, title: str = "Elo ratings (95 % interval)") -> SvgImage:
    """Draws ``ratings`` (best first) as a dot-and-interval chart.

    Args:
        ratings: from :func:`tabletop.arena.ratings.rate`.
        title: the caption at the top.
    """
    height = _TOP + _ROW * max(len(ratings), 1) + _BOTTOM
    svg = ET.Element("svg", width=str(_WIDTH), height=str(height), viewBox=f"0 0 {_WIDTH} {height}")
    svg.set("font-family", "sans-serif")
    svg.set("font-size", "13")
    ET.SubElement(svg, "rect", width=str(_WIDTH), height=str(height), fill="white")
    ET.SubElement(svg, "text", x=str(_WIDTH // 2), y="22", attrib={"text-anchor": "middle"}).text = title
    if not ratings:
        return to_svg_image(svg)
    # Intervals from a bootstrap can be huge for a bot that won or lost everything:
    # clip the axis to a readable range around the point estimates.
    centres = [r.elo for r in ratings]
    lo = min(min(max(r.low, r.elo - 600) for r in ratings), *centres)
    hi = max(max(min(r.high, r.elo + 600) for r in ratings), *centres)
    if hi - lo < 50:
        lo, hi = lo - 25, hi + 25
    step = _nice_step(hi - lo)
    lo, hi = math.floor(lo / step) * step, math.ceil(hi / step) * step
    plot_w = _WIDTH - _LEFT - 30

    def x(value: float) -> float:
        return _LEFT + (min(max(value, lo), hi) - lo) / (hi - lo) * plot_w

    axis_y = _TOP + _ROW * len(ratings)
    tick = lo
    while tick <= hi + 1e-9:
        tx = f"{x(tick):.1f}"
        ET.SubElement(svg, "line", x1=tx, x2=tx, y1=str(_TOP - 6), y2=str(axis_y), stroke="#ddd")
        ET.SubElement(svg, "text", x=tx, y=str(axis_y + 18), attrib={"text-anchor": "middle"}).text = f"{tick:g}"
        tick += step
    for i, r in enumerate(ratings):
        cy = _TOP + _ROW * i + _ROW // 2
        ET.SubElement(svg, "text", x=str(_LEFT - 10), y=str(cy + 4), attrib={"text-anchor": "end"}).text = r.bot
        ET.SubElement(
            svg, "line", x1=f"{x(r.low):.1f}", x2=f"{x(r.high):.1f}", y1=str(cy), y2=str(cy), stroke="#4a6fa5"
        ).set("stroke-width", "3")
        ET.SubElement(svg, "circle", cx=f"{x(r.elo):.1f}", cy=str(cy), r="5", fill="#c0392b")
        label = ET.SubElement(svg, "text", x=f"{x(r.elo):.1f}", y=str(cy - 8), attrib={"text-anchor": "middle"})
        label.set("font-size", "11")
        label.text = f"{r.elo:+.0f}"
    return to_svg_image(svg)
