"""Drawing Terra Nova positions: terminal text and SVG."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from functools import cache

import pytest

from tabletop.core.protocol import GameConfig
from tabletop.games.terranova import GAME, State
from tabletop.games.terranova.moves import PASS, Slide, Stone
from tabletop.games.terranova.notation import cell_labels
from tabletop.games.terranova.render import render_board, render_svg, render_text
from tabletop.render.svg import MIN_TAP, SvgImage, last_turns

NS = {"svg": "http://www.w3.org/2000/svg"}
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def d37_map() -> dict[str, object]:
    """``D3-7`` of spec §7: the radius-3 disc, one landscape per column q."""
    by_q = {-3: "F", -2: "M", -1: "A", 0: "L", 1: "P", 2: "S", 3: "H"}
    cells = [[q, r, by_q[q]] for q in range(-3, 4) for r in range(-3, 4) if abs(q + r) <= 3]
    lands = {k: {"name": k, "water": k == "L"} for k in by_q.values()}
    return {"id": "d3-7", "landscapes": lands, "cells": cells}


def playout(num_players: int, seed: int, *, areas: int = 0, map_: object = None) -> tuple[State, list[object]]:
    """A seeded random game, stopped once ``areas`` areas are scored (or at its end)."""
    rng = random.Random(seed)
    config = GameConfig(num_players, seed=seed, map=map_)  # type: ignore[arg-type]
    state = GAME.new_initial_state(config)
    moves: list[object] = []
    while not state.is_terminal() and (areas == 0 or len(state.areas) < areas):
        legal = list(state.legal_moves())
        stones = [m for m in legal if m.kind == "stone"]
        move = rng.choice(stones) if stones and rng.random() < 0.5 else rng.choice(legal)
        moves.append(move)
        state = state.apply(move)
    return state, moves


@cache
def midgame() -> tuple[State, tuple[object, ...]]:
    state, moves = playout(3, 7, areas=2)
    assert len(state.areas) >= 2 and state.stones
    return state, tuple(moves)


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


# --- SVG --------------------------------------------------------------------------------------


def test_svg_of_the_empty_board_is_valid_and_has_every_cell() -> None:
    state = GAME.new_initial_state(GameConfig(2, seed=1))
    svg = render_svg(state)
    assert isinstance(svg, SvgImage)
    assert svg._repr_svg_() == str(svg)
    root = parse(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    cells = root.findall(".//svg:g[@class='cells']/svg:g[@class='cell']", NS)
    assert sorted(c.get("data-cell") for c in cells) == sorted(state.board.names)
    assert len(cells) == 168
    # Nothing else carries data-cell: the page finds exactly one element per cell.
    assert len([e for e in root.iter() if e.get("data-cell")]) == 168


def test_svg_is_self_contained() -> None:
    svg = render_svg(midgame()[0])
    root = parse(svg)
    # No external images, fonts or stylesheets: every reference is to this document.
    hrefs = {e.get("href") for e in root.iter() if e.get("href") is not None}
    ids = {e.get("id") for e in root.iter() if e.get("id")}
    assert all(h is not None and h.startswith("#") and h[1:] in ids for h in hrefs)
    pattern_ids = {p.get("id") for p in root.iter("{http://www.w3.org/2000/svg}pattern")}
    used = set(re.findall(r"url\(#([\w-]+)\)", svg))
    assert used <= pattern_ids
    assert "style=" not in svg  # the page's Content-Security-Policy blocks inline styles


def test_svg_has_a_pattern_per_landscape() -> None:
    state = GAME.new_initial_state(GameConfig(2, seed=1))
    root = parse(render_svg(state))
    for k, landscape in enumerate(state.board.landscapes):
        pattern = root.find(f".//svg:pattern[@id='land-{k}']", NS)
        assert pattern is not None
        assert pattern[0].get("fill") == landscape.color
        assert len(pattern) >= 2, f"{landscape.pattern} has no motif"
    patterns = root.iter("{http://www.w3.org/2000/svg}pattern")
    motifs = {ET.tostring(p[1]) for p in patterns if p.get("id", "").startswith("land-")}
    assert len(motifs) == len(state.board.landscapes)  # colour is never the only cue


def test_svg_draws_every_piece_and_area() -> None:
    state, _ = midgame()
    root = parse(render_svg(state))
    board = state.board
    pioneers = root.findall(".//svg:g[@class='pioneer']", NS)
    assert len(pioneers) == sum(own.bit_count() for own in state.pioneers)
    for token in pioneers:
        seat = int(token.get("data-seat", "-1"))
        assert state.pioneers[seat] >> board.name_index[token.get("data-on", "")] & 1
        assert token.find("svg:text", NS) is not None  # the letter, a second cue
    stones = root.findall(".//svg:polygon[@class='stone']", NS)
    assert sorted(s.get("data-on") for s in stones) == sorted(board.names[i] for i in board.cells_of(state.stones))
    areas = root.findall(".//svg:g[@class='area']", NS)
    assert len(areas) == len(state.areas)
    assert len(root.findall(".//svg:use[@class='closed']", NS)) == state.closed.bit_count()
    texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert f"{state.areas[0].value} pts" in texts


def test_svg_panel_shows_scores_turn_and_supply() -> None:
    state, _ = midgame()
    root = parse(render_svg(state))
    texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
    for seat, colour in enumerate(state.context.seat_colors):
        assert f"{colour}: {state.points[seat]} pts" in texts
    assert f"Stones in supply: {state.supply}" in texts
    assert len(root.findall(".//svg:g[@class='score']", NS)) == state.num_players


def test_svg_draws_coordinates_along_the_edges() -> None:
    state = GAME.new_initial_state(GameConfig(2, seed=1))
    root = parse(render_svg(state))
    labels = {t.text for t in root.findall(".//svg:g[@class='coords coordinates']/svg:text", NS)}
    expected = cell_labels(state.board)
    assert set(expected["columns"].values()) <= labels
    assert set(expected["rows"].values()) <= labels


def test_svg_highlights_last_moves() -> None:
    state, moves = midgame()
    slide = next(m for m in reversed(moves) if isinstance(m, Slide))
    stone = next(m for m in reversed(moves) if isinstance(m, Stone))
    root = parse(render_svg(state, last_moves=(slide, stone, PASS)))
    arrows = root.findall(".//svg:path[@class='motion-path last-move']", NS)
    assert [a.get("data-move") for a in arrows] == [state.move_to_str(slide)]
    assert len(root.findall(".//svg:polygon[@data-at]", NS)) == 3  # the slide's two cells and the stone's
    plain = parse(render_svg(state))
    assert plain.findall(".//svg:g[@class='motion']/*", NS) == []


def test_svg_of_a_finished_game() -> None:
    state, _ = playout(2, 3)
    assert state.is_terminal()
    root = parse(render_svg(state))
    status = root.find(".//svg:text[@class='status']", NS)
    assert status is not None and (status.text or "").startswith("Game over")


def test_svg_of_a_small_custom_map() -> None:
    state = GAME.new_initial_state(GameConfig(2, seed=1, map=d37_map()))
    root = parse(render_svg(state))
    assert len(root.findall(".//svg:g[@class='cells']/svg:g[@data-cell]", NS)) == 37


def test_game_hooks_draw_through_the_protocol() -> None:
    state, moves = midgame()
    assert GAME.render_svg(state, last_moves=list(moves[-1:])) == render_svg(state, last_moves=tuple(moves[-1:]))
    assert GAME.render_text(state) == render_text(state)


# --- text -------------------------------------------------------------------------------------


def test_text_shows_coordinates_on_the_edges() -> None:
    state = GAME.new_initial_state(GameConfig(2, seed=1))
    text = render_text(state)
    words = set(text.split())
    labels = cell_labels(state.board)
    assert set(labels["columns"].values()) <= words
    assert set(labels["rows"].values()) <= words
    first_line = text.splitlines()[0].split()
    assert first_line and all(word.isalpha() for word in first_line)  # column letters above the board


def test_text_shows_every_cell_and_piece() -> None:
    state, _ = midgame()
    text = render_text(state)
    board_part = text.split("\n\n")[0]
    tokens = re.findall(r"(?<!\S)(?:[a-z][.YRBG]|##|--)(?!\S)", board_part)
    assert len(tokens) == state.board.num_cells
    assert sum(1 for t in tokens if t[1] in "YRBG") == sum(own.bit_count() for own in state.pioneers)
    assert tokens.count("##") == state.stones.bit_count()
    assert tokens.count("--") == state.closed.bit_count()


def test_text_status_lines() -> None:
    state, _ = midgame()
    text = render_text(state)
    assert f"stones in supply {state.supply}" in text
    assert f"{state.context.seat_colors[state.current_player]} to act" in text or "game over" in text
    for seat, colour in enumerate(state.context.seat_colors):
        assert re.search(rf"{colour}\s+{state.points[seat]} points", text)
    assert "f Forest" in text and "## stone" in text
    placement = render_text(GAME.new_initial_state(GameConfig(3, seed=2)))
    assert "placement" in placement and "30 pioneers to go" in placement


def test_text_counts_in_the_singular_for_one() -> None:
    """The terminal says "1 pioneer", never "1 pioneers"."""
    state = GAME.new_initial_state(GameConfig(2, seed=2))
    while sum(state.in_hand) > 1:
        state = state.apply(next(iter(state.legal_moves())))
    assert "(1 pioneer to go)" in render_text(state) and "1 pioneers" not in render_text(state)
    assert "1 pioneer left" in str(state)


@pytest.mark.parametrize("color", [False, True])
def test_text_colour_is_optional(color: bool) -> None:
    state, _ = midgame()
    text = render_text(state, color=color)
    assert bool(ANSI.search(text)) is color
    if color:
        assert ANSI.sub("", text) == render_text(state)


def test_text_of_a_finished_game() -> None:
    state, _ = playout(2, 3)
    assert "game over" in render_text(state)


def test_the_svg_render_embeds_the_boards_own_drawing() -> None:
    """One source: ``render_svg`` is the page's drawing (``render_board``) plus a panel."""
    state, _ = midgame()
    board = parse(render_board(state))
    document = parse(render_svg(state))
    embedded = document.find("svg:svg[@class='board-svg']", NS)
    assert embedded is not None
    for key in ("x", "y"):
        embedded.attrib.pop(key)
    board.attrib.pop("xmlns", None)
    assert ET.tostring(embedded) == ET.tostring(board)
    assert GAME.render_board(state) == render_board(state)


def test_board_marks_the_last_turn_of_every_seat_in_order() -> None:
    state, moves = midgame()
    seats = []
    replayed = GAME.new_initial_state(state.config)
    for move in moves:
        seats.append(replayed.current_player)
        replayed = replayed.apply(move)
    history = list(zip(seats, moves, strict=True))
    recent = last_turns(history)
    assert recent
    root = parse(render_board(state, history=history))
    marked = [e for e in root.iter() if e.get("data-ply") is not None]
    assert {int(e.get("data-ply", "")) for e in marked} <= {r.ply for r in recent}
    marks = root.findall(".//svg:g[@class='motion']/*", NS)
    steps = [int(e.get("data-step", "")) for e in marks]
    assert marks and steps == sorted(steps)
    assert all(int(e.get("data-seat", "")) == seats[int(e.get("data-ply", ""))] for e in marked)
    # A piece that slid knows where from (the page animates it along its path).
    slides = [e for e in marked if e.get("data-from-x") is not None]
    assert all(isinstance(r.move, Slide) for r in recent if r.ply in {int(e.get("data-ply", "")) for e in slides})


def test_cells_are_big_enough_to_tap_at_natural_size() -> None:
    state, _ = midgame()
    root = parse(render_board(state))
    assert float(root.get("width", "0")) >= 44 * 7
    hexagon = root.find(".//svg:defs/svg:polygon[@id='hex']", NS)
    assert hexagon is not None
    xs = [float(p.split(",")[0]) for p in hexagon.get("points", "").split()]
    assert max(xs) - min(xs) >= MIN_TAP
