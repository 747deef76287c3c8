"""The lobby's defaults for a newcomer: Terra Nova for two (you and one bot), Casual for
every bot menu (open games included), the named levels only, with raw engine specs under
"Advanced", and games by their display names."""

from __future__ import annotations

from typing import Any

import httpx2

from tabletop.ai.ladder import DEFAULT_LEVEL, LADDER


def options(page: Any, selector: str) -> list[str]:
    values: list[str] = page.eval_on_selector_all(f"{selector} option", "els => els.map((e) => e.value)")
    return values


def test_a_new_visitor_gets_terranova_against_one_casual_bot(page: Any, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#create")
    assert page.input_value("#game-select") == "terranova"
    assert page.locator("#game-select option:checked").text_content() == "Terra Nova"
    assert page.input_value("#players-select") == "2"
    assert page.locator("fieldset.seat").count() == 2
    assert page.input_value("#seat-0-agent") == "human"
    assert page.input_value("#seat-1-agent") == DEFAULT_LEVEL == "casual"
    # The seat menu: a person or a named level; the engine specs wait under "Advanced".
    levels = {level.key for level in LADDER}
    seat_menu = options(page, "#seat-1-agent")
    assert seat_menu[0] == "human" and set(seat_menu[1:]) <= levels and "casual" in seat_menu
    assert page.locator("#seat-advanced").get_attribute("open") is None
    raw = options(page, "#seat-1-engine")
    assert "random" in raw and "greedy" in raw and not set(raw) & levels
    # The open game's bots default to Casual too, the takeover bot included.
    assert page.input_value("#open-takeover") == "casual"
    assert set(options(page, "#open-takeover")) <= levels
    page.select_option("#open-seat-1", "casual")
    assert page.input_value("#open-seat-1") == "casual"


def test_switching_games_resets_the_player_count(page: Any, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#create")
    page.select_option("#game-select", "medina")
    assert page.input_value("#players-select") == "3"
    page.select_option("#players-select", "4")
    page.select_option("#game-select", "terranova")
    # Back to two: "play the bot" stays one bot, never a game against three.
    assert page.input_value("#players-select") == "2"
    assert page.locator("fieldset.seat").count() == 2
    assert page.input_value("#seat-1-agent") == "casual"


def test_a_raw_engine_spec_is_chosen_under_advanced(page: Any, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#create")
    page.click("#seat-advanced summary")
    page.select_option("#seat-1-engine", "random")
    assert page.input_value("#seat-1-agent") == "random"  # shown in the seat's menu as chosen
    page.click("#create")
    page.wait_for_url("**/play/**")
    match_id = page.url.split("/play/")[1].split("#")[0]
    view = httpx2.get(f"{server}/api/matches/{match_id}", timeout=10).json()
    assert [p["agent"] for p in view["players"]] == ["human", "random"]


def test_game_lists_show_display_names(page: Any, server: str) -> None:
    body = {"game": "terranova", "seats": [{"kind": "me", "name": "Ann"}, {"kind": "open"}], "public": True}
    r = httpx2.post(f"{server}/api/lobby", json=body, timeout=10)
    assert r.status_code == 201, r.text
    page.goto(server + "/")
    item = page.locator(f'#open-games li[data-id="{r.json()["id"]}"]')
    item.wait_for()
    assert (item.text_content() or "").startswith("Terra Nova · Ann")
    page.goto(server + r.json()["lobby_link"])
    page.wait_for_selector("#lobby-game h1")
    heading = page.text_content("#lobby-game h1") or ""
    assert "Terra Nova" in heading and "terranova" not in heading


def test_an_empty_variant_field_shows_what_the_ruleset_plays(page: Any, server: str) -> None:
    page.goto(server + "/")
    page.select_option("#game-select", "medina")
    assert page.get_attribute("#variant-edition", "placeholder") == "1"
    page.select_option("#ruleset-select", "second_edition")
    assert page.get_attribute("#variant-edition", "placeholder") == "2"
