"""A match nobody uses leaves the process's memory and comes back from the database.

``room_idle_s`` (``Settings``, ``TABLETOP_ROOM_IDLE_S``) is how long a room may go
unused; the rooms' clock is replaced by a fake one here, so no test waits.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tabletop.server.app import create_app
from tabletop.server.config import Settings
from tabletop.server.rooms import SWEEP_S, RoomManager

from .conftest import create_toy

IDLE_S = 600


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def idle_client(settings: Settings) -> Iterator[tuple[TestClient, FakeClock]]:
    clock = FakeClock()
    with TestClient(create_app(Settings(**{**settings.__dict__, "room_idle_s": IDLE_S}))) as client:
        rooms: RoomManager = client.app.state.rooms  # type: ignore[attr-defined]
        assert rooms.idle_s == IDLE_S
        rooms.now = clock
        rooms.evict_idle()  # the next look is due SWEEP_S from now
        yield client, clock


def _rooms(client: TestClient) -> RoomManager:
    rooms: RoomManager = client.app.state.rooms  # type: ignore[attr-defined]
    return rooms


def _act(client: TestClient, m: dict[str, Any], version: int, cell: str) -> Any:
    token = m["seats"][(version // 2) % 2]["token"]
    return client.post(f"/api/matches/{m['id']}/actions", json={"token": token, "version": version, "action": cell})


def test_an_idle_match_is_dropped_and_reloaded_as_it_was(idle_client: tuple[TestClient, FakeClock]) -> None:
    client, clock = idle_client
    m = create_toy(client)
    for version, cell in enumerate("abc"):
        assert _act(client, m, version, cell).status_code == 200
    other = create_toy(client)
    assert _rooms(client).is_loaded(m["id"])

    clock.now += IDLE_S - 1  # not idle long enough yet
    assert client.get(f"/api/matches/{other['id']}").status_code == 200  # a request looks for idle rooms
    assert _rooms(client).is_loaded(m["id"])

    clock.now += SWEEP_S  # idle long enough now, and time for the next look; the other was just used
    assert client.get(f"/api/matches/{other['id']}").status_code == 200
    assert not _rooms(client).is_loaded(m["id"])
    assert _rooms(client).is_loaded(other["id"])

    # The next use reloads it from the database, and play goes on from where it was.
    view = client.get(f"/api/matches/{m['id']}").json()
    assert view["version"] == 3 and [e["action"] for e in view["log"]] == list("abc")
    assert _rooms(client).is_loaded(m["id"])
    assert _act(client, m, 3, "d").status_code == 200
    assert client.get(f"/api/matches/{m['id']}/record").json()["actions"] == list("abcd")


def test_a_match_with_a_socket_stays(idle_client: tuple[TestClient, FakeClock]) -> None:
    client, clock = idle_client
    m = create_toy(client)
    other = create_toy(client)
    with client.websocket_connect(f"/api/matches/{m['id']}/ws") as ws:
        assert ws.receive_json()["type"] == "state"
        clock.now += 10 * IDLE_S
        _rooms(client).evict_idle()
        assert _rooms(client).is_loaded(m["id"])
        assert not _rooms(client).is_loaded(other["id"])
        # The socket still hears the match it holds.
        assert _act(client, m, 0, "a").status_code == 200
        assert ws.receive_json()["version"] == 1
    room = _rooms(client).loaded(m["id"])
    assert room is not None
    deadline = time.monotonic() + 10
    # The server hears the socket close a moment after the client; on PostgreSQL the bus
    # may be checking the match (under its lock) a moment after the action too.
    while room.subscribers or room.lock.locked():
        assert time.monotonic() < deadline, "the server never heard the socket close"
        time.sleep(0.01)
    clock.now += IDLE_S  # the socket is gone, and the room was last used when it connected
    assert _rooms(client).evict_idle() >= 1
    assert not _rooms(client).is_loaded(m["id"])


def test_the_bus_follows_the_rooms_in_memory_and_a_newly_followed_one_reads_its_version(
    idle_client: tuple[TestClient, FakeClock],
) -> None:
    import asyncio

    from tabletop.server.store import AppendAction

    client, clock = idle_client
    rooms = _rooms(client)
    m = create_toy(client)
    for version, cell in enumerate("abc"):
        assert _act(client, m, version, cell).status_code == 200
    assert m["id"] in rooms.followed

    # Another process's action, committed while this one was not yet LISTENing on the match
    # (on PostgreSQL this process does LISTEN, and its bus may bring the action first).
    assert rooms.store.commit_writes([AppendAction(m["id"], 3, 3, 1, "d", None)]) == [True]
    if not rooms.store.notifies:
        assert client.get(f"/api/matches/{m['id']}").json()["version"] == 3  # nobody told this process

    async def listened() -> None:
        rooms.listened([m["id"]])
        await asyncio.sleep(0)
        while rooms._catching_up:
            await asyncio.sleep(0.01)

    client.portal.call(listened)  # type: ignore[union-attr]
    view = client.get(f"/api/matches/{m['id']}").json()
    assert view["version"] == 4 and [e["action"] for e in view["log"]] == list("abcd")

    other = create_toy(client)
    clock.now += IDLE_S + SWEEP_S  # the first match goes idle and leaves memory: no longer followed
    assert client.get(f"/api/matches/{other['id']}").status_code == 200
    assert not rooms.is_loaded(m["id"]) and m["id"] not in rooms.followed and other["id"] in rooms.followed
