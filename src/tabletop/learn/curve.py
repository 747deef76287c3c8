"""The learning curve: the trained network's Elo, measured against fixed ladder levels,
by training hours (hand-written SVG through :mod:`xml.etree`, as every drawing here).

Each ladder level gives its own estimate of the network's Elo on the ladder's scale
(the level's measured Elo plus the network's Elo against it): one line per level, each
point with its 95 % interval, and the levels' own Elo as dashed lines.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tabletop.render.svg import SvgImage, to_svg_image

WIDTH, HEIGHT = 720, 400
LEFT, RIGHT, TOP, BOTTOM = 64, 120, 56, 44
COLORS = ("#c0392b", "#2471a3", "#1e8449", "#7d3c98", "#b9770e")
CLIP = 800
"""How far beyond the points an interval is drawn (a clean sweep's interval is huge)."""


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """One measurement: the network after ``hours`` of training against ``level``.

    Attributes:
        hours: training hours when it was measured.
        generation: the generation of the network measured.
        level: the ladder level played.
        elo: the network's Elo on the ladder's scale.
        low: the 95 % interval's lower end.
        high: its upper end.
    """

    hours: float
    generation: int
    level: str
    elo: float
    low: float
    high: float


def _nice_step(span: float) -> float:
    raw = max(span, 1e-9) / 6
    power = math.pow(10.0, math.floor(math.log10(raw)))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def curve_svg(points: Sequence[CurvePoint], level_elo: Mapping[str, float], *, title: str) -> SvgImage:
    """Draws ``points`` (any order) with the levels' Elo (``level_elo``) as reference lines."""
    svg = ET.Element("svg", width=str(WIDTH), height=str(HEIGHT), viewBox=f"0 0 {WIDTH} {HEIGHT}")
    svg.set("font-family", "sans-serif")
    svg.set("font-size", "12")
    ET.SubElement(svg, "rect", width=str(WIDTH), height=str(HEIGHT), fill="white")
    ET.SubElement(svg, "text", x=str(LEFT), y="22").text = title
    centres = [p.elo for p in points] + list(level_elo.values())
    if not centres:
        centres = [0.0]
    lo = min(min((max(p.low, p.elo - CLIP) for p in points), default=min(centres)), *centres)
    hi = max(max((min(p.high, p.elo + CLIP) for p in points), default=max(centres)), *centres)
    if hi - lo < 100:
        lo, hi = lo - 50, hi + 50
    step = _nice_step(hi - lo)
    lo, hi = math.floor(lo / step) * step, math.ceil(hi / step) * step
    max_hours = max((p.hours for p in points), default=0.0) or 1.0
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(hours: float) -> float:
        return LEFT + hours / max_hours * plot_w

    def y(elo: float) -> float:
        return TOP + (hi - min(max(elo, lo), hi)) / (hi - lo) * plot_h

    tick = lo
    while tick <= hi + step / 2:
        line = ET.SubElement(svg, "line", x1=str(LEFT), x2=str(LEFT + plot_w), y1=f"{y(tick):.1f}", y2=f"{y(tick):.1f}")
        line.set("stroke", "#eee")
        label = ET.SubElement(svg, "text", x=str(LEFT - 6), y=f"{y(tick) + 4:.1f}", fill="#555")
        label.set("text-anchor", "end")
        label.text = f"{tick:.0f}"
        tick += step
    for name, elo in sorted(level_elo.items(), key=lambda item: item[1]):
        line = ET.SubElement(svg, "line", x1=str(LEFT), x2=str(LEFT + plot_w), y1=f"{y(elo):.1f}", y2=f"{y(elo):.1f}")
        line.set("stroke", "#999")
        line.set("stroke-dasharray", "4 3")
        ET.SubElement(
            svg, "text", x=str(LEFT + plot_w + 6), y=f"{y(elo) + 4:.1f}", fill="#555"
        ).text = f"{name} ({elo:.0f})"
    levels = sorted({p.level for p in points}, key=lambda name: level_elo.get(name, 0.0))
    for i, level in enumerate(levels):
        color = COLORS[i % len(COLORS)]
        mine = sorted((p for p in points if p.level == level), key=lambda p: p.hours)
        if len(mine) > 1:
            coords = " ".join(f"{x(p.hours):.1f},{y(p.elo):.1f}" for p in mine)
            ET.SubElement(svg, "polyline", points=coords, fill="none", stroke=color)
        for p in mine:
            low, high = max(p.low, p.elo - CLIP), min(p.high, p.elo + CLIP)
            bar = ET.SubElement(svg, "line", x1=f"{x(p.hours):.1f}", x2=f"{x(p.hours):.1f}")
            bar.set("y1", f"{y(low):.1f}")
            bar.set("y2", f"{y(high):.1f}")
            bar.set("stroke", color)
            bar.set("stroke-opacity", "0.4")
            dot = ET.SubElement(svg, "circle", cx=f"{x(p.hours):.1f}", cy=f"{y(p.elo):.1f}", r="3", fill=color)
            ET.SubElement(dot, "title").text = f"generation {p.generation}, {p.hours:.2f} h: {p.elo:.0f} vs {p.level}"
        # Above the plot, where no reference line crosses it.
        legend = ET.SubElement(svg, "text", x=str(LEFT + 8 + 110 * i), y=str(TOP - 14), fill=color)
        legend.text = f"vs {level}"
    hour_step = _nice_step(max_hours)
    for k in range(math.floor(max_hours / hour_step + 1e-9) + 1):
        label = ET.SubElement(svg, "text", x=f"{x(k * hour_step):.1f}", y=str(TOP + plot_h + 16), fill="#555")
        label.set("text-anchor", "middle")
        label.text = f"{k * hour_step:g}"
    axis = ET.SubElement(svg, "text", x=str(LEFT + plot_w / 2), y=str(HEIGHT - 8), fill="#555")
    axis.set("text-anchor", "middle")
    axis.text = "training hours; Elo on the ladder's scale (random = 0), 95 % intervals"
    return to_svg_image(svg)
