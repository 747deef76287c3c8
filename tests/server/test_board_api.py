"""The board drawing in the view and its endpoints: the page's picture, now or at any ply."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tabletop.core.record import GameRecord
from tabletop.server.replay import replay_board
from tabletop.server.rooms import Room

from .conftest import create_toy


def create_medina(client: TestClient) -> dict[str, Any]:
    seats = [{"name": f"P{i}", "agent": "human"} for i in range(3)]
    r = client.post("/api/matches", json={"game": "medina", "seats": seats, "start_player": 0, "seed": 1})
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def play(client: TestClient, m: dict[str, Any], actions: int) -> dict[str, Any]:
    view: dict[str, Any] = client.get(f"/api/matches/{m['id']}").json()
    for _ in range(actions):
        move = next(iter(view["legal"].values()))[0]
        token = m["seats"][view["current_player"]]["token"]
        body = {"token": token, "version": view["version"], "action": move}
        r = client.post(f"/api/matches/{m['id']}/actions", json=body)
        assert r.status_code == 200, r.text
        view = r.json()
    return view


def test_the_view_carries_the_board_drawing_and_the_endpoint_serves_it(client: TestClient) -> None:
    m = create_medina(client)
    view = play(client, m, 5)
    assert view["board_svg"].startswith("<svg") and 'class="board-svg"' in view["board_svg"]
    r = client.get(f"/api/matches/{m['id']}/board")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.text == view["board_svg"]
    # Every seat's last turn is marked in it (the page hides the viewer's own).
    assert 'data-ply="4"' in r.text


def test_a_past_position_is_the_replays_drawing(client: TestClient) -> None:
    m = create_medina(client)
    play(client, m, 6)
    r = client.get(f"/api/matches/{m['id']}/board", params={"ply": 3})
    assert r.status_code == 200
    record = GameRecord.loads(client.get(f"/api/matches/{m['id']}/record").text)
    assert r.text == replay_board(record, 3)
    uploaded = client.post("/api/replay/board", params={"ply": 3}, json=record.to_json())
    assert uploaded.status_code == 200 and uploaded.text == r.text
    for bad in (-1, 7):
        r = client.get(f"/api/matches/{m['id']}/board", params={"ply": bad})
        assert r.status_code == 422 and r.json()["error"] == "bad_ply"
    r = client.post("/api/replay/board", params={"ply": 99}, json=record.to_json())
    assert r.status_code == 422 and r.json()["error"] == "bad_record"


def test_a_game_without_a_board_drawing_has_none(client: TestClient) -> None:
    m = create_toy(client)
    assert client.get(f"/api/matches/{m['id']}").json()["board_svg"] is None
    r = client.get(f"/api/matches/{m['id']}/board")
    assert r.status_code == 404 and r.json()["error"] == "no_board"


def test_only_a_socket_that_shows_the_board_gets_it_and_nobody_else_pays_for_it(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The drawing is the costliest part of an update: it is made once a version, and only
    while a socket that asked for it (``?board=1``, the game page) is connected."""
    drawn: list[int] = []
    board_svg = Room.board_svg

    def counting(room: Room) -> str | None:
        if room._board_cache is None or room._board_cache[0] != room.version:
            drawn.append(room.version)
        return board_svg(room)

    monkeypatch.setattr(Room, "board_svg", counting)
    m = create_medina(client)
    url = f"/api/matches/{m['id']}/ws"
    with client.websocket_connect(url) as plain:
        assert "board_svg" not in plain.receive_json()
        # A view without the board, as an API client that shows none asks for it.
        assert "board_svg" not in client.get(f"/api/matches/{m['id']}", params={"board": False}).json()
        token = m["seats"][0]["token"]
        view = client.get(f"/api/matches/{m['id']}", params={"board": False}).json()
        move = next(iter(view["legal"].values()))[0]
        plain.send_json({"type": "act", "req": 1, "token": token, "version": view["version"], "action": move})
        while (msg := plain.receive_json())["type"] != "ack":
            assert "board_svg" not in msg
        assert drawn == []  # nobody showed a board: none was drawn
        with client.websocket_connect(url + "?board=1") as page:
            first = page.receive_json()
            assert first["board_svg"] == client.get(f"/api/matches/{m['id']}/board").text
            view = client.get(f"/api/matches/{m['id']}", params={"board": False}).json()
            token = m["seats"][view["current_player"]]["token"]
            move = next(iter(view["legal"].values()))[0]
            page.send_json({"type": "act", "req": 2, "token": token, "version": view["version"], "action": move})
            while (update := page.receive_json())["type"] != "state":
                pass
            assert update["version"] == 2 and update["board_svg"] == client.get(f"/api/matches/{m['id']}/board").text
            while (msg := plain.receive_json())["type"] != "state":
                pass
            assert msg["version"] == 2 and "board_svg" not in msg
        assert drawn == [1, 2]  # once a version, for the page
