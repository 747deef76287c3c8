"""Pictures, JSON view, score description and evaluation of Medina positions."""

from __future__ import annotations

import json
import random
import xml.etree.ElementTree as ET
from pathlib import Path

from tabletop.ai.agent import random_move
from tabletop.core.protocol import GameConfig
from tabletop.core.registry import make
from tabletop.games.medina import State
from tabletop.games.medina.board import diagram
from tabletop.testing.playthrough import check_golden_file
from tests.builders import medina_position

GAME = make("medina", engine="python")
GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "medina"


def _midgame(seed: int = 3, plies: int = 60) -> State:
    rng = random.Random(seed)
    state: State = GAME.new_initial_state(GameConfig(num_players=4))
    for _ in range(plies):
        state = state.apply(random_move(state, rng))  # type: ignore[assignment]
    return state


def test_text_shows_coordinates_supplies_and_tiles() -> None:
    state = medina_position(
        "gray:E5 E6", "S:D5", "M:H8 H9", "W:B1 C1", domes={"E5": 1}, palace_tiles={"gray": 1}, tower_tiles={"A1": 2}
    )
    text = GAME.render_text(state)
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["A", "B", "C"]
    row5 = next(line for line in lines if line.startswith("  5 "))
    assert row5.split()[5] == "G2"  # the dome of seat 1 (P2) on E5
    assert "palace tiles: gray(1): P2" in text
    assert "A1(4): P3" in text
    assert "P1 (red): gray 5" in text
    coloured = GAME.render_text(state, color=True)
    assert "\x1b[" in coloured


def test_svg_is_standalone_xml_with_every_piece() -> None:
    state = _midgame()
    svg = GAME.render_svg(state, last_moves=state.legal_moves()[:1])
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    texts = [e.text for e in root.iter() if e.tag.endswith("text")]
    assert "Palace tiles" in texts and "Tower tiles" in texts
    assert state._repr_svg_() == str(GAME.render_svg(state))


def test_json_view_is_complete_and_serialisable() -> None:
    state = _midgame()
    view = state.to_json()
    json.dumps(view)
    for key in (
        "board",
        "palaces",
        "pieces",
        "walls",
        "domes",
        "supplies",
        "palace_tiles",
        "tower_tiles",
        "merchant_chain",
        "current_player",
        "placements_left",
        "phase",
        "outcome",
        "legal_moves",
    ):
        assert key in view
    assert len(view["board"]["building_squares"]) == 176
    assert len(view["board"]["wall_spaces"]) == 54
    assert view["legal_moves"] == [str(m) for m in state.legal_moves()]


def test_describe_score_and_evaluate() -> None:
    state = medina_position("gray:E5 F5 F6", "S:F4", "M:E6 G4 G7", domes={"E5": 0})
    assert "3 pieces + 1 stable + 2 merchants + 0 walls = 6" in GAME.describe_score(state)
    values = GAME.evaluate(state)
    assert len(values) == 4 and all(isinstance(v, float) for v in values)


def test_copy_keeps_every_field() -> None:
    state = _midgame()
    assert state.replace() == state and hash(state.replace()) == hash(state)


def test_board_diagram() -> None:
    lines = diagram().splitlines()
    assert lines[1].split() == ["13", "T", *["w"] * 16, "T"]
    assert lines[3].split()[:4] == ["11", "w", ".", "+"]


def test_golden_playthroughs_replay() -> None:
    for n in GAME.bench_player_counts:
        assert check_golden_file(GOLDEN / f"{n}p.json") == []


NS = {"svg": "http://www.w3.org/2000/svg"}


def test_the_svg_render_embeds_the_citys_own_drawing() -> None:
    """One source: ``render_svg`` is the page's drawing (``render_board``) plus a panel."""
    state = _midgame()
    board = ET.fromstring(GAME.render_board(state))  # type: ignore[attr-defined]
    embedded = ET.fromstring(GAME.render_svg(state)).find("svg:svg[@class='board-svg']", NS)
    assert embedded is not None
    for key in ("x", "y"):
        embedded.attrib.pop(key)
    assert ET.tostring(embedded) == ET.tostring(board)


def test_the_city_draws_buildings_domes_stables_merchants_walls_and_towers() -> None:
    state = medina_position(
        "gray:E5 E6", "S:D5", "M:H8 H9", "W:B1 C1", domes={"E5": 1}, palace_tiles={"gray": 1}, tower_tiles={"A1": 2}
    )
    root = ET.fromstring(GAME.render_board(state))  # type: ignore[attr-defined]
    pieces = root.find("svg:g[@class='pieces']", NS)
    assert pieces is not None

    def on(selector: str) -> list[str]:
        return sorted(e.get("data-on", "") for e in pieces.findall(selector, NS))

    assert on("svg:g[@class='palace gray']") == ["E5", "E6"]
    assert on("svg:g[@class='dome p1']") == ["E5"]
    assert on("svg:g[@class='stable']") == ["D5"]
    assert on("svg:g[@class='merchant active']") + on("svg:g[@class='merchant']") == ["H8", "H9"]
    assert on("svg:g[@class='wall']") == ["B1", "C1"]
    towers = pieces.findall("svg:g[@class='tower']", NS)
    assert sorted(t.findtext("svg:text", namespaces=NS) or "" for t in towers) == ["1", "2", "3", "4"]
    a1 = next(t for t in towers if t.get("data-on") == "A1")
    assert a1.find("svg:*[@class='token p2']", NS) is not None  # its holder's token
    # Every square is one cell; nothing else claims a cell.
    assert len([e for e in root.iter() if e.get("data-cell")]) == 18 * 13
    assert "style=" not in GAME.render_board(state)  # type: ignore[attr-defined]
