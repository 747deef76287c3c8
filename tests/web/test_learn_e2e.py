"""The tutorials and the rules pages in a real browser.

Each tutorial is played to the end through the page, by clicks, in English and in one
other language: in every lesson a wrong move first (the engine's reason, or the lesson's
nudge, must show), then the move the lesson teaches.  The end offers a game against
Beginner, which starts.  Screenshots at 1366, 1024 and 390 px go to a temporary folder,
or to ``TABLETOP_SCREENSHOTS`` when that names one (never into the tree by default).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from tabletop.server.learn import load_tutorial

from .driver import CELL, click_move, create

WEB = Path(__file__).resolve().parents[2] / "src" / "tabletop" / "web"
WIDTHS = (1366, 1024, 390)


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    wanted = os.environ.get("TABLETOP_SCREENSHOTS")
    folder = Path(wanted) if wanted else tmp_path_factory.mktemp("learn-shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def texts(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((WEB / "i18n" / "learn" / f"{lang}.json").read_text(encoding="utf-8"))
    return data


def in_language(browser: Any, lang: str, width: int = 1366) -> Any:
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="en-US")
    context.add_init_script(f"localStorage.setItem('tabletop.lang', '{lang}')")
    return context


def lesson_state(page: Any) -> dict[str, str]:
    data: dict[str, str] = page.evaluate("() => ({...document.querySelector('#learn').dataset})")
    return data


def accepted_move(view: dict[str, Any], task: Any) -> str:
    for moves in view["legal"].values():
        for move in moves:
            if move in task.accept_moves or (task.accept_kind and kind_of(view, move) == task.accept_kind):
                return str(move)
    raise AssertionError("no accepted move is legal")


def kind_of(view: dict[str, Any], move: str) -> str:
    return next(kind for kind, moves in view["legal"].items() if move in moves)


def wrong_click(page: Any, move: str) -> None:
    """Tries ``move`` by clicks as a learner would (its piece, then its cells)."""
    pattern = re.sub(CELL, "·", move)
    piece = page.query_selector(f'button.piece[data-piece="{pattern}"]')
    if piece is not None and piece.get_attribute("aria-pressed") != "true":
        piece.click()
    for cell in re.findall(CELL, move):
        page.click(f'[data-cell="{cell}"]')
    chooser = page.query_selector(f'#chooser button[data-move="{move}"]')
    if chooser is not None:
        chooser.click()


def play_tutorial(page: Any, base: str, game: str, lang: str, shots: Path) -> None:
    words = texts(lang)
    tutorial = load_tutorial(game)
    page.goto(f"{base}/learn/{game}")
    page.wait_for_selector("#learn[data-lesson]")
    name = "Terra Nova" if game == "terranova" else "Medina"
    assert page.inner_text("h1") == words["learn.heading"].replace("{game}", name)
    for n, lesson in enumerate(tutorial.lessons):
        page.wait_for_selector(f'#learn[data-lesson="{lesson.id}"][data-done="0"]')
        assert page.inner_text("#lesson-title") == words[f"learn.{game}.{lesson.id}.title"]
        played: list[str] = []
        for i, task in enumerate(lesson.tasks):
            page.wait_for_selector(f'#learn[data-task="{i}"][data-done="0"]')
            assert page.inner_text("#coach-text") == words[f"learn.{game}.{lesson.id}.task{i}"]
            view = page.evaluate(
                "([g, l, p]) => fetch(`/api/learn/${g}/${l}?` + new URLSearchParams(p.map((m) => ['played', m])))"
                ".then((r) => r.json())",
                [game, lesson.id, played],
            )
            wrong = (task.refused or task.nudged or ("",))[0]
            if wrong:
                wrong_click(page, wrong)
                kind = "refused" if wrong in task.refused else "nudge"
                page.wait_for_selector(f"#feedback.{kind}")
                feedback = page.inner_text("#feedback")
                hint = words[f"learn.{game}.{lesson.id}.hint{i}"]
                assert hint in feedback, feedback
                if kind == "refused":
                    # The engine's reason comes first, in the page's language.
                    prefix = words["learn.refused"].split("{reason}")[0]
                    assert feedback.startswith(prefix) and len(feedback) > len(prefix) + len(hint) + 5, feedback
                if n == 1 and i == 0 and lang == "en":
                    page.screenshot(path=str(shots / f"learn-{game}-wrong-1366.png"), full_page=True)
            move = accepted_move(view, task)
            click_move(page, move)
            played.append(move)
            page.wait_for_selector(f'#learn[data-task="{i + 1}"]')
        page.wait_for_selector('#learn[data-done="1"]')
        assert page.inner_text("#coach-text") == words[f"learn.{game}.{lesson.id}.done"]
        if n < len(tutorial.lessons) - 1:
            page.click("#next-lesson")
    page.click("#finish")
    page.wait_for_selector("#finished")
    assert words[f"learn.{game}.finished"] in page.inner_text("#finished")
    progress = page.evaluate(f"() => JSON.parse(localStorage.getItem('tabletop.learn.{game}'))")
    assert progress["finished"] and progress["done"] == [lesson.id for lesson in tutorial.lessons]
    page.screenshot(path=str(shots / f"learn-{game}-{lang}-finished.png"), full_page=True)
    # The lobby no longer offers this tutorial; it still offers the other one.
    page.goto(base)
    page.wait_for_selector("#learn-offer")
    assert page.query_selector(f'#learn-offer a.learn-link[data-game="{game}"]') is None
    page.go_back()
    page.wait_for_selector("#learn[data-lesson]")


PLAYED = [("terranova", "en"), ("terranova", "sv"), ("medina", "en"), ("medina", "it")]


@pytest.mark.parametrize(("game", "lang"), PLAYED)
def test_each_tutorial_plays_to_the_end(browser: Any, server: str, shots: Path, game: str, lang: str) -> None:
    context = in_language(browser, lang)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(server)
        page.wait_for_selector(f'#learn-offer a.learn-link[data-game="{game}"]')
        page.click(f'#learn-offer a.learn-link[data-game="{game}"]')
        page.wait_for_url(f"**/learn/{game}")
        play_tutorial(page, server, game, lang, shots)
        # Coming back starts from the first lesson again (every one is done); the end offers Beginner.
        last = load_tutorial(game).lessons[-1]
        page.click(f'.lesson-button[data-lesson="{last.id}"]')
        # The lesson loads over the network: a click before it is drawn lands on the first lesson's board.
        page.wait_for_selector(f'#learn[data-lesson="{last.id}"][data-done="0"]')
        view = page.evaluate(f"() => fetch('/api/learn/{game}/{last.id}').then((r) => r.json())")
        click_move(page, accepted_move(view, last.tasks[0]))
        page.wait_for_selector('#learn[data-done="1"]')
        page.click("#finish")
        page.click("#play-beginner")
        page.wait_for_url("**/play/**")
        page.wait_for_selector("#game[data-version]")
        players = page.evaluate(
            "() => fetch('/api/matches/' + location.pathname.split('/')[2])"
            ".then((r) => r.json()).then((v) => v.players)"
        )
        assert [p["agent"] for p in players][1:] == ["beginner"] * (len(players) - 1)
        assert len(players) == load_tutorial(game).config.num_players
    finally:
        context.close()
    assert not errors, errors


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("game", ["terranova", "medina"])
def test_screenshots_of_a_lesson_and_the_rules(browser: Any, server: str, shots: Path, game: str, width: int) -> None:
    """A lesson with a refused move and its reason, and the rules, at three widths."""
    context = in_language(browser, "en", width)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        lesson = load_tutorial(game).lessons[1]
        page.goto(f"{server}/learn/{game}?lesson={lesson.id}")
        page.wait_for_selector(f'#learn[data-lesson="{lesson.id}"]')
        wrong_click(page, lesson.tasks[0].refused[0])
        page.wait_for_selector("#feedback.refused")
        # The coach, its feedback and the piece buttons fit the width: nothing sticks out.
        overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1, f"the page is {overflow} px wider than the screen"
        page.screenshot(path=str(shots / f"learn-{game}-{width}.png"), full_page=width != 390)
        page.goto(f"{server}/rules/{game}#variants")
        page.wait_for_selector(".rules-diagram svg")
        first_flag = "return_rule" if game == "terranova" else "edition"
        assert page.query_selector(f"#variant-{first_flag}") is not None
        page.screenshot(path=str(shots / f"rules-{game}-{width}.png"))
    finally:
        context.close()
    assert not errors, errors


def test_the_rules_are_linked_from_the_lobby_each_variant_and_the_game(browser: Any, server: str) -> None:
    context = in_language(browser, "fi")
    page = context.new_page()
    try:
        page.goto(server)
        page.wait_for_selector("#learn-offer")
        page.wait_for_selector("#game-select")
        page.select_option("#game-select", "terranova")
        page.click("details.variants summary")
        links = page.eval_on_selector_all(".variant-grid a.rules-link", "els => els.map((a) => a.getAttribute('href'))")
        assert "/rules/terranova#variant-return_rule" in links
        page.click('a.rules-link[href="/rules/terranova#variant-return_rule"]')
        page.wait_for_selector("#variant-return_rule")
        title = json.loads((WEB / "rules" / "terranova.fi.json").read_text(encoding="utf-8"))["title"]
        assert page.inner_text("h1") == title
        match = create(server, "terranova", [("Ann", "human"), ("Ben", "human")])
        page.goto(f"{server}{match['spectator_link']}")
        page.wait_for_selector("#game[data-version]")
        assert page.query_selector('details.rules a.rules-link[href="/rules/terranova"]') is not None
    finally:
        context.close()
