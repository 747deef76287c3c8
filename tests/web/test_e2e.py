"""End-to-end in headless Chromium: full games against bots, two browsers, reload, illegal clicks."""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tabletop.core.record import GameRecord, replay

from .driver import choose_seat, click_move, create, play_my_turns, view_of, wait_version

pytestmark = pytest.mark.slow


def engine_scores(base: str, match_id: str) -> list[int]:
    """The final scores by replaying the downloaded record with the engine itself."""
    record = GameRecord.loads(httpx2.get(f"{base}/api/matches/{match_id}/record", timeout=10).text)
    outcome = replay(record).outcome()
    assert outcome is not None
    return list(outcome.scores)


def my_turn(base: str, match_id: str, seat: int) -> dict[str, Any]:
    """The view once the bots are done and ``seat`` is to act."""
    for _ in range(200):
        view = view_of(base, match_id)
        if view["current_player"] == seat:
            return view
        time.sleep(0.05)
    raise AssertionError(f"seat {seat} never got the turn")


def shown_scores(page: Any, n: int) -> list[int]:
    return [int(page.text_content(f'li.player .score[data-seat="{i}"]') or "-1") for i in range(n)]


@pytest.mark.parametrize(
    ("game", "seats", "screenshot_at"),
    [
        ("terranova", [("Ann", "human"), ("Bot", "random")], 60),
        ("medina", [("Ann", "human"), ("Bot 1", "random"), ("Bot 2", "random")], 24),
    ],
)
def test_full_game_against_bots_through_clicks(
    page: Any, server: str, game: str, seats: list[tuple[str, str]], screenshot_at: int, screenshots: Path
) -> None:
    # Create the game through the lobby form, like a person.
    page.goto(server + "/")
    page.select_option("#game-select", game)
    page.select_option("#players-select", str(len(seats)))
    for i, (name, agent) in enumerate(seats):
        page.fill(f"#seat-{i}-name", name)
        choose_seat(page, i, agent)
    page.click("summary:has-text('Variants')")
    page.fill("#seed", "7")  # a seeded game (bots included) plays the same each run: stable screenshots
    page.click("#create")
    page.wait_for_url(re.compile(r"/play/"))
    match_id = page.url.split("/play/")[1].split("#")[0]
    page.wait_for_selector("#board")
    rng = random.Random(7)
    view = play_my_turns(page, server, match_id, {0}, rng, stop_after=screenshot_at)
    if not view["terminal"]:
        wait_version(page, view_of(server, match_id)["version"])
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(screenshots / f"{game}.png"), full_page=True)
        view = play_my_turns(page, server, match_id, {0}, rng)
    assert view["terminal"]
    wait_version(page, view["version"])
    page.wait_for_selector("#status.over")
    expected = engine_scores(server, match_id)
    assert shown_scores(page, len(seats)) == expected == view["outcome"]["scores"]
    for w in view["outcome"]["winners"]:  # winners by name, in the end screen
        assert seats[w][0] in (page.text_content("#winner") or "")
    assert page.locator("#final-table table.sheet").count() >= 1  # the engine's breakdown, as tables
    # The replay steps through every action and ends on the same scores.
    page.click("#replay-link")
    page.wait_for_selector("#replay")
    assert f"{len(view['log'])} of {len(view['log'])}" in (page.text_content("#replay-step") or "")
    page.click("#replay-first")
    assert (page.text_content("#replay-step") or "").startswith("Action 0")
    page.click("#replay-next")
    assert (page.text_content("#replay-step") or "").startswith("Action 1")
    page.click("#replay-last")
    assert [int(page.text_content(f'.score[data-seat="{i}"]') or "-1") for i in range(len(seats))] == expected


def test_two_browsers_play_online_and_see_each_other(browser: Any, server: str) -> None:
    m = create(server, "terranova", [("Ann", "human"), ("Ben", "human")], start_player=0, seed=3)
    contexts = [browser.new_context(viewport={"width": 1100, "height": 800}) for _ in range(3)]
    pages = [c.new_page() for c in contexts]
    try:
        for pg, seat in zip(pages[:2], m["seats"], strict=True):
            pg.goto(server + seat["link"])
        pages[2].goto(server + m["spectator_link"])
        for pg in pages:
            pg.wait_for_selector("#board")
        rng = random.Random(1)
        for _ in range(8):
            view = view_of(server, m["id"])
            me = pages[view["current_player"]]
            wait_version(me, view["version"])
            me.wait_for_selector('#game[data-mine="1"]')
            move = rng.choice([m for moves in view["legal"].values() for m in moves])
            click_move(me, move)
            for pg in pages:  # everyone sees the action at once, spectator included
                wait_version(pg, view["version"] + 1, timeout_ms=5000)
                assert move in (pg.text_content("#log") or "")
        assert "watching" in (pages[2].text_content("#status") or "")
        assert pages[2].get_attribute("#game", "data-mine") == "0"
    finally:
        for c in contexts:
            c.close()


def test_reload_keeps_seat_and_state_and_illegal_click_is_harmless(page: Any, server: str) -> None:
    m = create(server, "terranova", [("Ann", "human"), ("Bot", "random")], start_player=0, seed=5)
    page.goto(server + m["seats"][0]["link"])
    page.wait_for_selector('#game[data-mine="1"]')
    view = view_of(server, m["id"])
    first = next(iter(view["legal"].values()))[0]
    click_move(page, first)
    wait_version(page, 1)
    # Illegal click: the cell just taken.  Nothing changes; the engine's reason is shown.
    view = my_turn(server, m["id"], 0)
    wait_version(page, view["version"])
    page.wait_for_selector('#game[data-mine="1"]')
    page.click(f'[data-cell="{first}"]')
    page.wait_for_selector("#notice.warn")
    assert f"{first} is occupied" in (page.text_content("#notice") or "")
    assert view_of(server, m["id"])["version"] == view["version"]
    # Keyboard play: a cell typed by its notation.
    target = next(iter(view["legal"].values()))[0]
    page.fill("#move-input", target)
    page.press("#move-input", "Enter")
    wait_version(page, view["version"] + 1)
    # Reload (the #t= fragment stays in the URL) and continue in the same seat.
    page.reload()
    view = my_turn(server, m["id"], 0)
    wait_version(page, view["version"])
    assert "★" in (page.text_content('li.player[data-seat="0"]') or "")
    play_my_turns(page, server, m["id"], {0}, random.Random(2), stop_after=2)
    # A reload without the fragment still finds the seat (the token is remembered).
    page.goto(server + f"/play/{m['id']}")
    page.wait_for_selector("#board")
    assert "★" in (page.text_content('li.player[data-seat="0"]') or "")


def test_language_switch_and_uploaded_record_replay(page: Any, server: str, tmp_path: Path) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#create")
    page.select_option("#lang-select", "sv")
    page.wait_for_function("() => document.querySelector('#create').textContent === 'Skapa spel'")
    page.select_option("#lang-select", "en")
    m = create(server, "medina", [("A", "random"), ("B", "random"), ("C", "random")], seed=4)
    for _ in range(600):
        if view_of(server, m["id"])["terminal"]:
            break
        page.wait_for_timeout(50)
    record = httpx2.get(f"{server}/api/matches/{m['id']}/record", timeout=10).text
    path = tmp_path / "game.json"
    path.write_text(record)
    page.set_input_files("#record-upload", str(path))
    page.wait_for_selector("#replay")
    n = len(GameRecord.loads(record).actions)
    assert f"{n} of {n}" in (page.text_content("#replay-step") or "")


def test_lobby_links_and_hotseat_on_one_screen(page: Any, server: str) -> None:
    page.goto(server + "/")
    page.select_option("#game-select", "terranova")
    page.select_option("#players-select", "2")
    for i, name in enumerate(("Ann", "Ben")):
        page.fill(f"#seat-{i}-name", name)
        choose_seat(page, i, "human")
    page.click("#create")
    page.wait_for_selector("#created")
    assert page.locator("a.seat-link").count() == 2  # one link per person, to send to friends
    assert page.locator("#watch-link").count() == 1
    # Now the same two people on one screen.
    page.check("#hotseat")
    page.click("#create")
    page.wait_for_url(re.compile(r"/play/"))
    match_id = page.url.split("/play/")[1].split("#")[0]
    play_my_turns(page, server, match_id, {0, 1}, random.Random(3), stop_after=6)
    log = [e["seat"] for e in view_of(server, match_id)["log"]]
    assert len(log) == 6 and set(log) == {0, 1}


def test_undo_own_action_within_own_turn(page: Any, server: str) -> None:
    m = create(server, "medina", [("Ann", "human"), ("B", "random"), ("C", "random")], start_player=0, seed=11)
    page.goto(server + m["seats"][0]["link"])
    page.wait_for_selector("#board")
    rng = random.Random(4)
    for _ in range(40):
        view = play_my_turns(page, server, m["id"], {0}, rng, stop_after=1)
        view = view_of(server, m["id"])
        if view["undoable_by"] == 0:
            break
    else:
        raise AssertionError("never had an action to undo")
    wait_version(page, view["version"])
    page.click("#undo")
    wait_version(page, view["version"] + 1)
    after = view_of(server, m["id"])
    assert after["ply"] == view["ply"] - 1 and after["current_player"] == 0
    assert page.locator("#undo").count() == 0 or after["undoable_by"] == 0


def test_custom_map_upload(page: Any, server: str, tmp_path: Path) -> None:
    rows = ["AABBCCDDLL", "AABBCCDDLLA", "AABBCCDDLLAB", "AABBCCDDLLABC"]
    island = {
        "format": "terranova-map",
        "version": 1,
        "id": "mini",
        "name": "Mini",
        "landscapes": {k: {"name": k, "water": k == "L"} for k in "ABCDL"},
        "rows": [{"r": r, "q0": -r, "cells": cells} for r, cells in enumerate(rows)],
    }
    path = tmp_path / "mini.json"
    path.write_text(json.dumps(island))
    page.goto(server + "/")
    page.select_option("#game-select", "terranova")
    page.set_input_files("#map-upload", str(path))
    page.wait_for_function("() => document.querySelector('#map-select').value === 'custom'")
    choose_seat(page, 1, "random")
    page.click("#create")
    page.wait_for_url(re.compile(r"/play/"))
    page.wait_for_selector("#board")
    match_id = page.url.split("/play/")[1].split("#")[0]
    view = view_of(server, match_id)
    assert view["config"]["map"]["name"] == "Mini" and len(view["state"]["cells"]) == sum(map(len, rows))
    assert page.locator("#board [data-cell]").count() == sum(map(len, rows))


def test_the_lobby_shows_the_ladder_by_name_and_measured_elo(page: Any, server: str, screenshots: Path) -> None:
    from tabletop.ai.ladder import LADDER

    page.goto(server + "/")
    for game in ("medina", "terranova"):
        page.select_option("#game-select", game)
        page.wait_for_selector("#ladder")
        for level in LADDER:
            option = page.locator(f'#seat-1-agent option[value="{level.key}"]')
            if not option.count():  # a level this server cannot seat (no native engine)
                continue
            label = option.text_content()
            assert label == (f"{level.name} (Elo {level.elo[game]})" if game in level.elo else level.name)
            row = page.locator(f'#ladder tr[data-level="{level.key}"]')
            assert row.locator("th").text_content() == level.name
            assert row.locator("td").nth(2).text_content() == level.description
    # The Elo shown is the one measured in the setting chosen: Medina's second edition for two.
    page.select_option("#game-select", "medina")
    page.select_option("#ruleset-select", "second_edition")
    page.select_option("#players-select", "2")
    page.wait_for_selector("#seat-1-agent")
    for level in LADDER:
        option = page.locator(f'#seat-1-agent option[value="{level.key}"]')
        if not option.count():
            continue
        elo = level.elo.get("medina-2e-2p")
        assert option.text_content() == (level.name if elo is None else f"{level.name} (Elo {elo})")
        cell = page.locator(f'#ladder tr[data-level="{level.key}"] td').nth(0).text_content()
        assert cell == (str(elo) if elo is not None else "not measured"), (level.key, cell)
    page.click("#ladder summary")
    page.screenshot(path=str(screenshots / "lobby-ladder-desktop.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(screenshots / "lobby-ladder-phone.png"), full_page=True)
