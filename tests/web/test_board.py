"""The board in Chromium: one drawing with the SVG render, coordinates, legend, motion, city, tap size.

Also takes the README's board screenshots (desktop 1366×907 and phone 390×844 of both
games) and the frames of a bot's turn animating (into docs/screenshots/ with
TABLETOP_UPDATE_SCREENSHOTS=1, else a temporary folder: see conftest.py)
"""

from __future__ import annotations

import itertools
import random
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest

from .driver import create, view_of, wait_version

DESKTOP = {"width": 1366, "height": 907}
PHONE = {"width": 390, "height": 844}

pytestmark = pytest.mark.slow

# Every element of a drawing with its attributes, leaving out what the page adds or takes
# away for its viewer: classes (highlights), ids, focus order, and the marks of the
# viewer's own actions.
# What the page adds for play (classes, focus, the cursor's screen-reader labels) is not drawing.
NORMALISE = """(svg) => [...svg.querySelectorAll('*')]
  .filter((e) => !e.matches('.motion-mark, .motion-path, .target-mark, .cell-name'))
  .map((e) => e.tagName + ' ' + [...e.attributes]
    .filter((a) => !['class', 'id', 'tabindex', 'aria-label', 'data-ply', 'data-seat', 'data-step', 'pathLength']
      .includes(a.name))
    .map((a) => a.name + '=' + a.value).sort().join(' ') + ' ' + (e.children.length ? '' : e.textContent))"""


def play_http(base: str, match: dict[str, Any], seat: int, actions: int, rng: random.Random) -> dict[str, Any]:
    """Plays ``actions`` random actions for ``seat`` through the API (bots answer in between)."""
    token = match["seats"][seat]["token"]
    view = view_of(base, match["id"])
    for _ in range(actions):
        for _ in range(400):
            view = view_of(base, match["id"])
            if view["terminal"] or view["current_player"] == seat:
                break
            time.sleep(0.03)
        if view["terminal"]:
            break
        kinds = view["legal"]
        move = rng.choice(kinds[rng.choice(sorted(kinds))])
        body = {"token": token, "version": view["version"], "action": move}
        r = httpx2.post(f"{base}/api/matches/{match['id']}/actions", json=body, timeout=10)
        assert r.status_code == 200, r.text
    return view_of(base, match["id"])


def play_to_a_fresh_turn(base: str, match: dict[str, Any], actions: int, rng: random.Random) -> dict[str, Any]:
    """Plays ``actions`` or more for seat 0, until seat 0's turn has just begun after another seat's."""
    view = play_http(base, match, 0, actions, rng)
    while True:
        view = wait_for_turn(base, match["id"], 0)
        if view["terminal"] or (view["log"] and view["log"][-1]["seat"] != 0):
            return view
        view = play_http(base, match, 0, 1, rng)


def wait_for_turn(base: str, match_id: str, seat: int) -> dict[str, Any]:
    for _ in range(400):
        view = view_of(base, match_id)
        if view["current_player"] == seat or view["terminal"]:
            return view
        time.sleep(0.03)
    raise AssertionError(f"seat {seat} never got the turn")


def open_seat(page: Any, base: str, match: dict[str, Any], seat: int = 0) -> None:
    page.goto(base + match["seats"][seat]["link"])
    page.wait_for_selector("#board g.cell[data-cell]")
    wait_version(page, view_of(base, match["id"])["version"])


SEATS = {
    "terranova": [("Ann", "human"), ("Bot", "random")],
    "medina": [("Ann", "human"), ("Bot 1", "random"), ("Bot 2", "random")],
}


@pytest.mark.parametrize("game", ["terranova", "medina"])
def test_page_draws_the_same_picture_as_the_svg_render(page: Any, server: str, game: str) -> None:
    m = create(server, game, SEATS[game], start_player=0, seed=11)
    play_http(server, m, 0, 6, random.Random(2))
    view = wait_for_turn(server, m["id"], 0)
    open_seat(page, server, m)
    served = httpx2.get(f"{server}/api/matches/{m['id']}/board", timeout=10).text
    on_page = page.evaluate(f"({NORMALISE})(document.querySelector('#board'))")
    rendered = page.evaluate(
        f"""(text) => ({NORMALISE})(new DOMParser().parseFromString(text, 'image/svg+xml').documentElement)""",
        served,
    )
    assert len(on_page) > 200
    assert on_page == rendered
    names = page.evaluate("[...document.querySelectorAll('#board [data-cell]')].map(e => e.dataset.cell)")
    assert page.locator("#board g.cell[data-cell]").count() == len(set(names)) == len(names)
    assert view["version"] >= 6


@pytest.mark.parametrize("game", ["terranova", "medina"])
def test_coordinates_on_every_edge_and_the_toggle_is_remembered(page: Any, server: str, game: str) -> None:
    m = create(server, game, SEATS[game], start_player=0, seed=3)
    open_seat(page, server, m)
    labels = page.locator("#board .coords text")
    assert labels.count() >= 20
    assert labels.first.is_visible()
    box = page.locator("#board .cells").bounding_box()
    centres = labels.evaluate_all(
        "ls => ls.map(l => { const r = l.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })"
    )
    # Labels beyond all four edges of the cells.
    assert min(x for x, _ in centres) < box["x"] and max(x for x, _ in centres) > box["x"] + box["width"]
    assert min(y for _, y in centres) < box["y"] and max(y for _, y in centres) > box["y"] + box["height"]
    page.click("#toggle-coords")
    assert page.get_attribute("#toggle-coords", "aria-pressed") == "false"
    assert not labels.first.is_visible()
    page.reload()
    page.wait_for_selector("#board g.cell[data-cell]")
    assert not page.locator("#board .coords text").first.is_visible()
    page.click("#toggle-coords")
    assert page.locator("#board .coords text").first.is_visible()


def test_terranova_legend_names_every_landscape(page: Any, server: str) -> None:
    m = create(server, "terranova", SEATS["terranova"], start_player=0, seed=3)
    open_seat(page, server, m)
    landscapes = [ls["name"] for ls in view_of(server, m["id"])["state"]["landscapes"]]
    legend = page.locator("#board .legend")
    assert legend.is_visible()
    text = legend.text_content() or ""
    for name in landscapes:
        assert name in text
    for word in ("stone", "scored area", "last turn"):
        assert word in text
    page.click("#toggle-legend")
    assert not legend.is_visible()
    page.click("#toggle-legend")


def test_medina_legend_names_pieces_and_merchant_colours(page: Any, server: str) -> None:
    m = create(server, "medina", SEATS["medina"], start_player=0, seed=3)
    open_seat(page, server, m)
    text = page.locator("#board .legend").text_content() or ""
    for word in ("gray palace", "black palace", "brown palace", "orange palace", "dome", "stable", "merchant"):
        assert word in text
    assert "merchant, active lane" in text and "wall piece" in text and "tower" in text


def test_medina_is_drawn_as_a_city(page: Any, server: str) -> None:
    m = create(server, "medina", [("Bot 1", "greedy"), ("Bot 2", "greedy"), ("Bot 3", "greedy")], seed=4)
    for _ in range(600):
        if view_of(server, m["id"])["terminal"]:
            break
        time.sleep(0.05)
    page.goto(server + m["spectator_link"])
    page.wait_for_selector("#board g.cell[data-cell]")
    board = page.locator("#board .pieces")  # (the legend draws one of each too)
    for selector in ("g.palace", "g.dome", "g.stable", "g.merchant", "g.wall", ".lane"):
        assert board.locator(selector).count() > 0, selector
    towers = board.locator("g.tower")
    assert towers.count() == 4
    assert sorted(t.strip() for t in towers.locator("text").all_text_contents()) == ["1", "2", "3", "4"]
    # Each palace colour is its own building; domes carry their owner's seat shape.
    assert (
        board.locator("g.palace.gray, g.palace.black, g.palace.brown, g.palace.orange").count()
        == board.locator("g.palace").count()
    )
    assert board.locator("g.dome .token").count() == board.locator("g.dome").count()
    assert page.locator("#board [data-cell]").count() == 18 * 13


@pytest.mark.parametrize("game", ["terranova", "medina"])
def test_a_bots_turn_is_marked_in_order_animated_and_still_marked_after_reload(
    page: Any, server: str, game: str
) -> None:
    m = create(server, game, SEATS[game], start_player=0, seed=5)
    rng = random.Random(4)
    play_http(server, m, 0, 4, rng)  # through the setup, into the game proper
    view = wait_for_turn(server, m["id"], 0)
    open_seat(page, server, m)
    # My own action: the bots answer; what they did arrives while the page is open.
    kinds = view["legal"]
    move = rng.choice(kinds[sorted(kinds)[0]])
    token = m["seats"][0]["token"]
    r = httpx2.post(
        f"{server}/api/matches/{m['id']}/actions",
        json={"token": token, "version": view["version"], "action": move},
        timeout=10,
    )
    assert r.status_code == 200, r.text
    view = wait_for_turn(server, m["id"], 0)
    wait_version(page, view["version"])
    marks = page.evaluate(
        """() => [...document.querySelectorAll('#board .motion-mark')].map(
            (e) => ({ply: Number(e.dataset.ply), seat: Number(e.dataset.seat), step: Number(e.dataset.step)}))"""
    )
    my_last = max(e["ply"] for e in view["log"] if e["seat"] == 0)
    others = [e for e in view["log"] if e["ply"] > my_last]
    assert others and all(e["seat"] != 0 for e in others)
    assert marks, "the others' last turns are marked"
    assert all(mk["seat"] != 0 and mk["ply"] > my_last for mk in marks)
    assert [mk["step"] for mk in marks] == sorted(mk["step"] for mk in marks)
    assert {mk["ply"] for mk in marks} <= {e["ply"] for e in others}
    # They arrived live: each is played in order, one step apart.
    delays = page.evaluate(
        """() => [...document.querySelectorAll('#board [data-ply]')].flatMap((e) => e.getAnimations().map(
            (a) => [Number(e.dataset.ply), a.effect.getTiming().delay]))"""
    )
    assert delays, "the others' actions are animated"
    by_ply: dict[int, float] = {}
    for ply, delay in delays:
        by_ply.setdefault(ply, delay)
    plies = sorted(by_ply)
    assert all(by_ply[a] < by_ply[b] for a, b in itertools.pairwise(plies))
    # After a reload the marks still show the others' last turns, not mine.
    page.reload()
    page.wait_for_selector("#board g.cell[data-cell]")
    wait_version(page, view["version"])
    again = page.evaluate(
        """() => [...document.querySelectorAll('#board .motion-mark')].map(
            (e) => ({ply: Number(e.dataset.ply), seat: Number(e.dataset.seat), step: Number(e.dataset.step)}))"""
    )
    assert again == marks


@pytest.mark.parametrize("game", ["terranova", "medina"])
def test_cells_are_big_enough_to_tap_on_a_phone(browser: Any, server: str, game: str) -> None:
    m = create(server, game, SEATS[game], start_player=0, seed=3)
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        open_seat(page, server, m)
        sizes = page.evaluate(
            """() => [...document.querySelectorAll('#board g.cell[data-cell]')].map((g) => {
                const r = g.getBoundingClientRect(); return Math.min(r.width, r.height); })"""
        )
        assert min(sizes) >= 40, min(sizes)
        # The page itself never scrolls sideways: the board's frame pans instead.
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        target = page.locator("#board g.cell.target, #board g.cell.source").first
        target.tap()
    finally:
        context.close()


@pytest.mark.parametrize("game", ["terranova", "medina"])
def test_screenshots_for_the_readme(browser: Any, server: str, game: str, screenshots: Path) -> None:
    m = create(server, game, SEATS[game], start_player=0, seed=7)
    play_to_a_fresh_turn(server, m, 15 if game == "terranova" else 8, random.Random(7))
    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        context = browser.new_context(viewport=viewport, locale="en-US")
        try:
            page = context.new_page()
            open_seat(page, server, m)
            page.wait_for_timeout(300)
            page.screenshot(path=str(screenshots / f"board-{game}-{name}.png"))
        finally:
            context.close()


def test_frames_of_a_bots_turn(browser: Any, server: str, screenshots: Path) -> None:
    """docs/screenshots/bot-turn-1.png ...: the bot's three actions appearing in order."""
    m = create(server, "terranova", SEATS["terranova"], start_player=0, seed=9)
    rng = random.Random(9)
    # Past the placement of the pioneers: the bot acts three times a turn.
    view = play_to_a_fresh_turn(server, m, 14, rng)
    assert view["state"]["phase"] == "play"
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    try:
        page = context.new_page()
        open_seat(page, server, m)
        page.evaluate(
            """() => { const animate = Element.prototype.animate; window.heldAnimations = [];
              Element.prototype.animate = function (frames, timing) {
                const a = animate.call(this, frames, timing);
                a.pause(); window.heldAnimations.push(a); return a; }; }"""
        )
        # My whole turn (three actions), then the bot's arrives while the page is open.
        turn = view["turn"]
        while view["current_player"] == 0 and view["turn"] == turn:
            kinds = view["legal"]
            move = rng.choice(kinds[rng.choice(sorted(kinds))])
            body = {"token": m["seats"][0]["token"], "version": view["version"], "action": move}
            r = httpx2.post(f"{server}/api/matches/{m['id']}/actions", json=body, timeout=10)
            assert r.status_code == 200, r.text
            view = view_of(server, m["id"])
        done = wait_for_turn(server, m["id"], 0)
        wait_version(page, done["version"])
        # Every animation made from here on is held at its start; the frames then put them
        # all on one clock that begins with the bot's first action.
        held = page.evaluate(
            """() => { const all = window.heldAnimations.filter((a) => a.effect.target.isConnected);
              const first = Math.min(...all.map((a) => a.effect.getTiming().delay));
              window.clockAt = (t) => all.forEach((a) => { a.currentTime = t + first; });
              return all.length; }"""
        )
        assert held > 0
        board = page.locator("#board")
        for k, at in enumerate((0, 450, 900, 1350, 1800, 2250, 3000), start=1):
            page.evaluate("(t) => window.clockAt(t)", at)
            board.screenshot(path=str(screenshots / f"bot-turn-{k}.png"))
    finally:
        context.close()


def test_replay_shows_each_positions_drawing_and_marks_its_last_turns(page: Any, server: str) -> None:
    m = create(server, "medina", [("Bot 1", "random"), ("Bot 2", "random"), ("Bot 3", "random")], seed=6)
    for _ in range(600):
        if view_of(server, m["id"])["terminal"]:
            break
        time.sleep(0.05)
    page.goto(f"{server}/replay?match={m['id']}&step=0")
    page.wait_for_selector("#board g.cell[data-cell]")
    assert page.locator("#board .pieces g.merchant, #board .pieces g.palace").count() == 0
    assert page.locator("#board .motion-mark").count() == 0
    page.click("#replay-next")
    page.wait_for_function("() => document.querySelectorAll('#board .motion-mark').length === 1")
    mark = page.locator("#board .motion-mark")
    assert mark.get_attribute("data-ply") == "0"
    served = httpx2.get(f"{server}/api/matches/{m['id']}/board", params={"ply": 1}, timeout=10).text
    on_page = page.evaluate(f"({NORMALISE})(document.querySelector('#board'))")
    rendered = page.evaluate(
        f"""(text) => ({NORMALISE})(new DOMParser().parseFromString(text, 'image/svg+xml').documentElement)""",
        served,
    )
    assert on_page == rendered
