"""The board drawing in the view and its endpoints: the page's picture, now or at any ply."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tabletop.core.record import GameRecord
from tabletop.server.replay import replay_board

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
