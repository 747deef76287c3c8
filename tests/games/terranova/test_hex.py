"""Hex-grid helpers (tabletop.grid.hex)."""

from __future__ import annotations

import pytest

from tabletop.grid import hex as hexgrid


def test_directions_follow_the_spec_order() -> None:
    assert hexgrid.DIRECTIONS == ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
    assert hexgrid.neighbors((0, 0)) == hexgrid.DIRECTIONS
    assert hexgrid.neighbor((2, 3), 4) == (1, 4)


def test_distance_and_lines() -> None:
    assert hexgrid.distance((0, 0), (3, -3)) == 3
    assert hexgrid.distance((1, 2), (-2, 1)) == 4
    assert hexgrid.direction_between((0, 0), (-2, 2)) == (4, 2)
    assert hexgrid.direction_between((0, 0), (1, 1)) is None
    assert hexgrid.direction_between((0, 0), (0, 0)) is None


def test_disc_and_ring_sizes() -> None:
    assert len(hexgrid.disc(3)) == 37
    assert len(hexgrid.ring((1, 1), 2)) == 12
    assert hexgrid.ring((1, 1), 0) == ((1, 1),)
    assert all(hexgrid.distance((1, 1), h) == 2 for h in hexgrid.ring((1, 1), 2))


def test_layout_is_pointy_top_and_round_trips() -> None:
    layout = hexgrid.Layout(size=10.0, origin=(100.0, 50.0))
    assert layout.hex_to_pixel((0, 0)) == (100.0, 50.0)
    x, y = layout.hex_to_pixel((1, 0))
    assert x == pytest.approx(100 + 10 * 3**0.5) and y == pytest.approx(50.0)
    x, y = layout.hex_to_pixel((0, 1))
    assert x == pytest.approx(100 + 5 * 3**0.5) and y == pytest.approx(65.0)
    for h in hexgrid.disc(4):
        assert layout.pixel_to_hex(*layout.hex_to_pixel(h)) == h
    corners = layout.polygon_corners((0, 0))
    assert len(corners) == 6
    assert min(c[1] for c in corners) == pytest.approx(40.0)  # a corner points up
