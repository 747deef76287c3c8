"""The seams a newcomer trips on: legal targets readable on every landscape, a phone
layout that keeps coordinates and the controls in reach, Medina's supplies at 1,024 px,
the end table's landscape names, and the translations that were missing."""

from __future__ import annotations

from typing import Any

from .driver import create, view_of, wait_version

PHONE = {"width": 390, "height": 844}


def open_as(browser: Any, server: str, link: str, viewport: dict[str, int], lang: str = "en") -> tuple[Any, Any]:
    context = browser.new_context(viewport=viewport, locale=lang)
    context.add_init_script(f"localStorage.setItem('tabletop.lang', '{lang}')")
    page = context.new_page()
    page.goto(server + link)
    page.wait_for_selector('#game[data-mine="1"] #board g.cell[data-cell]')
    return context, page


def test_legal_targets_are_dots_and_the_board_keeps_its_colours(browser: Any, server: str) -> None:
    m = create(server, "terranova", [("Ann", "human"), ("Bot", "random")], start_player=0, seed=4)
    context, page = open_as(browser, server, m["seats"][0]["link"], {"width": 1366, "height": 900})
    try:
        places = view_of(server, m["id"])["legal"]["place"]
        dots = page.eval_on_selector_all(
            "#board g.cell.target > circle.target-mark.dot", "els => els.map((e) => e.parentNode.dataset.cell)"
        )
        assert sorted(dots) == sorted(places)
        # In the placement phase every cell is a target: none is lightened (the board would be).
        fills = page.eval_on_selector_all("#board g.cell.target .hl", "els => els.map((e) => getComputedStyle(e).fill)")
        assert fills and set(fills) == {"none"}
        # A dot is dark with a white edge: it reads on pale and dark landscapes alike.
        dot = page.locator("#board circle.target-mark.dot").first
        assert dot.evaluate("e => [getComputedStyle(e).fill, getComputedStyle(e).stroke]") == [
            "rgb(27, 27, 27)",
            "rgb(255, 255, 255)",
        ]
    finally:
        context.close()


def test_a_phone_keeps_coordinates_in_sight_and_whole_board_zooms_in(browser: Any, server: str) -> None:
    m = create(server, "terranova", [("Ann", "human"), ("Bot", "random")], start_player=0, seed=4)
    context, page = open_as(browser, server, m["seats"][0]["link"], PHONE)
    try:
        cells = page.locator("#board g.cell[data-cell]").count()
        # Every cell carries its name, shown at playing size wherever the frame is panned.
        names = page.eval_on_selector_all(
            "#board .cell-name", "els => els.filter((e) => getComputedStyle(e).display !== 'none').length"
        )
        assert names == cells
        frame = page.locator(".board-scroll")
        frame.evaluate("e => { e.scrollLeft = e.scrollWidth; }")  # panned to the far side: names still there
        right = page.locator("#board g.cell[data-cell] .cell-name").last
        assert right.is_visible()
        # Targets a finger can hit: 44 px.
        for selector in ("#toggle-fit", "#hint", "#move-input"):
            assert page.locator(selector).bounding_box()["height"] >= 44, selector
        # "Whole board": the overview; a tap zooms in around that spot and plays nothing.
        version = view_of(server, m["id"])["version"]
        page.click("#toggle-fit")
        svg_box = page.locator("#board").bounding_box()
        assert svg_box["width"] <= PHONE["width"]
        assert page.locator(".fit-hint").is_visible()
        page.mouse.click(svg_box["x"] + svg_box["width"] * 0.8, svg_box["y"] + svg_box["height"] * 0.5)
        assert page.get_attribute("#toggle-fit", "aria-pressed") == "false"
        assert page.locator("#board").bounding_box()["width"] > PHONE["width"] * 1.5
        left = frame.evaluate("e => e.scrollLeft / (e.scrollWidth - e.clientWidth)")
        assert left > 0.5  # the right-hand part, where the tap was
        page.wait_for_timeout(300)
        assert view_of(server, m["id"])["version"] == version
    finally:
        context.close()


def test_medina_supplies_fit_at_1024_with_real_headers(browser: Any, server: str) -> None:
    seats = [("Ann", "human"), ("Bea", "random"), ("Cy", "random"), ("Dan", "random")]
    m = create(server, "medina", seats, start_player=0, seed=4)
    context, page = open_as(browser, server, m["seats"][0]["link"], {"width": 1024, "height": 768})
    try:
        table = page.locator("#supplies")
        heads = page.eval_on_selector_all("#supplies thead th", "els => els.map((e) => e.textContent.trim())")
        assert heads == ["Piece", "Ann", "Bea", "Cy", "Dan"]
        rows = page.eval_on_selector_all("#supplies tbody th", "els => els.map((e) => e.textContent.trim())")
        assert rows[:4] == ["gray palace", "black palace", "brown palace", "orange palace"]
        panel = page.locator("#game-panel")
        assert table.evaluate("e => e.scrollWidth") <= panel.evaluate("e => e.clientWidth")
    finally:
        context.close()


def test_the_end_table_names_landscapes(page: Any, server: str) -> None:
    m = create(server, "terranova", [("Ann", "human"), ("Bot", "random")], start_player=0, seed=4)
    page.goto(server + m["seats"][0]["link"])
    page.wait_for_selector("#board")
    sheet = {
        "tables": [
            {
                "id": "areas",
                "caption": "sheet.areas",
                "headers": ["sheet.area", "sheet.landscapes"],
                "rows": [[1, "FMA"]],
            }
        ]
    }
    landscapes = [{"id": "F", "name": "Forest"}, {"id": "M", "name": "Meadow"}, {"id": "A", "name": "Farmland"}]
    text = page.evaluate(
        """async ([sheet, landscapes]) => {
          const { scoreSheet } = await import("/static/panel.js");
          return scoreSheet(sheet, [], landscapes)[0].querySelector("tbody td:last-child").textContent;
        }""",
        [sheet, landscapes],
    )
    assert text == "Forest, Meadow, Farmland"


def test_finnish_names_landscapes_levels_and_tooltips(browser: Any, server: str) -> None:
    m = create(server, "terranova", [("Ann", "human"), ("Bot", "casual")], start_player=0, seed=4)
    context, page = open_as(browser, server, m["seats"][0]["link"], {"width": 1366, "height": 900}, "fi")
    try:
        wait_version(page, view_of(server, m["id"])["version"])
        legend = page.eval_on_selector_all(".legend-entry > text", "els => els.map((e) => e.textContent)")
        assert "Metsä" in legend and "Järvi (vesi)" in legend and "Forest" not in legend
        assert "Rento" in (page.text_content('#players li[data-seat="1"]') or "")  # Casual
        assert page.locator("#hint-level option:checked").text_content() == "Rento"
        titles = page.eval_on_selector_all("#game-panel table.pioneers td[title]", "els => els.map((e) => e.title)")
        assert "laudalla" in titles and "on the board" not in titles
    finally:
        context.close()
