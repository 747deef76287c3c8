"""The websocket: live updates, actions with acks, errors that keep the socket open."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from .conftest import create_toy


def recv_until(ws: Any, kind: str) -> dict[str, Any]:
    for _ in range(20):
        msg: dict[str, Any] = ws.receive_json()
        if msg["type"] == kind:
            return msg
    raise AssertionError(f"no {kind} message")


def test_both_players_and_spectator_see_each_action(client: TestClient) -> None:
    m = create_toy(client)
    url = f"/api/matches/{m['id']}/ws"
    with client.websocket_connect(url) as p0, client.websocket_connect(url) as spectator:
        assert p0.receive_json()["version"] == 0
        assert spectator.receive_json()["version"] == 0
        p0.send_json({"type": "act", "req": 1, "token": m["seats"][0]["token"], "version": 0, "action": "d"})
        update = recv_until(p0, "state")
        assert update["version"] == 1 and update["log"][-1]["action"] == "d"
        assert recv_until(p0, "ack") == {"type": "ack", "req": 1, "version": 1}
        assert recv_until(spectator, "state")["version"] == 1


def test_socket_errors_do_not_close_it(client: TestClient) -> None:
    m = create_toy(client)
    with client.websocket_connect(f"/api/matches/{m['id']}/ws") as ws:
        ws.receive_json()
        ws.send_text("not json")
        assert ws.receive_json()["error"] == "bad_json"
        ws.send_json({"type": "act", "req": 2, "token": "forged", "version": 0, "action": "a"})
        err = ws.receive_json()
        assert err["status"] == 403 and err["req"] == 2
        ws.send_json({"type": "act", "req": 3, "token": m["seats"][0]["token"], "version": 5, "action": "a"})
        assert ws.receive_json()["error"] == "stale_version"
        ws.send_json({"type": "act", "req": 4, "token": m["seats"][0]["token"], "version": "0"})
        assert ws.receive_json()["error"] == "bad_message"
        ws.send_json({"type": "fly"})
        assert ws.receive_json()["error"] == "bad_message"
        ws.send_json({"type": "ping", "req": 9})
        assert ws.receive_json() == {"type": "pong", "req": 9}


def test_unknown_match_socket_is_closed(client: TestClient) -> None:
    with client.websocket_connect("/api/matches/nosuch/ws") as ws:
        assert ws.receive_json()["error"] == "unknown_match"
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()


def test_undo_over_socket(client: TestClient) -> None:
    m = create_toy(client)
    tok = m["seats"][0]["token"]
    with client.websocket_connect(f"/api/matches/{m['id']}/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "act", "req": 1, "token": tok, "version": 0, "action": "a"})
        recv_until(ws, "ack")
        ws.send_json({"type": "undo", "req": 2, "token": tok, "version": 1})
        state = recv_until(ws, "state")
        assert state["ply"] == 0 and state["version"] == 2
        assert recv_until(ws, "ack")["version"] == 2


def merge(view: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """The client's mergePatch (web/api.js) in Python."""
    assert patch["base"] == view["version"]
    state = {**view["state"], **patch["state"]}
    for k in patch["drop"]:
        del state[k]
    log = view["log"][: patch["log_from"]] + patch["log"]
    return {**patch, "state": state, "log": log, "full": True}


@pytest.mark.parametrize("board", [False, True])
def test_updates_are_patches_that_rebuild_the_full_view(client: TestClient, board: bool) -> None:
    """A socket that asked for the board (``?board=1``, the page) rebuilds the HTTP view with
    ``board_svg``; one that did not rebuilds it without (``?board=false``)."""
    m = create_toy(client)
    t0, t1 = m["seats"][0]["token"], m["seats"][1]["token"]
    with client.websocket_connect(f"/api/matches/{m['id']}/ws" + ("?board=1" if board else "")) as ws:
        view = ws.receive_json()
        assert view["full"] is True
        steps: list[dict[str, Any]] = [
            {"type": "act", "token": t0, "action": "a"},
            {"type": "undo", "token": t0},
            {"type": "act", "token": t0, "action": "b"},
            {"type": "act", "token": t0, "action": "c"},
            {"type": "act", "token": t1, "action": "d"},
        ]
        for req, step in enumerate(steps):
            ws.send_json({**step, "req": req, "version": view["version"]})
            patch = recv_until(ws, "state")
            assert patch["full"] is False
            view = merge(view, patch)
            recv_until(ws, "ack")
        full = client.get(f"/api/matches/{m['id']}", params={"board": board}).json()
        assert ("board_svg" in full) is board and ("board_svg" in view) is board
        strip = ("full", "base", "drop", "log_from")
        assert {k: v for k, v in view.items() if k not in strip} == {k: v for k, v in full.items() if k not in strip}


def test_finished_match_leaves_memory_when_nobody_watches(client: TestClient) -> None:
    m = create_toy(client)
    tokens = [s["token"] for s in m["seats"]]
    rooms = client.app.state.rooms  # type: ignore[attr-defined]
    with client.websocket_connect(f"/api/matches/{m['id']}/ws") as ws:
        view = ws.receive_json()
        for move in "abcdef":
            token = tokens[view["current_player"]]
            ws.send_json({"type": "act", "token": token, "version": view["version"], "action": move})
            recv_until(ws, "ack")
            view = client.get(f"/api/matches/{m['id']}").json()
        assert view["terminal"] and rooms.is_loaded(m["id"])
    deadline = 50
    while rooms.is_loaded(m["id"]) and deadline:
        deadline -= 1
        client.get("/api/agents")  # let the server notice the disconnect
    assert not rooms.is_loaded(m["id"])
    again = client.get(f"/api/matches/{m['id']}").json()  # reloaded from the database
    assert again["terminal"] and [e["action"] for e in again["log"]] == list("abcdef")


def create_terranova(client: TestClient) -> dict[str, Any]:
    seats = [{"name": "A", "agent": "human"}, {"name": "B", "agent": "human"}]
    r = client.post("/api/matches", json={"game": "terranova", "seats": seats, "start_player": 0, "seed": 1})
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def test_refused_move_carries_the_engines_coded_reason(client: TestClient) -> None:
    m = create_terranova(client)
    token = m["seats"][0]["token"]
    with client.websocket_connect(f"/api/matches/{m['id']}/ws") as ws:
        view = ws.receive_json()
        taken = view["legal"]["place"][0]
        ws.send_json({"type": "act", "req": 1, "token": token, "version": 0, "action": taken})
        recv_until(ws, "ack")
        ws.send_json({"type": "act", "req": 2, "token": m["seats"][1]["token"], "version": 1, "action": taken})
        err = recv_until(ws, "error")
        assert err["error"] == "illegal_move"
        assert err["message"] == {
            "code": "terranova.occupied",
            "params": {"cell": taken},
            "text": f"{taken} is occupied",
        }
        ws.send_json({"type": "act", "req": 3, "token": m["seats"][1]["token"], "version": 1, "action": "a1b"})
        assert recv_until(ws, "error")["message"]["code"] == "terranova.bad_cell_name"


def test_explain_says_why_without_changing_anything(client: TestClient) -> None:
    m = create_terranova(client)
    with client.websocket_connect(f"/api/matches/{m['id']}/ws") as ws:
        view = ws.receive_json()
        ws.send_json({"type": "explain", "req": 7, "action": "#" + view["legal"]["place"][0]})
        answer = recv_until(ws, "explained")
        assert answer["req"] == 7 and answer["message"]["code"] == "terranova.no_stone_in_setup"
        ws.send_json({"type": "explain", "req": 8, "action": view["legal"]["place"][0]})
        assert recv_until(ws, "explained") == {"type": "explained", "req": 8, "message": None}
        ws.send_json({"type": "explain", "req": 9})
        assert recv_until(ws, "error")["error"] == "bad_message"
    assert client.get(f"/api/matches/{m['id']}").json()["version"] == 0


def test_finished_match_view_has_the_score_sheet(client: TestClient) -> None:
    m = create_toy(client)
    with client.websocket_connect(f"/api/matches/{m['id']}/ws") as ws:
        assert ws.receive_json()["score_sheet"] is None
