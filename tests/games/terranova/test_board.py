"""Board tables: indexing, neighbours, rays and the lattice/lines layouts agree."""

from __future__ import annotations

from typing import Any

import pytest

from tabletop.games.terranova import board_for
from tabletop.games.terranova.board import RING_ARCS
from tabletop.grid.hex import DIRECTIONS

from .helpers import d37, disc168, parallelogram

MAPS: dict[str, Any] = {
    "isola": "isola",
    "d37": d37(),
    "disc168": disc168(),
    "gap": parallelogram(5, 3, "ABCDE", [(2, 1)]),
}


@pytest.mark.parametrize("name", MAPS)
def test_layouts_agree_with_the_coordinates(name: str) -> None:
    board = board_for(MAPS[name])
    n = board.num_cells
    assert sorted(board.coords, key=lambda h: (h[1], h[0])) == list(board.coords)
    for i, (q, r) in enumerate(board.coords):
        for d, (dq, dr) in enumerate(DIRECTIONS):
            expected = board.index.get((q + dq, r + dr), -1)
            # lattice: one fixed shift per direction
            shifted = board.lattice_bits[i].bit_length() - 1 + board.lattice_shifts[d]
            cell = board.lattice_cells[shifted] if 0 <= shifted < len(board.lattice_cells) else -1
            assert cell == expected
            # lines: the next bit of copy d
            bit = board.line_positions[d][i]
            assert board.line_cells[bit + 1] == expected
            # rays walk the same way
            ray = board.rays[i][d]
            assert (ray[0] if ray else -1) == expected
        assert set(board.neighbors[i]) == {j for j in range(n) if board.neighbor_masks[i] >> j & 1}
    everything = board.all_cells
    assert board.from_lattice(board.to_lattice(everything)) == everything
    assert board.to_lattice(everything) == board.lattice_all
    assert board.to_lines(everything) == board.line_all
    odd = sum(1 << i for i in range(0, n, 3))
    assert board.from_lattice(board.to_lattice(odd)) == odd
    assert board.cells_of(odd) == list(range(0, n, 3))


def test_ring_arcs() -> None:
    assert RING_ARCS[0] == ()
    assert RING_ARCS[0b111111] == (0b111111,)
    assert RING_ARCS[0b100001] == (0b100001,)  # SE and E touch across the wrap
    assert sorted(RING_ARCS[0b010101]) == [0b000001, 0b000100, 0b010000]
    assert sorted(RING_ARCS[0b011011]) == [0b000011, 0b011000]


def test_boards_are_cached_and_compared_by_content() -> None:
    assert board_for(None) is board_for("isola")
    a = board_for(d37())
    assert a is board_for(d37())
    spelled_differently = {**d37(), "name": "D3-7 again"}
    b = board_for(spelled_differently)
    assert b is not a and b != a  # the name is part of the map
    assert board_for(a.map) == a and hash(board_for(a.map)) == hash(a)
