"""Every player action for every kind of player and match: guests and logged-in people,
rated and unrated, real-time and turn-based clocks.

Features were built side by side (accounts, ratings, hints, clocks, the lobby), and one
built for one kind of player failed another (a hint refused to the logged-in owner of
its seat).  The matrix proves each action for each cell:

- through the API, where the browser adds nothing: move, undo, hint, chat, takeover and
  reclaim (the test moves the server's clock), resign, abort, rematch, replay, analysis;
- in the browser for a representative cell of each kind of person (a guest in an
  unrated turn-based match, an account in a rated real-time one): a move by clicks, the
  hint button (or its absence), the chat box, resigning, and the banner and rematch after.

The server's clock is a file the test writes (``serve_clocked.py``, as in
``test_lobby_e2e.py``), so clocks run out without waiting.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tabletop.server.local import stop_server

from .driver import click_move, pick, view_of, wait_version
from .test_lobby_e2e import HOUR, ClockedServer

pytestmark = pytest.mark.slow

PASSWORD = "correct horse battery"
CLOCKS = {
    "realtime": {"kind": "realtime", "base_s": 300, "increment_s": 5},
    "turn": {"kind": "turn", "per_move_s": 2 * HOUR},
}
RUN_OUT_S = 24 * HOUR
"""More than any clock of CLOCKS holds, increments included."""


@dataclass
class Person:
    """A guest (a name only) or an account (its session cookie and CSRF token)."""

    name: str
    cookie: str | None = None
    csrf: str | None = None
    tokens: dict[str, str] = field(default_factory=dict)  # match -> seat token

    @property
    def logged_in(self) -> bool:
        return self.cookie is not None

    def headers(self) -> dict[str, str]:
        if self.cookie is None or self.csrf is None:
            return {}
        return {"cookie": f"tabletop_session={self.cookie}", "x-csrf-token": self.csrf}


class Api:
    def __init__(self, base: str) -> None:
        self.base = base

    def call(self, method: str, path: str, who: Person | None = None, body: Any = None) -> httpx2.Response:
        headers = who.headers() if who is not None else {}
        return httpx2.request(method, self.base + path, json=body, headers=headers, timeout=15)

    def ok(self, method: str, path: str, who: Person | None = None, body: Any = None) -> Any:
        r = self.call(method, path, who, body)
        assert r.status_code in (200, 201), f"{method} {path}: {r.status_code} {r.text}"
        return r.json()

    def refused(self, method: str, path: str, who: Person | None, body: Any, status: int, code: str) -> None:
        r = self.call(method, path, who, body)
        assert (r.status_code, r.json().get("error")) == (status, code), f"{method} {path}: {r.text}"

    def person(self, name: str, account: bool) -> Person:
        if not account:
            return Person(name)
        unique = f"{name}{random.randrange(16**8):08x}"
        r = httpx2.post(self.base + "/api/accounts", json={"name": unique, "password": PASSWORD}, timeout=15)
        assert r.status_code == 201, r.text
        return Person(unique, r.cookies.get("tabletop_session"), r.json()["csrf"])

    def lobby_match(self, ann: Person, ben: Person, clock: dict[str, Any] | None, rated: bool, **extra: Any) -> str:
        """A started two-person Terra Nova match from the lobby, Ann (seat 0) to move first."""
        me: dict[str, Any] = {"kind": "me"} if ann.logged_in else {"kind": "me", "name": ann.name}
        body = {"game": "terranova", "seats": [me, {"kind": "open"}], "clock": clock, "rated": rated}
        created = self.ok("POST", "/api/lobby", ann, {**body, "takeover": "random", "start_player": 0, **extra})
        joined = self.ok("POST", f"/api/lobby/{created['id']}/join", ben, {"name": ben.name})
        match_id: str = created["id"]
        ann.tokens[match_id], ben.tokens[match_id] = created["token"], joined["token"]
        return match_id

    def act(self, match_id: str, who: Person, action: str) -> dict[str, Any]:
        version = view_of(self.base, match_id)["version"]
        body = {"token": who.tokens[match_id], "version": version, "action": action}
        data: dict[str, Any] = self.ok("POST", f"/api/matches/{match_id}/actions", who, body)
        return data

    def table(self, match_id: str) -> dict[str, Any]:
        data: dict[str, Any] = self.ok("GET", f"/api/matches/{match_id}/table")
        return data


@pytest.fixture(scope="module")
def clocked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClockedServer]:
    server = ClockedServer(tmp_path_factory.mktemp("matrix"))
    server.start()
    try:
        yield server
    finally:
        if server.proc is not None and server.proc.poll() is None:
            stop_server(server.proc, timeout_s=10)


def first(view: dict[str, Any], kind: str) -> str:
    moves: list[str] = view["legal"][kind]
    return moves[0]


def wait_for(api: Api, match_id: str, predicate: Any, what: str) -> dict[str, Any]:
    import time

    for _ in range(400):
        view = view_of(api.base, match_id)
        if predicate(view):
            return view
        time.sleep(0.025)
    raise AssertionError(f"never: {what}")


CELLS = [
    pytest.param(
        accounts, rated, clock, id=f"{'accounts' if accounts else 'guests'}-{'rated' if rated else 'unrated'}-{clock}"
    )
    for accounts in (False, True)
    for rated in (False, True)
    for clock in CLOCKS
]


@pytest.mark.parametrize(("accounts", "rated", "clock"), CELLS)
def test_every_action_for_every_kind_of_player(clocked: ClockedServer, accounts: bool, rated: bool, clock: str) -> None:
    api = Api(clocked.base)
    ann, ben = api.person("Ann", accounts), api.person("Ben", accounts)
    clock_spec = CLOCKS[clock]
    match_id = api.lobby_match(ann, ben, clock_spec, rated)
    table = api.table(match_id)
    # Rated as asked (a guest's seat is left out of the ratings when it ends, not here).
    assert table["rated"] is rated
    assert table["clock"]["kind"] == clock
    tokens = {0: ann, 1: ben}

    # Move: the pioneers placed by both, each with their own session.
    while (view := view_of(api.base, match_id))["state"]["phase"] == "placement":
        api.act(match_id, tokens[view["current_player"]], first(view, "place"))
    while (view := view_of(api.base, match_id))["current_player"] != 0:
        api.act(match_id, ben, first(view, "move"))
    # A logged-in seat acts only with its session: the link alone is refused.
    token_only = Person(ann.name, tokens={match_id: ann.tokens[match_id]})
    move_body = {"token": ann.tokens[match_id], "version": view["version"], "action": first(view, "move")}
    if accounts:
        api.refused("POST", f"/api/matches/{match_id}/actions", token_only, move_body, 403, "seat_bound")

    # Hint: for the seat to move, with its session; off in a rated match.
    hint_body = {"token": ann.tokens[match_id], "level": "beginner", "version": view["version"]}
    if table["rated"]:
        api.refused("POST", f"/api/matches/{match_id}/hint", ann, hint_body, 403, "hints_off")
    else:
        hint = api.ok("POST", f"/api/matches/{match_id}/hint", ann, hint_body)
        assert hint["seat"] == 0 and hint["move"] in view["legal"]["move"]

    # Undo: Ann slides, then takes it back within her turn.
    before = api.act(match_id, ann, first(view, "move"))
    assert before["undoable_by"] == 0
    undone = api.ok(
        "POST", f"/api/matches/{match_id}/undo", ann, {"token": ann.tokens[match_id], "version": before["version"]}
    )
    assert undone["ply"] == before["ply"] - 1 and undone["current_player"] == 0

    # Chat: the players write, a stranger cannot.
    said = api.ok(
        "POST", f"/api/matches/{match_id}/chat", ben, {"token": ben.tokens[match_id], "text": f"hello {clock}"}
    )
    assert said["seat"] == 1
    messages = api.ok("GET", f"/api/matches/{match_id}/chat")["messages"]
    assert [(m["seat"], m["text"]) for m in messages] == [(1, f"hello {clock}")]
    api.refused("POST", f"/api/matches/{match_id}/chat", None, {"token": "x" * 24, "text": "hi"}, 403, "bad_token")

    # Takeover and reclaim: Ann's clock runs out, the takeover bot plays her turn, she comes back.
    clocked.advance(RUN_OUT_S)
    view = wait_for(api, match_id, lambda v: v["current_player"] == 1, "the bot played Ann's turn")
    assert view["players"][0]["agent"] == "random" and api.table(match_id)["seats"][0]["status"] == "timeout"
    api.ok("POST", f"/api/matches/{match_id}/reclaim", ann, {"token": ann.tokens[match_id]})
    assert api.table(match_id)["seats"][0]["status"] == "playing"
    assert view_of(api.base, match_id)["players"][0]["agent"] == "human"

    # Replay: every position so far, the actions as the log has them.
    replay = api.ok("GET", f"/api/matches/{match_id}/replay")
    view = view_of(api.base, match_id)
    assert len(replay["steps"]) == view["ply"] + 1
    assert [s["action"] for s in replay["steps"][1:]] == [e["action"] for e in view["log"]]

    # Resign: Ben gives up; Ann wins, nothing more can be played, no analysis of an unfinished game.
    api.ok("POST", f"/api/matches/{match_id}/resign", ben, {"token": ben.tokens[match_id]})
    ended = api.table(match_id)["ended"]
    assert ended["reason"] == "resigned" and ended["winners"] == [0]
    view = view_of(api.base, match_id)
    assert view["ended"]["winners"] == [0] and view["legal"]
    body = {"token": ann.tokens[match_id], "version": view["version"], "action": first(view, next(iter(view["legal"])))}
    api.refused("POST", f"/api/matches/{match_id}/actions", ann, body, 409, "game_over")
    api.refused("POST", f"/api/matches/{match_id}/analysis", None, {"level": "beginner"}, 409, "not_finished")

    # Rematch: both ask; it starts with the same clock and the same rated setting.
    asked = api.ok("POST", f"/api/matches/{match_id}/rematch", ann, {"token": ann.tokens[match_id]})
    accepted = api.ok("POST", f"/api/matches/{match_id}/rematch", ben, {"token": ben.tokens[match_id]})
    assert accepted["id"] == asked["id"] and accepted["game"]["status"] == "started"
    rematch = api.table(accepted["id"])
    assert rematch["clock"]["kind"] == clock and rematch["rated"] is table["rated"]

    # Abort: before the fourth action, either player may; the match ends unrated.
    fresh = api.lobby_match(ann, ben, clock_spec, rated, seed=3)
    api.act(fresh, ann, first(view_of(api.base, fresh), "place"))
    api.ok("POST", f"/api/matches/{fresh}/abort", ben, {"token": ben.tokens[fresh]})
    aborted = api.table(fresh)
    assert aborted["ended"]["reason"] == "aborted" and aborted["rated"] is False


MINI_ROWS = ["AABBCCDDLL", "AABBCCDDLLA", "AABBCCDDLLAB", "AABBCCDDLLABC"]
MINI = {
    "format": "terranova-map",
    "version": 1,
    "id": "mini",
    "name": "Mini",
    "landscapes": {k: {"name": k, "water": k == "L"} for k in "ABCDL"},
    "rows": [{"r": r, "q0": -r, "cells": cells} for r, cells in enumerate(MINI_ROWS)],
}


@pytest.mark.parametrize("accounts", [False, True], ids=["guests", "accounts"])
def test_a_finished_match_is_analysed_and_replayed(clocked: ClockedServer, accounts: bool) -> None:
    """Played to the rules' end (a small island, so it is short): the analysis and the replay."""
    api = Api(clocked.base)
    ann, ben = api.person("Ann", accounts), api.person("Ben", accounts)
    match_id = api.lobby_match(ann, ben, None, accounts, map=MINI)
    rng = random.Random(5)
    while not (view := view_of(api.base, match_id))["terminal"]:
        api.act(match_id, (ann, ben)[view["current_player"]], pick(view, rng))  # stones first: a shorter game
    analysis = api.ok("POST", f"/api/matches/{match_id}/analysis", None, {"level": "beginner"})
    assert analysis["complete"] and analysis["actions"] == view["ply"]
    assert analysis["turns"] and {t["seat"] for t in analysis["turns"]} == {0, 1}
    replay = api.ok("GET", f"/api/matches/{match_id}/replay")
    assert replay["steps"][-1]["outcome"]["winners"] == view["outcome"]["winners"]


def log_in(context: Any, base: str, who: Person) -> None:
    """Puts ``who``'s session cookie into a browser context (as logging in does)."""
    assert who.cookie is not None
    context.add_cookies([{"name": "tabletop_session", "value": who.cookie, "url": base}])


@pytest.mark.parametrize(
    ("accounts", "rated", "clock"),
    [
        pytest.param(False, False, "turn", id="guest-unrated-turn"),
        pytest.param(True, True, "realtime", id="account-rated-realtime"),
    ],
)
def test_the_page_for_each_kind_of_player(
    browser: Any, clocked: ClockedServer, accounts: bool, rated: bool, clock: str, tmp_path: Path
) -> None:
    api = Api(clocked.base)
    ann, ben = api.person("Ann", accounts), api.person("Ben", accounts)
    match_id = api.lobby_match(ann, ben, CLOCKS[clock], rated)
    context = browser.new_context(viewport={"width": 1024, "height": 800}, locale="en-US")
    if accounts:
        log_in(context, clocked.base, ann)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{clocked.base}/play/{match_id}#t={ann.tokens[match_id]}")
        page.wait_for_selector('#game[data-mine="1"]')
        assert (page.text_content("#status-text") or "").startswith("Place a pioneer")
        # A move by clicks, with whichever session the seat needs.
        view = view_of(api.base, match_id)
        click_move(page, first(view, "place"))
        wait_version(page, view["version"] + 1)
        assert view_of(api.base, match_id)["log"][-1]["seat"] == 0
        page.wait_for_function("() => document.querySelector('#status-text')?.textContent.startsWith('Waiting for')")
        api.act(match_id, ben, first(view_of(api.base, match_id), "place"))
        wait_version(page, view_of(api.base, match_id)["version"])
        page.wait_for_selector('#game[data-mine="1"]')
        # The hint: offered and answered unrated; not offered in a rated match.
        if rated:
            assert page.locator("#hint").count() == 0
        else:
            page.click("#hint")
            page.wait_for_selector("#hint-text", timeout=15000)
        # The chat box: Ann writes, the table shows it.
        page.fill("#chat-input", "good game")
        page.press("#chat-input", "Enter")
        page.wait_for_selector("#chat-log li .text")
        assert api.ok("GET", f"/api/matches/{match_id}/chat")["messages"][-1]["text"] == "good game"
        # Resign: the banner at the top says who won and why; the rematch is offered.
        page.on("dialog", lambda d: d.accept())
        page.click("#resign")
        page.wait_for_selector("#status.over")
        assert page.text_content("#status-winner") == f"{ben.name} wins"
        assert page.text_content("#status-reason") == f"{ann.name} resigned."
        page.wait_for_selector("#rematch")
        assert not re.search(r"\bnull\b", page.text_content("#table") or "")
        page.screenshot(path=str(tmp_path / "after-resign.png"))
    finally:
        context.close()
    assert not errors, errors
