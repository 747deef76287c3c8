"""Issue 25 in headless Chromium: reasons in the player's language, the game panel, the end
screen, layouts at three sizes, keyboard play and the small things (tokens, uploads, /replay)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from .driver import click_move, create, view_of, wait_version

pytestmark = pytest.mark.slow

VIEWPORTS = {"desktop": (1366, 907), "laptop": (1024, 768), "phone": (390, 844)}

OVERFLOW = """() => {
  const width = window.innerWidth;
  const wide = [...document.querySelectorAll('body *')].filter((el) => {
    // The board's own frame pans on a phone (board.css): what it clips is not cut off.
    if (el.closest('.board-scroll')) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.right > width + 0.5;
  }).map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className.baseVal ?? el.className}`);
  return {scrollWidth: document.scrollingElement.scrollWidth, width, wide: wide.slice(0, 10)};
}"""


def assert_fits(page: Any) -> None:
    """No sideways scroll, and no element's right edge beyond the viewport."""
    fit = page.evaluate(OVERFLOW)
    assert fit["scrollWidth"] <= fit["width"], fit
    assert fit["wide"] == [], fit


def finish(base: str, match_id: str, page: Any) -> dict[str, Any]:
    for _ in range(1200):
        view = view_of(base, match_id)
        if view["terminal"]:
            return view
        page.wait_for_timeout(50)
    raise AssertionError("the bots did not finish")


@pytest.fixture(scope="module")
def finished(server: str, browser: Any) -> dict[str, Any]:
    """A Medina game the bots played to the end (3 seats, so a shared table)."""
    m = create(server, "medina", [("Ann", "random"), ("Bea", "random"), ("Cy", "random")], seed=21)
    context = browser.new_context()
    try:
        view = finish(server, m["id"], context.new_page())
    finally:
        context.close()
    return {"id": m["id"], "view": view}


@pytest.fixture
def page_at(browser: Any) -> Iterator[Any]:
    """Opens pages at a chosen size and language; every one fails the test on a JavaScript error."""
    contexts: list[Any] = []
    errors: list[str] = []

    def open_page(size: tuple[int, int] = (1280, 900), lang: str | None = None) -> Any:
        context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="en-US")
        if lang:
            context.add_init_script(f"localStorage.setItem('tabletop.lang', '{lang}')")
        contexts.append(context)
        pg = context.new_page()
        pg.on("pageerror", lambda e: errors.append(str(e)))
        return pg

    yield open_page
    for c in contexts:
        c.close()
    assert not errors, errors


def test_plural_forms_come_from_the_language(page_at: Any, server: str) -> None:
    page = page_at()
    page.goto(server + "/")
    page.wait_for_selector("#create")
    said = page.evaluate("""async () => {
      const i18n = await import('/static/i18n.js');
      const out = {};
      for (const lang of ['en', 'fi', 'it']) {
        await i18n.setLanguage(lang);
        out[lang] = [1, 3].map((n) => i18n.t('game.feed_scored', {name: 'A', n}));
      }
      await i18n.setLanguage('en');
      return out;
    }""")
    assert said["en"] == ["A scores 1 point", "A scores 3 points"]
    assert said["fi"] == ["A saa 1 pisteen", "A saa 3 pistettä"]
    assert said["it"] == ["A segna 1 punto", "A segna 3 punti"]


@pytest.mark.parametrize(("lang", "words"), [("en", "is occupied"), ("sv", "är upptagen"), ("it", "è occupata")])
def test_a_refused_click_shows_the_engines_reason_translated(page_at: Any, server: str, lang: str, words: str) -> None:
    """Problem 4: the engine's reason, not "Not a legal action here", in the player's language."""
    m = create(server, "terranova", [("Ann", "human"), ("Ben", "human")], start_player=0, seed=5)
    page = page_at(lang=lang)
    page.goto(server + m["seats"][0]["link"])
    page.wait_for_selector('#game[data-mine="1"]')
    first = view_of(server, m["id"])["legal"]["place"][0]
    click_move(page, first)
    wait_version(page, 1)
    httpx2.post(  # the other seat places too, so it is Ann's turn again
        f"{server}/api/matches/{m['id']}/actions",
        json={"token": m["seats"][1]["token"], "version": 1, "action": view_of(server, m["id"])["legal"]["place"][0]},
        timeout=10,
    )
    wait_version(page, 2)
    page.wait_for_selector('#game[data-mine="1"]')
    page.click(f'[data-cell="{first}"]')
    page.wait_for_selector("#notice.warn")
    assert words in (page.text_content("#notice") or "")
    assert view_of(server, m["id"])["version"] == 2  # nothing was played
    # Typed text gets the engine's reason too (no stones while placing).
    before = page.text_content("#notice")
    page.fill("#move-input", "#" + first)
    page.press("#move-input", "Enter")
    page.wait_for_function("t => document.querySelector('#notice').textContent !== t", arg=before)
    assert first not in (page.text_content("#notice") or "")


def test_score_events_are_a_feed_not_toasts(page_at: Any, server: str, finished: dict[str, Any]) -> None:
    """Problem 5: score events in the panel's feed; nothing floats over the controls."""
    page = page_at()
    page.goto(f"{server}/play/{finished['id']}")
    page.wait_for_selector("#end-screen")
    page.wait_for_selector("#score-feed li")
    assert page.locator(".toast").count() == 0
    feed = page.locator("#score-feed li").count()
    assert feed > 0
    # The panel shows each player's last change next to the score.
    assert page.locator("li.player .change").count() >= 1
    # The feed box sits in the panel's flow, under the download link's column, not over it.
    boxes = page.evaluate("""() => ['#score-feed', '#download', '#replay-link'].map((s) => {
      const r = document.querySelector(s).getBoundingClientRect();
      return [r.left, r.top, r.right, r.bottom];
    })""")
    feed_box, *links = boxes
    for link in links:
        overlap = not (
            link[2] <= feed_box[0] or link[0] >= feed_box[2] or link[3] <= feed_box[1] or link[1] >= feed_box[3]
        )
        assert not overlap, (feed_box, link)


@pytest.mark.parametrize("lang", ["en", "nl"])
def test_end_screen_names_the_winner_and_the_reason(
    page_at: Any, server: str, finished: dict[str, Any], lang: str
) -> None:
    """Problem 9: the winner by name, the end reason in words, the final tables, translated."""
    view = finished["view"]
    page = page_at(lang=lang)
    page.goto(f"{server}/play/{finished['id']}")
    page.wait_for_selector("#end-screen")
    winner = page.text_content("#winner") or ""
    for w in view["outcome"]["winners"]:
        assert view["players"][w]["name"] in winner
    for colour in ("red", "blue", "green", "yellow", "Player 2"):
        assert colour not in winner
    reason = page.text_content("#end-reason") or ""
    expected = {"en": "nobody can place a piece any more", "nl": "niemand nog een deel kan plaatsen"}[lang]
    assert expected in reason and "no_legal_placements" not in reason
    palaces = page.locator("#sheet-palaces tbody tr").count()
    assert palaces == len(view["score_sheet"]["tables"][1]["rows"]) or palaces == 1
    totals = page.locator("#sheet-players tbody tr td.num").all_text_contents()
    assert [int(x) for x in totals[-1:]] == [view["scores"][-1]]
    if lang == "nl":
        assert "Paleizen" in (page.text_content("#final-table") or "")
    # No English engine dump left over.
    assert page.locator("#score-text").count() == 0


def test_move_list_shows_a_past_position_and_goes_back_live(
    page_at: Any, server: str, finished: dict[str, Any]
) -> None:
    page = page_at()
    page.goto(f"{server}/play/{finished['id']}")
    page.wait_for_selector("#end-screen")
    page.wait_for_function("() => document.querySelectorAll('#log button.move').length > 3")
    live = page.inner_html("#board")
    page.click("#log li:nth-child(3) button.move")
    page.wait_for_selector("#viewing")
    assert "3" in (page.text_content("#viewing") or "")
    page.wait_for_function("live => document.querySelector('#board').innerHTML !== live", arg=live)
    assert page.locator("#log li.current").count() == 1
    page.click("#back-live")
    page.wait_for_selector("#viewing", state="detached")
    assert page.locator("#log li.current").count() == 0


@pytest.mark.parametrize("size", list(VIEWPORTS))
@pytest.mark.parametrize("game", ["terranova", "medina"])
def test_layouts_fit_without_sideways_scroll(
    page_at: Any, server: str, game: str, size: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Problems 6 and 8: nothing cut off or wider than the window at 1366, 1024 and 390 px;
    on a phone the piece picker sits right under the board."""
    seats = [("Ann", "human"), ("Bot", "random")] + ([("Bot 2", "random")] if game == "medina" else [])
    m = create(server, game, seats, start_player=0, seed=9)
    page = page_at(VIEWPORTS[size])
    page.goto(server + m["seats"][0]["link"])
    page.wait_for_selector('#game[data-mine="1"]')
    if game == "medina":  # past the starting merchant, to a turn with the piece picker
        view = view_of(server, m["id"])
        start = view["legal"]["merchant_start"][0]
        httpx2.post(
            f"{server}/api/matches/{m['id']}/actions",
            json={"token": m["seats"][0]["token"], "version": view["version"], "action": start},
            timeout=10,
        )
        page.wait_for_selector("div.pieces")
    page.wait_for_selector("#players")
    assert_fits(page)
    if game == "medina":
        board = page.locator(".board-scroll").bounding_box()  # the frame: the board pans inside it
        pieces = page.locator("div.pieces").bounding_box()
        assert board is not None and pieces is not None
        if size == "phone":
            assert 0 <= pieces["y"] - (board["y"] + board["height"]) < 80  # right under the board
        else:
            assert pieces["x"] >= board["x"] + board["width"]  # beside it
    shots = tmp_path_factory.mktemp("layouts")
    page.screenshot(path=str(shots / f"{game}-{size}.png"), full_page=True)


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_finished_game_and_replay_fit(page_at: Any, server: str, finished: dict[str, Any], size: str) -> None:
    page = page_at(VIEWPORTS[size])
    page.goto(f"{server}/play/{finished['id']}")
    page.wait_for_selector("#end-screen")
    assert_fits(page)
    page.goto(f"{server}/replay?match={finished['id']}")
    page.wait_for_selector("#replay")
    assert_fits(page)


def test_replay_arrows_step_without_scrolling(page_at: Any, server: str, finished: dict[str, Any]) -> None:
    page = page_at(VIEWPORTS["phone"])
    page.goto(f"{server}/replay?match={finished['id']}&step=0")
    page.wait_for_selector("#replay")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert (page.text_content("#replay-step") or "").startswith("Action 2")
    assert page.evaluate("() => [window.scrollX, document.scrollingElement.scrollLeft]") == [0, 0]


def test_replay_opened_directly_says_what_to_do(page_at: Any, server: str) -> None:
    page = page_at()
    page.goto(server + "/replay")
    page.wait_for_selector("#replay-error")
    text = page.text_content("#replay-error") or ""
    assert "[object Object]" not in text and "Something went wrong" not in text
    assert "upload a record" in text


def test_keyboard_play_with_a_cursor(page_at: Any, server: str) -> None:
    m = create(server, "terranova", [("Ann", "human"), ("Bot", "random")], start_player=0, seed=3)
    page = page_at()
    page.goto(server + m["seats"][0]["link"])
    page.wait_for_selector('#game[data-mine="1"]')
    assert page.locator('#board [data-cell][tabindex="0"]').count() == 1  # one stop in the tab order
    page.focus('#board [data-cell][tabindex="0"]')
    start = page.evaluate("() => document.activeElement.dataset.cell")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    moved = page.evaluate("() => document.activeElement.dataset.cell")
    assert moved and moved != start
    assert page.evaluate("() => window.scrollX") == 0
    label = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert moved in label
    page.keyboard.press("Enter")  # every empty cell is a target while placing
    wait_version(page, 1)
    assert view_of(server, m["id"])["log"][0]["action"] == moved
    # Turn and score events are announced in a live region.
    page.wait_for_function("() => document.querySelector('#announce[aria-live]').textContent.length > 0")


def test_a_wrong_token_says_so_and_offers_to_watch(page_at: Any, server: str) -> None:
    m = create(server, "terranova", [("Ann", "human"), ("Bot", "random")], seed=2)
    page = page_at()
    page.goto(f"{server}/play/{m['id']}#t=not-a-real-token")
    page.wait_for_selector("#bad-token")
    page.click("#watch-instead")
    page.wait_for_selector("#bad-token", state="detached")
    assert "watching" in (page.text_content("#status") or "")
    assert "#t=" not in page.url


def test_corrupt_record_and_bad_map_in_plain_words(page_at: Any, server: str, tmp_path: Path) -> None:
    page = page_at()
    page.goto(server + "/")
    page.wait_for_selector("#create")
    corrupt = tmp_path / "broken.json"
    corrupt.write_text('{"game": "terranova", ')
    page.set_input_files("#record-upload", str(corrupt))
    page.wait_for_selector("#record-problem")
    said = page.text_content("#record-problem") or ""
    assert "broken.json: not valid JSON: Expecting" in said  # the command line's reader's words
    page.select_option("#game-select", "terranova")
    bad_map = tmp_path / "island.json"
    bad_map.write_text(json.dumps({"format": "terranova-map", "version": 1, "id": "x", "rows": "nope"}))
    page.set_input_files("#map-upload", str(bad_map))
    page.wait_for_selector("#lobby-problem")
    check = httpx2.post(f"{server}/api/games/terranova/maps/check", json=json.loads(bad_map.read_text()), timeout=10)
    assert check.json()["detail"] in (page.text_content("#lobby-problem") or "")


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_lobby_fits(page_at: Any, server: str, size: str) -> None:
    page = page_at(VIEWPORTS[size])
    page.goto(server + "/")
    page.wait_for_selector("#create")
    page.select_option("#game-select", "medina")
    page.select_option("#players-select", "4")
    page.click("summary:has-text('Variants')")
    assert_fits(page)
