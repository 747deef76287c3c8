"""Hints and analysis in headless Chromium: ask for a hint on one's turn, analyse a finished game."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from .driver import create, view_of

pytestmark = pytest.mark.slow


def wait_finished(base: str, match_id: str, timeout_s: float = 120) -> dict[str, Any]:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        view = view_of(base, match_id)
        if view["terminal"]:
            return view
        time.sleep(0.2)
    raise AssertionError("the bots did not finish the game")


def test_hint_draws_a_legal_suggested_move_on_the_board(page: Any, server: str) -> None:
    created = create(server, "medina", [("Ann", "human"), ("Bot 1", "random"), ("Bot 2", "random")], seed=5)
    ann = created["seats"][0]
    page.goto(server + ann["link"])
    page.wait_for_selector('#game[data-mine="1"]', timeout=20000)
    view = view_of(server, created["id"])
    page.select_option("#hint-level", "greedy")
    page.click("#hint")
    page.wait_for_selector("#hint-text", timeout=30000)
    suggested = page.text_content("#hint-text code.hint-move")
    legal = {move for moves in view["legal"].values() for move in moves}
    assert suggested in legal
    assert re.search(r"value [+-]?\d", page.text_content("#hint-text") or "")
    # The suggested placement's square is drawn on the board.
    square = re.search(r"[A-Z]+\d+", suggested or "")
    assert square is not None
    assert page.query_selector(f'#board [data-cell="{square.group(0)}"].hint') is not None
    # ... with its value written on the board.
    page.wait_for_selector("#board #hint-value")
    assert re.fullmatch(r"[+-]?\d+\.\d", page.text_content("#board #hint-value") or "")


def test_analyse_a_finished_game_and_step_to_a_marked_turn(page: Any, server: str) -> None:
    created = create(server, "medina", [("Rand 1", "random"), ("Rand 2", "random"), ("Rand 3", "random")], seed=3)
    match_id = created["id"]
    wait_finished(server, match_id)
    page.goto(f"{server}/play/{match_id}")
    page.wait_for_selector("#status.over")
    page.click("#analyse")
    page.wait_for_selector("#analysis-seats", timeout=150000)
    rows = page.query_selector_all("#analysis-seats tr")
    assert len(rows) == 4  # a header and one row per seat
    # Random play is full of blunders, each listed with the bot's better turn.
    first = page.query_selector("#analysis-turns li")
    assert first is not None
    assert "blunder" in (page.text_content("#analysis-turns") or "").lower()
    assert first.query_selector("code.better") is not None
    ply = int(first.get_attribute("data-ply") or -1)
    # On the replay page (cached: the same analysis comes back at once), a marked turn
    # shows the position before it with the better turn drawn.
    page.goto(f"{server}/replay?match={match_id}")
    page.wait_for_selector("#board")
    page.click("#analyse")
    page.wait_for_selector("#analysis-turns li", timeout=30000)
    page.click(f'#analysis-turns li[data-ply="{ply}"]')
    page.wait_for_function("p => document.querySelector('#replay-slider')?.value === String(p)", arg=ply)
    assert page.query_selector("#board .better") is not None


def test_an_answer_cut_off_midway_is_a_failed_request_not_a_page_error(page: Any, server: str) -> None:
    """A server killed while it sends a body leaves the browser a 200 with half a JSON
    document (a restart test met this in CI): the page treats it as a failed request,
    raises nothing, and asks again later."""
    answers: list[str] = []

    def cut_off_once(route: Any) -> None:
        answers.append(route.request.url)
        if len(answers) == 1:
            route.fulfill(status=200, content_type="application/json", body='{"games": [{"id": "med')
        else:
            route.continue_()

    page.route("**/api/games", cut_off_once)
    created = create(server, "medina", [("Ann", "human"), ("Bot 1", "random"), ("Bot 2", "random")], seed=5)
    page.goto(server + created["seats"][0]["link"])
    page.wait_for_selector("#hint-level", timeout=20000)
    page.wait_for_function("() => document.querySelector('#hint-level') !== null")
    assert answers, "the hint box asks for the level names"
    # The next drawing of the hint box asks again (asking for a hint draws it), and the
    # picker then shows the ladder's names, not the bots' ids.
    page.click("#hint")
    page.wait_for_selector("#hint-text", timeout=30000)
    assert len(answers) >= 2
    page.wait_for_function(
        "() => [...document.querySelectorAll('#hint-level option')].some((o) => o.textContent !== o.value)"
    )
