"""The status line says what to do, in the player's language: each phase of both games, a
person or a bot to wait for, and after the end (the rules', a resignation, an abort) who
won and why."""

from __future__ import annotations

import re
from typing import Any

import httpx2
import pytest

from .driver import view_of, wait_version


def post(base: str, path: str, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
    r = httpx2.post(base + path, json=body, timeout=10)
    assert r.status_code == status or (status == 201 and r.status_code == 200), r.text
    data: dict[str, Any] = r.json()
    return data


def act(base: str, match_id: str, token: str, action: str) -> dict[str, Any]:
    version = view_of(base, match_id)["version"]
    return post(base, f"/api/matches/{match_id}/actions", {"token": token, "version": version, "action": action})


def status_after(page: Any, base: str, match_id: str) -> str:
    """The status line once the page shows the match's current version."""
    wait_version(page, view_of(base, match_id)["version"])
    return (page.text_content("#status") or "").strip()


def open_page(browser: Any, url: str, lang: str = "en") -> tuple[Any, Any]:
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale=lang)
    context.add_init_script(f"localStorage.setItem('tabletop.lang', '{lang}')")
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#status")
    return context, page


def first_of(view: dict[str, Any], kind: str) -> str:
    moves: list[str] = view["legal"][kind]
    return moves[0]


@pytest.mark.parametrize(
    ("lang", "place", "action1", "action2", "waiting"),
    [
        (
            "en",
            "Place a pioneer (13 left)",
            "Action 1 of 3: slide one of your pioneers in a straight line",
            "Action 2 of 3: slide again, or put a stone next to {cell}",
            "Waiting for Ben",
        ),
        (
            "fi",
            "Aseta nappula (13 jäljellä)",
            "Toiminto 1/3: siirrä yhtä nappulaasi suoraa linjaa pitkin",
            "Toiminto 2/3: siirrä uudelleen tai aseta kivi ruudun {cell} viereen",
            "Odotetaan: Ben",
        ),
    ],
)
def test_terranova_status_names_each_phase(
    browser: Any, server: str, lang: str, place: str, action1: str, action2: str, waiting: str
) -> None:
    body = {"game": "terranova", "seats": [{"name": "Ann", "agent": "human"}, {"name": "Ben", "agent": "human"}]}
    m = post(server, "/api/matches", {**body, "start_player": 0, "seed": 5}, 201)
    ann, ben = (s["token"] for s in m["seats"])
    context, page = open_page(browser, f"{server}{m['seats'][0]['link']}", lang)
    try:
        page.wait_for_selector('#game[data-mine="1"]')
        assert status_after(page, server, m["id"]) == place
        act(server, m["id"], ann, first_of(view_of(server, m["id"]), "place"))
        assert status_after(page, server, m["id"]) == waiting
        # Placement to the end, through the API; then Ann's first action of a turn.
        while (view := view_of(server, m["id"]))["state"]["phase"] == "placement":
            act(server, m["id"], [ann, ben][view["current_player"]], first_of(view, "place"))
        while (view := view_of(server, m["id"]))["current_player"] == 1:
            act(server, m["id"], ben, first_of(view, "move"))  # Ben's turn, if the setup ended with his
        assert status_after(page, server, m["id"]) == action1
        slide = first_of(view_of(server, m["id"]), "move")
        act(server, m["id"], ann, slide)
        assert status_after(page, server, m["id"]) == action2.format(cell=slide.split("-")[1])
    finally:
        context.close()


@pytest.mark.parametrize(
    ("lang", "start", "first", "second"),
    [
        ("en", "Place the start merchant", "Place a piece (2 this turn)", "Place a piece (your last this turn)"),
        ("sv", "Placera startköpmannen", "Placera en pjäs (2 denna tur)", "Placera en pjäs (din sista denna tur)"),
    ],
)
def test_medina_status_names_each_phase(
    browser: Any, server: str, lang: str, start: str, first: str, second: str
) -> None:
    names = ("Ann", "Ben", "Cy")
    body = {"game": "medina", "seats": [{"name": n, "agent": "human"} for n in names], "start_player": 0}
    m = post(server, "/api/matches", {**body, "seed": 2}, 201)
    ann = m["seats"][0]["token"]
    context, page = open_page(browser, f"{server}{m['seats'][0]['link']}", lang)
    try:
        page.wait_for_selector('#game[data-mine="1"]')
        assert status_after(page, server, m["id"]) == start
        act(server, m["id"], ann, first_of(view_of(server, m["id"]), "merchant_start"))
        assert status_after(page, server, m["id"]) == first
        act(server, m["id"], ann, first_of(view_of(server, m["id"]), "palace"))
        assert status_after(page, server, m["id"]) == second
    finally:
        context.close()


def test_waiting_for_a_bot_names_its_level(browser: Any, server: str) -> None:
    """A bot's seat is waited for by name and level ("Casual"), never by its engine spec."""
    body = {"game": "terranova", "seats": [{"name": "Ann", "agent": "human"}, {"name": "Ben", "agent": "casual"}]}
    m = post(server, "/api/matches", {**body, "start_player": 0, "seed": 5}, 201)
    context, page = open_page(browser, f"{server}/play/{m['id']}")  # a spectator: Ann is to move
    try:
        text = status_after(page, server, m["id"])
        assert text == "You are watching · Ann: Place a pioneer (13 left)"
        # The players' list names the level too, not "greedy".
        assert "Casual" in (page.text_content('#players li[data-seat="1"]') or "")
    finally:
        context.close()


def lobby_match(base: str) -> tuple[str, str, str]:
    """A started two-person Terra Nova lobby match, Ann (seat 0) to move."""
    body = {"game": "terranova", "seats": [{"kind": "me", "name": "Ann"}, {"kind": "open"}], "start_player": 0}
    created = post(base, "/api/lobby", body, 201)
    joined = post(base, f"/api/lobby/{created['id']}/join", {"name": "Ben"})
    return created["id"], created["token"], joined["token"]


@pytest.mark.parametrize("ending", ["resign", "abort"])
def test_after_a_resignation_or_an_abort_the_top_says_who_won_and_why(browser: Any, server: str, ending: str) -> None:
    match_id, ann, ben = lobby_match(server)
    context, page = open_page(browser, f"{server}/play/{match_id}#t={ann}")
    try:
        page.wait_for_selector("#table-buttons #resign")
        assert "null" not in (page.text_content("#table-buttons") or "")
        post(server, f"/api/matches/{match_id}/{ending}", {"token": ben})
        page.wait_for_selector("#status.over")
        if ending == "resign":
            assert page.text_content("#status-winner") == "Ann wins"
            assert page.text_content("#status-reason") == "Ben resigned."
        else:
            assert page.text_content("#status-winner") == "Game aborted"
            assert page.text_content("#status-reason") == "Game aborted by Ben (unrated)"
        page.wait_for_selector("#table-buttons #rematch")
        assert not re.search(r"\bnull\b", page.text_content("#table") or "")
    finally:
        context.close()
