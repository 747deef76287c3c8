"""Accounts in the browser: two people register, play a rated game to the end, and both
ratings change exactly as the OpenSkill library says; the profile plots the change.

The first test is the issue's flow: a rated real-time Terra Nova duel (time per game plus
an increment) opened in the lobby's "play with people" form, found by the other person in
the lobby's list of open games and joined there by clicks; both pages show the clocks
ticking; the first actions of each person are clicked on the page, the rest go through the
API with each person's own browser session and CSRF token, to keep the test short.

The second is a seeded Medina for three (two people and a ``random`` bot, which has a fixed
rating), created in the create form, the guest seat claimed from the account page.
"""

from __future__ import annotations

import contextlib
import random
import re
import secrets
import time
from collections.abc import Iterator
from typing import Any

import pytest
from openskill.models import PlackettLuce

from tabletop.server import ratings

from .driver import choose_seat, click_move, pick, view_of, wait_version

LIBRARY = PlackettLuce()
PASSWORD = "a long enough password"


def _register_through_the_page(page: Any, server: str, name: str) -> None:
    page.goto(server + "/account")
    page.wait_for_selector("#register-form")
    page.fill("#register-form input[name=name]", name)
    page.fill("#register-form input[name=password]", PASSWORD)
    page.click("#register-form button[type=submit]")
    page.wait_for_selector("#my-matches")
    assert page.text_content("#account-name") == name


def _csrf(page: Any) -> str:
    token: str = page.request.get("/api/session").json()["csrf"]
    return token


def _act_by_api(page: Any, match_id: str, token: str, view: dict[str, Any], rng: random.Random) -> None:
    kinds = view["legal"]
    move = rng.choice(kinds[rng.choice(sorted(kinds))])
    r = page.request.post(
        f"/api/matches/{match_id}/actions",
        data={"token": token, "version": view["version"], "action": move},
        headers={"x-csrf-token": _csrf(page)},
    )
    assert r.status == 200, r.text()


def _assert_ratings(page: Any, names: list[str], expected: Any, game: str, family: str) -> None:
    """Each person (seat ``i`` is ``names[i]``) has one rated game, rated as ``expected[i]``."""
    for seat, name in enumerate(names):
        [rating] = page.request.get(f"/api/players/{name}").json()["ratings"]
        assert (rating["game"], rating["family"], rating["games"]) == (game, family, 1)
        assert rating["mu"] == pytest.approx(expected[seat][0].mu)
        assert rating["sigma"] == pytest.approx(expected[seat][0].sigma)


def _running_clock_text(page: Any) -> str:
    return str(page.text_content("#clocks li.clock.running .time"))


def _seconds(clock_text: str) -> int:
    """ "9:58" -> 598 (the page's m:ss)."""
    minutes, seconds = clock_text.split(":")
    return int(minutes) * 60 + int(seconds)


@contextlib.contextmanager
def _two_people(browser: Any, server: str) -> Iterator[tuple[list[str], list[Any]]]:
    """Ann and Ben, each in a browser of their own, registered through the account page;
    no JavaScript error on their pages."""
    names = [f"Ann{secrets.token_hex(3)}", f"Ben{secrets.token_hex(3)}"]
    contexts = [browser.new_context(viewport={"width": 1200, "height": 850}, base_url=server) for _ in names]
    pages = [c.new_page() for c in contexts]
    errors: list[str] = []
    for pg in pages:
        pg.on("pageerror", lambda e: errors.append(str(e)))
    try:
        for pg, name in zip(pages, names, strict=True):
            _register_through_the_page(pg, server, name)
        yield names, pages
    finally:
        for c in contexts:
            c.close()
    assert not errors, errors


def test_a_rated_real_time_lobby_game_joined_from_the_list_rates_both_people(browser: Any, server: str) -> None:
    with _two_people(browser, server) as (names, pages):
        ann, ben = pages

        # Ann opens a rated real-time duel in the lobby: 10 minutes each, 5 s a turn.
        ann.goto(server + "/")
        ann.wait_for_selector("#open-create")
        ann.select_option("#game-select", "terranova")
        ann.select_option("#players-select", "2")
        assert not ann.is_visible("#open-name")  # logged in: the seat takes her account's name
        ann.select_option("#clock-kind", "realtime")
        ann.fill("#clock-base", "10")
        ann.fill("#clock-increment", "5")
        ann.check("#open-rated")
        ann.click("#open-create")
        ann.wait_for_url(re.compile(r"/lobby/"))
        game_id = ann.url.split("/lobby/")[1].split("#")[0]
        ann.wait_for_selector('#lobby-seats li[data-state="open"]')

        # Ben finds it in the lobby's list of open games and joins the free seat there.
        ben.goto(server + "/")
        ben.click(f'#open-games li[data-id="{game_id}"] a.join-link')
        ben.wait_for_url(re.compile(rf"/lobby/{game_id}"))
        assert not ben.is_visible("#join-name")
        ben.click('button.join[data-seat="1"]')
        for pg in (ann, ben):
            pg.wait_for_url(re.compile(rf"/play/{game_id}#t="), timeout=15000)
            pg.wait_for_selector('#clocks[data-kind="realtime"] li.clock.running')
        table = ann.request.get(f"/api/matches/{game_id}/table").json()
        assert table["rated"] is True
        assert (table["clock"]["base_s"], table["clock"]["increment_s"]) == (600, 5)
        view = view_of(server, game_id)
        assert [p["name"] for p in view["players"]] == names  # both seats are the accounts'
        # The running clock (of whoever the seeded game lets start) ticks on both pages: it
        # counts down from 10:00; the other one waits at 10:00.
        running = table["clock"]["running"]
        assert running == view["current_player"]
        for pg in (ann, ben):
            assert pg.get_attribute(f'#clocks li[data-seat="{1 - running}"]', "data-remaining-ms") == "600000"
            assert pg.get_attribute(f'#clocks li[data-seat="{running}"]', "class") == f"clock p{running} running"
            first = _running_clock_text(pg)
            pg.wait_for_function(
                "t => document.querySelector('#clocks li.clock.running .time')?.textContent !== t",
                arg=first,
                timeout=5000,
            )
            assert 590 < _seconds(_running_clock_text(pg)) < _seconds(first) <= 600
        tokens = {seat: pg.url.split("#t=")[1] for seat, pg in enumerate(pages)}
        players = dict(enumerate(pages))
        csrf = {seat: _csrf(pg) for seat, pg in players.items()}

        rng = random.Random(7)
        clicks = {0: 0, 1: 0}
        deadline = time.monotonic() + 240
        while not view["terminal"]:
            assert time.monotonic() < deadline, "the game did not finish"
            seat = view["current_player"]
            page = players[seat]
            move = pick(view, rng)  # stones first: a shorter game
            if clicks[seat] < 2:  # through the page, like a person
                wait_version(page, view["version"])
                page.wait_for_selector('#game[data-mine="1"]', timeout=10000)
                click_move(page, move)
                wait_version(page, view["version"] + 1)
                clicks[seat] += 1
                view = view_of(server, game_id)
            else:
                r = page.request.post(
                    f"/api/matches/{game_id}/actions?board=false",
                    data={"token": tokens[seat], "version": view["version"], "action": move},
                    headers={"x-csrf-token": csrf[seat]},
                )
                assert r.status == 200, r.text()
                view = r.json()
        assert clicks == {0: 2, 1: 2}
        # The clocks stopped.  (The pages catch up with the quick API actions one animated
        # turn at a time: their end screen is tested in test_panel.py, not waited for here.)
        assert ann.request.get(f"/api/matches/{game_id}/table").json()["clock"]["running"] is None

        # Both ratings moved exactly as the library's rate() says for this result.
        ranks = ratings.ranks_of(view["outcome"])
        expected = LIBRARY.rate([[LIBRARY.rating()], [LIBRARY.rating()]], ranks=ranks)
        _assert_ratings(ann, names, expected, "terranova", "2p")
        # Ben's profile page shows the change: the start and one rated game in the plot.
        ann.goto(f"{server}/players/{names[1]}")
        ann.wait_for_selector("svg.rating-plot")
        assert ann.locator("svg.rating-plot circle.plot-point").count() == 2


def test_two_people_play_a_rated_game_and_both_ratings_move_as_the_library_says(browser: Any, server: str) -> None:
    with _two_people(browser, server) as (names, pages):
        # Ann creates a rated Medina for three in the lobby form: logged in, her seat (the
        # first person's) is bound to her account; the rated switch shows only then.
        ann, ben = pages
        ann.goto(server + "/")
        ann.select_option("#game-select", "medina")
        ann.select_option("#players-select", "3")
        for i, (name, agent) in enumerate([("Ann", "human"), ("Guest", "human"), ("Bot", "random")]):
            ann.fill(f"#seat-{i}-name", name)
            choose_seat(ann, i, agent)
        ann.click("summary:has-text('Variants')")
        ann.fill("#seed", "5")
        ann.check("#rated")
        ann.click("#create")
        ann.wait_for_selector("#created")
        links = {
            int(a.get_attribute("data-seat")): a.get_attribute("href") for a in ann.query_selector_all("a.seat-link")
        }
        match_id = links[0].split("/play/")[1].split("#")[0]
        match = {"seats": [{"token": links[i].split("#t=")[1], "link": links[i]} for i in (0, 1)]}
        mine = ann.request.get("/api/me/matches").json()["matches"]
        assert mine[0]["id"] == match_id and mine[0]["rated"] and mine[0]["link"] == links[0]

        # Ben claims the guest seat through his account page, with the link Ann sent him.
        ben.goto(server + "/account")
        ben.fill("#claim-form input[name=link]", server + match["seats"][1]["link"])
        ben.click("#claim-form button[type=submit]")
        ben.wait_for_url(re.compile(rf"/play/{match_id}#t="))
        ben.wait_for_selector("#board")
        ben_token = ben.url.split("#t=")[1]

        # Ann opens the game from "my games".
        ann.goto(server + "/account")
        ann.click(f'li.my-match[data-match="{match_id}"] a')
        ann.wait_for_url(re.compile(rf"/play/{match_id}#t="))
        ann.wait_for_selector("#board")
        tokens = {0: match["seats"][0]["token"], 1: ben_token}
        players = {0: ann, 1: ben}

        rng = random.Random(5)
        clicks = {0: 0, 1: 0}
        deadline = time.monotonic() + 240
        while not (view := view_of(server, match_id))["terminal"]:
            assert time.monotonic() < deadline, "the game did not finish"
            seat = view["current_player"]
            if seat not in players:  # the bot's turn
                time.sleep(0.02)
                continue
            page = players[seat]
            if clicks[seat] < 3:  # through the page, like a person
                wait_version(page, view["version"])
                page.wait_for_selector('#game[data-mine="1"]', timeout=10000)
                kinds = view["legal"]
                click_move(page, rng.choice(kinds[rng.choice(sorted(kinds))]))
                wait_version(page, view["version"] + 1)
                clicks[seat] += 1
            else:
                _act_by_api(page, match_id, tokens[seat], view, rng)
        assert clicks == {0: 3, 1: 3}

        # Both ratings moved exactly as the library's rate() says for this result.
        ranks = ratings.ranks_of(view["outcome"])
        bot_mu = ratings.elo_to_mu(ratings.BOT_ELO[("medina", "multi")]["random"])
        expected = LIBRARY.rate(
            [[LIBRARY.rating()], [LIBRARY.rating()], [LIBRARY.rating(mu=bot_mu, sigma=ratings.BOT_SIGMA)]],
            ranks=ranks,
        )
        _assert_ratings(ann, names, expected, "medina", "multi")

        # The profile page plots the history: the start and one rated game.
        ben.goto(f"{server}/players/{names[0]}")
        ben.wait_for_selector("svg.rating-plot")
        assert ben.locator("svg.rating-plot circle.plot-point").count() == 2
        assert names[0] in (ben.text_content("#profile-name") or "")
        # The leaderboard lists both people and the bots, on one scale.
        ben.goto(f"{server}/ratings/medina?family=multi")
        ben.wait_for_selector("#leaderboard-table")
        table = ben.text_content("#leaderboard-table") or ""
        assert names[0] in table and names[1] in table and "bot Club" in table  # a level by its name, not its key

        # Ann logs out: her seat's link alone no longer plays (the game is over anyway: 403
        # comes before 409), and the header offers to log in again.
        ann.goto(server + "/account")
        ann.click("#log-out")
        ann.wait_for_selector("#log-in-link")
        r = ann.request.post(
            f"/api/matches/{match_id}/seat", data={"token": tokens[0]}, headers={"x-csrf-token": "none"}
        )
        assert r.status == 403 and r.json()["error"] == "seat_bound"
