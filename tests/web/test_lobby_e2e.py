"""The lobby, clocks and takeover in headless Chromium, against a server whose clock the
test moves (``serve_clocked.py``): create/join/play from the lobby with chat, a turn-based
player's time running out (a bot takes over, the person takes the seat back), and a
restart in the middle of a clocked game."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tabletop.server.local import free_port, start_server, stop_server

from .driver import click_move, view_of, wait_version

pytestmark = pytest.mark.slow
HERE = Path(__file__).parent
T0 = 1_800_000_000.0
HOUR = 3600


class ClockedServer:
    """A server process on a fixed port and database, with a clock file the test moves."""

    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.db = f"sqlite:///{tmp / 'clocked.db'}"
        self.clock_file = tmp / "clock.txt"
        self.now = T0
        self.clock_file.write_text(str(self.now))
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        cmd = [sys.executable, str(HERE / "serve_clocked.py"), str(self.port), self.db, str(self.clock_file)]
        self.proc = start_server(cmd, self.port, env={**os.environ, "PYTHONUNBUFFERED": "1"})

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def advance(self, seconds: float) -> None:
        self.now += seconds
        self.clock_file.write_text(str(self.now))

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        r = httpx2.post(self.base + path, json=body, timeout=10)
        assert r.status_code in (200, 201), r.text
        data: dict[str, Any] = r.json()
        return data

    def stored_clock(self, match_id: str) -> dict[str, Any]:
        """The clock as the database holds it (the server writes switches every poll)."""
        with sqlite3.connect(self.db.removeprefix("sqlite:///")) as conn:
            row = conn.execute("SELECT clock FROM match_tables WHERE match_id = ?", (match_id,)).fetchone()
        data: dict[str, Any] = json.loads(row[0])
        return data

    def table(self, match_id: str) -> dict[str, Any]:
        data: dict[str, Any] = httpx2.get(f"{self.base}/api/matches/{match_id}/table", timeout=10).json()
        return data


@pytest.fixture
def clocked(tmp_path: Path) -> Iterator[ClockedServer]:
    server = ClockedServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        if server.proc is not None and server.proc.poll() is None:
            stop_server(server.proc, timeout_s=10)


def lobby_match(srv: ClockedServer, **extra: Any) -> tuple[str, str, str]:
    """A started Terra Nova lobby match, Ann (seat 0) to move: (id, Ann's token, Bob's token)."""
    body = {"game": "terranova", "seats": [{"kind": "me", "name": "Ann"}, {"kind": "open"}]}
    created = srv.post("/api/lobby", {**body, "start_player": 0, "seed": 3, **extra})
    joined = srv.post(f"/api/lobby/{created['id']}/join", {"name": "Bob"})
    return created["id"], created["token"], joined["token"]


def play_api_turn(srv: ClockedServer, match_id: str, token: str, seat: int, rng: random.Random) -> None:
    """Plays ``seat``'s whole turn through the API."""
    for _ in range(10):
        view = view_of(srv.base, match_id)
        if view["current_player"] != seat or view["terminal"]:
            return
        move = rng.choice([m for moves in view["legal"].values() for m in moves])
        srv.post(f"/api/matches/{match_id}/actions", {"token": token, "version": view["version"], "action": move})


def wait_until(page: Any, base: str, match_id: str, predicate: Any, what: str) -> dict[str, Any]:
    for _ in range(300):
        view = view_of(base, match_id)
        if predicate(view):
            return view
        page.wait_for_timeout(50)
    raise AssertionError(f"never: {what}")


def test_lobby_create_join_play_chat_and_resign(browser: Any, clocked: ClockedServer) -> None:
    contexts = [browser.new_context(viewport={"width": 1200, "height": 900}) for _ in range(2)]
    ann, bob = (c.new_page() for c in contexts)
    try:
        # Ann opens a public real-time game with one open seat.
        ann.goto(clocked.base + "/")
        ann.wait_for_selector("#open-create")
        ann.select_option("#game-select", "terranova")
        ann.select_option("#players-select", "2")
        ann.fill("#open-name", "Ann")
        ann.select_option("#clock-kind", "realtime")
        ann.fill("#clock-base", "5")
        ann.fill("#clock-increment", "3")
        ann.click("#open-create")
        ann.wait_for_url(re.compile(r"/lobby/"))
        game_id = ann.url.split("/lobby/")[1].split("#")[0]
        ann.wait_for_selector('#lobby-seats li[data-state="open"]')
        # Bob finds it in the lobby's list and joins the free seat.
        bob.goto(clocked.base + "/")
        bob.click(f'#open-games li[data-id="{game_id}"] a.join-link')
        bob.wait_for_url(re.compile(r"/lobby/"))
        bob.fill("#join-name", "Bob")
        bob.click('button.join[data-seat="1"]')
        for page in (ann, bob):
            page.wait_for_url(re.compile(r"/play/"), timeout=15000)
            page.wait_for_selector("#clocks li.clock.running")
        assert ann.get_attribute('#clocks li[data-seat="0"]', "data-remaining-ms") == "300000"
        # They play a few turns by clicks; the clock runs for whoever is to move.
        rng = random.Random(4)
        pages = {0: ann, 1: bob}
        for _ in range(4):
            view = view_of(clocked.base, game_id)
            me = pages[view["current_player"]]
            wait_version(me, view["version"])
            me.wait_for_selector('#game[data-mine="1"]')
            click_move(me, rng.choice([m for moves in view["legal"].values() for m in moves]))
            wait_version(me, view["version"] + 1)
        running = clocked.table(game_id)["clock"]["running"]
        assert running == view_of(clocked.base, game_id)["current_player"]
        # A watcher finds the game in progress.
        contexts.append(browser.new_context())
        watcher = contexts[2].new_page()
        watcher.goto(clocked.base + "/")
        watcher.click(f'#playing-games li[data-id="{game_id}"] a.watch-link')
        watcher.wait_for_selector("#board")
        watcher.wait_for_selector("#chat")
        assert not watcher.is_visible("#chat-input")  # spectators read the chat, players write
        # Chat: markup arrives as text; Bob can mute Ann.
        ann.fill("#chat-input", "<b>good luck</b>")
        ann.press("#chat-input", "Enter")
        bob.wait_for_selector("#chat-log li .text")
        assert bob.text_content("#chat-log li .text") == "<b>good luck</b>"
        assert bob.query_selector("#chat-log b") is None
        bob.click('#chat-mutes button.mute[data-seat="0"]')
        bob.wait_for_function("() => !document.querySelector('#chat-log li')")
        # Bob resigns; both see the end and are offered a rematch.
        bob.on("dialog", lambda d: d.accept())
        bob.click("#resign")
        for page in (ann, bob):
            page.wait_for_selector('#table[data-over="1"] #rematch')
        assert "resigned" in (ann.text_content("#table-status") or "")
    finally:
        for c in contexts:
            c.close()


def test_turn_based_timeout_then_the_person_takes_the_seat_back(page: Any, clocked: ClockedServer) -> None:
    match_id, ann, bob = lobby_match(clocked, clock={"kind": "turn", "per_move_s": 2 * HOUR}, takeover="random")
    page.goto(f"{clocked.base}/play/{match_id}#t={ann}")
    page.wait_for_selector('#game[data-mine="1"]')
    page.wait_for_function("() => document.title.startsWith('●')")
    assert page.get_attribute('#clocks li[data-seat="0"]', "data-remaining-ms") == str(2 * HOUR * 1000)
    clocked.advance(2 * HOUR)  # Ann's time is up: the bot plays her turn
    page.wait_for_selector("#reclaim", timeout=15000)
    assert "random plays" in (page.text_content("#table-status") or "")
    view = wait_until(page, clocked.base, match_id, lambda v: v["current_player"] == 1, "the bot played Ann's turn")
    assert view["players"][0]["agent"] == "random"
    page.click("#reclaim")
    page.wait_for_selector("#reclaim", state="detached")
    assert clocked.table(match_id)["seats"][0]["status"] == "playing"
    play_api_turn(clocked, match_id, bob, 1, random.Random(5))
    view = wait_until(page, clocked.base, match_id, lambda v: v["current_player"] == 0, "Ann's turn again")
    wait_version(page, view["version"])
    page.wait_for_selector('#game[data-mine="1"]')
    page.wait_for_function("() => document.title.startsWith('●')")
    assert view_of(clocked.base, match_id)["players"][0]["agent"] == "human"
    # Ann plays her seat again herself, by a click on the page; no bot moves for her.
    move = random.Random(8).choice([m for moves in view["legal"].values() for m in moves])
    click_move(page, move)
    wait_version(page, view["version"] + 1)
    after = view_of(clocked.base, match_id)
    assert after["log"][-1] == {**after["log"][-1], "seat": 0, "action": move}
    assert after["players"][0]["agent"] == "human" and clocked.table(match_id)["seats"][0]["status"] == "playing"


def test_a_restart_mid_game_keeps_the_clocks(page: Any, clocked: ClockedServer) -> None:
    match_id, ann, bob = lobby_match(clocked, clock={"kind": "realtime", "base_s": 600, "increment_s": 5})
    page.goto(f"{clocked.base}/play/{match_id}#t={bob}")
    page.wait_for_selector("#clocks li.clock.running")
    clocked.advance(40)
    play_api_turn(clocked, match_id, ann, 0, random.Random(6))  # Ann used 40 s, gains 5
    clocked.advance(25)  # Bob thinks for 25 s ...
    assert clocked.table(match_id)["clock"]["remaining_ms"] == [565_000, 575_000]
    for _ in range(100):  # the switch to Bob is stored (switches are written every poll)
        if clocked.stored_clock(match_id)["running"] == 1:
            break
        page.wait_for_timeout(50)
    old_pid = clocked.proc.pid if clocked.proc is not None else None
    clocked.kill()  # ... the server dies ...
    with pytest.raises(httpx2.TransportError):  # really down: nothing answers
        httpx2.get(f"{clocked.base}/api/matches/{match_id}/table", timeout=2)
    clocked.advance(10)  # ... and is down for 10 s, which count for Bob, whose turn it is
    clocked.start()
    assert clocked.proc is not None and clocked.proc.pid != old_pid  # a new process, same database
    assert clocked.table(match_id)["clock"]["remaining_ms"] == [565_000, 565_000]
    # The page reconnects by itself and shows the times the server has now.
    page.wait_for_function(
        "() => document.querySelector('#clocks li[data-seat=\"1\"]')?.dataset.remainingMs === '565000'",
        timeout=15000,
    )
    assert page.get_attribute('#clocks li[data-seat="0"]', "data-remaining-ms") == "565000"
    assert "running" in (page.get_attribute('#clocks li[data-seat="1"]', "class") or "")
    # The game goes on: Bob's move switches the clocks as before the restart.
    clocked.advance(5)
    play_api_turn(clocked, match_id, bob, 1, random.Random(7))
    assert clocked.table(match_id)["clock"]["remaining_ms"] == [565_000, 565_000]


def test_the_lobby_page_rides_out_dropped_requests(page: Any, server: str) -> None:
    """A waiting player whose connection drops for a moment keeps the lobby page: a poll
    that gets no answer is asked again at the next one, not shown as an error."""
    body = {"game": "terranova", "seats": [{"kind": "me", "name": "Ann"}, {"kind": "open"}]}
    created = httpx2.post(f"{server}/api/lobby", json=body, timeout=10).json()
    dropped: list[str] = []

    def drop_twice(route: Any) -> None:
        if len(dropped) < 2:
            dropped.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    page.route(f"**/api/lobby/{created['id']}", drop_twice)
    page.route("**/api/agents", lambda route: route.abort())
    page.goto(f"{server}/lobby/{created['id']}#t={created['token']}")
    page.wait_for_selector("#lobby-seats li.lobby-seat", timeout=15000)
    assert len(dropped) == 2
    assert page.query_selector("p.error") is None


def test_the_front_page_asks_again_when_its_first_request_gets_no_answer(page: Any, server: str) -> None:
    dropped: list[str] = []

    def drop_once(route: Any) -> None:
        if not dropped:
            dropped.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    page.route("**/api/games", drop_once)
    page.goto(server + "/")
    page.wait_for_selector(".toast.error", timeout=10000)  # said, not swallowed ...
    text, background = page.evaluate(
        "() => { const s = getComputedStyle(document.querySelector('.toast.error'));"
        " return [s.color, s.backgroundColor]; }"
    )
    assert contrast(text, background) >= 4.5  # ... and readable (it once was red on red)
    page.wait_for_selector("#open-create", timeout=15000)  # and the form comes once it answers
    assert dropped


def contrast(first: str, second: str) -> float:
    """WCAG's contrast ratio of two CSS ``rgb(...)`` colours."""

    def luminance(css: str) -> float:
        channels = [int(c) / 255 for c in re.findall(r"\d+", css)[:3]]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)
