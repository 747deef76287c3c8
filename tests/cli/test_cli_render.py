"""``tabletop render``: the position as SVG, and with ``--board`` the very drawing the web page shows."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tabletop.cli.main import app
from tabletop.core.record import GameRecord
from tabletop.server.replay import replay_board

runner = CliRunner()
NS = {"svg": "http://www.w3.org/2000/svg"}


@pytest.mark.parametrize("game", ["terranova", "medina"])
def test_render_board_is_the_pages_drawing(game: str, tmp_path: Path) -> None:
    out = tmp_path / "records"
    result = runner.invoke(app, ["selfplay", game, "--out", str(out), "--seed", "3"])
    assert result.exit_code == 0, result.output
    [path] = out.glob("*.json")
    record = GameRecord.loads(path.read_text(encoding="utf-8"))
    board, full = tmp_path / "board.svg", tmp_path / "full.svg"
    assert runner.invoke(app, ["render", str(path), "--ply", "30", "--board", "-o", str(board)]).exit_code == 0
    assert runner.invoke(app, ["render", str(path), "--ply", "30", "-o", str(full)]).exit_code == 0
    drawn = board.read_text(encoding="utf-8")
    # The replay page asks the server for this: the same function, so the same picture.
    assert drawn == replay_board(record, 30)
    root = ET.fromstring(drawn)
    assert root.get("class") == "board-svg"
    assert root.findall(".//svg:g[@class='motion']/*", NS)  # the last turns are marked
    # The full render embeds the same board (its marks are the last action's only).
    embedded = ET.fromstring(full.read_text(encoding="utf-8")).find("svg:svg[@class='board-svg']", NS)
    assert embedded is not None
    cells = [e.get("data-cell") for e in embedded.iter() if e.get("data-cell")]
    assert cells == [e.get("data-cell") for e in root.iter() if e.get("data-cell")]
