"""Two server apps on one database behave as one service (issue #36).

The database is the authority: a room in memory is a cache that catches up when a client
names a newer version or a compare-and-set is refused.  On PostgreSQL the bus
(``server/bus.py``, LISTEN/NOTIFY) also tells each app's sockets of every change made
through the other.  Each app here has its own rooms, store and listener connection, as
two ``tabletop serve`` processes would.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import secrets
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tabletop.server.app import create_app
from tabletop.server.bus import Step, is_postgres, notice_payload, parse_notice, parse_step
from tabletop.server.config import Settings
from tabletop.server.lobby_store import ChatStore
from tabletop.server.store import MatchStore, SeatRow, open_database

from .conftest import create_toy


@pytest.fixture
def pair(settings: Settings) -> Iterator[tuple[TestClient, TestClient]]:
    with TestClient(create_app(settings)) as first, TestClient(create_app(settings)) as second:
        yield first, second


def _act(client: TestClient, m: dict[str, Any], version: int, cell: str) -> Any:
    token = m["seats"][(version // 2) % 2]["token"]
    return client.post(f"/api/matches/{m['id']}/actions", json={"token": token, "version": version, "action": cell})


def test_a_match_made_on_one_is_played_alternately_on_both(
    pair: tuple[TestClient, TestClient], settings: Settings
) -> None:
    first, second = pair
    m = create_toy(first)
    assert second.get(f"/api/matches/{m['id']}").json()["version"] == 0  # cached on the second now
    for version, cell in enumerate("abcdef"):
        r = _act(pair[version % 2], m, version, cell)
        assert r.status_code == 200, r.text
        assert r.json()["version"] == version + 1
    assert second.get(f"/api/matches/{m['id']}/record").json()["actions"] == list("abcdef")
    if is_postgres(settings.db_url):  # the bus brings the first's cache up to date too
        deadline = time.monotonic() + 10
        while first.get(f"/api/matches/{m['id']}").json()["version"] != 6:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert first.get(f"/api/matches/{m['id']}/record").json()["actions"] == list("abcdef")


def test_a_stale_cache_refuses_then_catches_up(pair: tuple[TestClient, TestClient]) -> None:
    first, second = pair
    m = create_toy(first)
    second.get(f"/api/matches/{m['id']}")
    assert _act(first, m, 0, "a").status_code == 200
    # The second's cache is at version 0; a client still there is refused by the database...
    r = _act(second, m, 0, "b")
    assert r.status_code == 409 and r.json()["error"] == "stale_version"
    # ...and the second has caught up, so the next action from version 1 is taken there.
    assert _act(second, m, 1, "b").status_code == 200
    assert _act(first, m, 2, "c").status_code == 200  # the first catches up from the client's version


def test_undo_through_the_other_process_is_seen(pair: tuple[TestClient, TestClient]) -> None:
    first, second = pair
    m = create_toy(first)
    assert _act(first, m, 0, "a").status_code == 200
    token = m["seats"][0]["token"]
    r = second.post(f"/api/matches/{m['id']}/undo", json={"token": token, "version": 1})
    assert r.status_code == 200, r.text
    assert r.json()["version"] == 2
    # The first rebuilds (the log was rewritten) and goes on: seat 0 again, another cell.
    r = first.post(f"/api/matches/{m['id']}/actions", json={"token": token, "version": 2, "action": "b"})
    assert r.status_code == 200, r.text
    assert [e["action"] for e in r.json()["log"]] == ["b"]


def test_bus_notices_are_parsed_strictly() -> None:
    assert parse_notice("abc 7") == ("abc", 7)
    for bad in ("", "abc", "abc x", " 7", "abc -1"):
        assert parse_notice(bad) is None


def test_an_action_notice_carries_the_action() -> None:
    payload = notice_payload("abc", 8, Step(7, 1, "h8-k8"))
    assert parse_notice(payload) == ("abc", 8)
    assert parse_step(payload) == Step(7, 1, "h8-k8")
    assert parse_step(notice_payload("abc", 8)) is None  # an undo's notice carries none
    for bad in ("abc 8 x 1 h8", "abc 8 7 y h8", "abc 8 7 1 ", "abc 8 7 1"):
        assert parse_step(bad) is None
    # Past PostgreSQL's payload limit the action stays out; the listeners read it.
    long = notice_payload("abc", 8, Step(7, 1, "x" * 8000))
    assert long == "abc 8" and parse_step(long) is None


def test_the_other_process_applies_a_notice_without_reading_the_match(
    pair: tuple[TestClient, TestClient], settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not is_postgres(settings.db_url):
        pytest.skip("the bus between processes needs PostgreSQL (TABLETOP_TEST_DB); .ci/run sets it")
    first, second = pair
    m = create_toy(first)
    url = f"/api/matches/{m['id']}/ws"
    with second.websocket_connect(url) as on_second:
        assert on_second.receive_json()["version"] == 0
        store = second.app.state.rooms.store  # type: ignore[attr-defined]
        reads: list[str] = []
        get_match = store.get_match
        monkeypatch.setattr(store, "get_match", lambda *args: reads.append(args[0]) or get_match(*args))
        for version, cell in enumerate("abc"):
            assert _act(first, m, version, cell).status_code == 200
            assert on_second.receive_json()["version"] == version + 1
        assert reads == []
        view = second.get(f"/api/matches/{m['id']}").json()
        assert [e["action"] for e in view["log"]] == list("abc")
        # An undo's notice carries no action: that one is read from the database.
        token = m["seats"][1]["token"]
        assert first.post(f"/api/matches/{m['id']}/undo", json={"token": token, "version": 3}).status_code == 200
        assert on_second.receive_json()["version"] == 4
        assert reads and set(reads) == {m["id"]}


def test_a_process_without_a_socket_of_a_match_forgets_it_rather_than_follow_it(
    pair: tuple[TestClient, TestClient], settings: Settings
) -> None:
    if not is_postgres(settings.db_url):
        pytest.skip("the bus between processes needs PostgreSQL (TABLETOP_TEST_DB); .ci/run sets it")
    first, second = pair
    unwatched, watched = create_toy(first), create_toy(first)  # both cached on the first
    rooms = first.app.state.rooms  # type: ignore[attr-defined]
    with first.websocket_connect(f"/api/matches/{watched['id']}/ws") as on_first:
        assert on_first.receive_json()["version"] == 0
        assert _act(second, unwatched, 0, "a").status_code == 200
        assert _act(second, watched, 0, "a").status_code == 200
        assert on_first.receive_json()["version"] == 1  # a socket here: followed
        deadline = time.monotonic() + 10
        while rooms.loaded(unwatched["id"]) is not None:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert rooms.loaded(watched["id"]).version == 1
    # Asked again, it is read from the database as it stands.
    view = first.get(f"/api/matches/{unwatched['id']}").json()
    assert view["version"] == 1 and [e["action"] for e in view["log"]] == ["a"]


def test_a_socket_on_either_process_hears_every_update(pair: tuple[TestClient, TestClient], settings: Settings) -> None:
    if not is_postgres(settings.db_url):
        pytest.skip("the bus between processes needs PostgreSQL (TABLETOP_TEST_DB); .ci/run sets it")
    first, second = pair
    m = create_toy(first)
    url = f"/api/matches/{m['id']}/ws"
    with first.websocket_connect(url) as on_first, second.websocket_connect(url) as on_second:
        for ws in (on_first, on_second):
            assert ws.receive_json()["version"] == 0
        for version, cell in enumerate("abcdef"):
            assert _act(pair[version % 2], m, version, cell).status_code == 200
            for ws in (on_first, on_second):
                deadline = time.monotonic() + 10
                while (update := ws.receive_json()).get("type") != "state":
                    assert time.monotonic() < deadline
                assert update["version"] == version + 1, update


def test_chat_numbers_come_from_the_database(settings: Settings) -> None:
    """Two stores (two processes) writing one match's chat never hand out the same number."""
    stores = [MatchStore(open_database(settings.db_url)), MatchStore(open_database(settings.db_url))]
    try:
        match_id = f"chat{secrets.token_hex(6)}"
        stores[0].add_match(match_id, "toy", {}, False, [SeatRow(0, "A", "human", None)])
        chats = [ChatStore(s.engine) for s in stores]
        if is_postgres(settings.db_url):  # a real race: both read the same highest number at times
            with concurrent.futures.ThreadPoolExecutor(4) as pool:
                numbers = list(pool.map(lambda i: chats[i % 2].add_chat_line(match_id, 0, f"line {i}", "t"), range(40)))
        else:
            numbers = [chats[i % 2].add_chat_line(match_id, 0, f"line {i}", "t") for i in range(40)]
        assert sorted(numbers) == list(range(40))
        rows, next_n = chats[1].list_chat(match_id, 100)
        assert [r[0] for r in rows] == list(range(40)) and next_n == 40
    finally:
        for store in stores:
            store.close()
            store.engine.dispose()


def test_a_bot_turn_left_by_a_dead_process_is_played_by_another(settings: Settings) -> None:
    if not is_postgres(settings.db_url):
        pytest.skip("the bus between processes needs PostgreSQL (TABLETOP_TEST_DB); .ci/run sets it")
    slow = dataclasses.replace(settings, bot_delay_s=60.0)  # it will not move before it "dies"
    quick = dataclasses.replace(settings, bot_time_budget_s=0.5)
    with TestClient(create_app(quick)) as survivor:
        with TestClient(create_app(slow)) as doomed:
            m = create_toy(doomed, ("human", "random"))
            survivor.get(f"/api/matches/{m['id']}")  # the survivor caches the match and hears of it
            token = m["seats"][0]["token"]
            for version, cell in enumerate("ab"):
                body = {"token": token, "version": version, "action": cell}
                assert doomed.post(f"/api/matches/{m['id']}/actions", json=body).status_code == 200
        # The doomed process stopped with the bot's turn unplayed; the survivor plays it once.
        deadline = time.monotonic() + 20
        while (view := survivor.get(f"/api/matches/{m['id']}").json())["version"] < 4:
            assert time.monotonic() < deadline, view["version"]
            time.sleep(0.1)
        log = [(e["ply"], e["seat"]) for e in view["log"]]
        assert log == [(0, 0), (1, 0), (2, 1), (3, 1)]
