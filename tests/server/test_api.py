"""Every HTTP endpoint, including wrong tokens, stale versions, unknown matches and bad bodies."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from fastapi.testclient import TestClient

from tabletop.server.app import create_app
from tabletop.server.config import Settings

from .conftest import create_toy


def act(client: TestClient, match: str, token: str, version: int, action: str) -> Any:
    return client.post(f"/api/matches/{match}/actions", json={"token": token, "version": version, "action": action})


def test_games_lists_registered_games(client: TestClient) -> None:
    games = {g["id"]: g for g in client.get("/api/games").json()}
    assert games["toy"]["min_players"] == 2
    assert "default" in games["toy"]["rulesets"]
    assert games["toy"]["seat_colors"] == {"2": ["red", "blue"], "3": ["red", "blue", "green"]}


def test_agents_include_human_and_random(client: TestClient) -> None:
    agents = client.get("/api/agents").json()["agents"]
    assert {"human", "random"} <= set(agents)


def test_create_gives_tokens_links_and_view(client: TestClient) -> None:
    m = create_toy(client)
    assert [s["seat"] for s in m["seats"]] == [0, 1]
    assert all(s["token"] and s["link"].endswith(s["token"]) for s in m["seats"])
    assert m["hotseat_link"].count(",") == 1
    view = client.get(f"/api/matches/{m['id']}").json()
    assert view["version"] == 0 and view["current_player"] == 0
    assert view["colors"] == ["red", "blue"]
    assert view["legal"] == {"claim": list("abcdef")}


def test_create_rejects_bad_configs(client: TestClient) -> None:
    assert client.post("/api/matches", json={"game": "nope", "seats": [{"name": "a"}]}).status_code == 404
    r = client.post("/api/matches", json={"game": "toy", "seats": [{"name": "a"}]})
    assert r.status_code == 422 and r.json()["error"] == "bad_config"
    seats = [{"name": "a"}, {"name": "b", "agent": "nobot"}]
    r = client.post("/api/matches", json={"game": "toy", "seats": seats})
    assert r.status_code == 422 and r.json()["error"] == "bad_agent"
    r = client.post("/api/matches", json={"game": "toy", "seats": [{"name": "a"}, {"name": "b"}], "ruleset": "x"})
    assert r.status_code == 422


def test_malformed_bodies_are_4xx(client: TestClient) -> None:
    r = client.post("/api/matches", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["error"] == "bad_json"
    assert client.post("/api/matches", json={"game": "toy"}).status_code == 422
    assert client.post("/api/matches", json={"game": "toy", "seats": [], "x": 1}).status_code == 422
    m = create_toy(client)
    url = f"/api/matches/{m['id']}/actions"
    assert client.post(url, json={"token": "t", "version": "x", "action": "a"}).status_code == 422
    assert client.post(url, json={"token": "t", "version": 0}).status_code == 422
    assert client.post(url, json=[1, 2]).status_code == 422


def test_action_commits_and_bumps_version(client: TestClient) -> None:
    m = create_toy(client)
    tok = m["seats"][0]["token"]
    r = act(client, m["id"], tok, 0, "c")
    assert r.status_code == 200, r.text
    view = r.json()
    assert view["version"] == 1 and view["log"] == [{"ply": 0, "seat": 0, "action": "c", "turn": 0}]
    assert view["undoable_by"] == 0


def test_wrong_token_and_other_seat_are_refused(client: TestClient) -> None:
    m = create_toy(client)
    r = act(client, m["id"], "forged", 0, "a")
    assert r.status_code == 403 and r.json()["error"] == "bad_token"
    r = act(client, m["id"], m["seats"][1]["token"], 0, "a")
    assert r.status_code == 403 and r.json()["error"] == "not_your_turn"
    assert client.get(f"/api/matches/{m['id']}").json()["version"] == 0


def test_stale_version_is_refused(client: TestClient) -> None:
    m = create_toy(client)
    tok = m["seats"][0]["token"]
    assert act(client, m["id"], tok, 0, "a").status_code == 200
    r = act(client, m["id"], tok, 0, "b")
    assert r.status_code == 409 and r.json()["error"] == "stale_version"


def test_invalid_and_illegal_moves_are_422_and_change_nothing(client: TestClient) -> None:
    m = create_toy(client)
    tok = m["seats"][0]["token"]
    r = act(client, m["id"], tok, 0, "zz")
    assert r.status_code == 422 and r.json()["error"] == "invalid_move"
    act(client, m["id"], tok, 0, "a")
    r = act(client, m["id"], tok, 1, "a")
    assert r.status_code == 422 and r.json()["error"] == "illegal_move"
    assert client.get(f"/api/matches/{m['id']}").json()["version"] == 1


def test_unknown_match_is_404_everywhere(client: TestClient) -> None:
    for path in ("", "/record", "/replay", "/svg"):
        r = client.get(f"/api/matches/nosuch{path}")
        assert r.status_code == 404 and r.json()["error"] == "unknown_match"
    assert act(client, "nosuch", "t", 0, "a").status_code == 404
    assert client.post("/api/matches/nosuch/undo", json={"token": "t", "version": 0}).status_code == 404


def test_undo_only_own_action_within_own_turn(client: TestClient) -> None:
    m = create_toy(client)
    t0, t1 = m["seats"][0]["token"], m["seats"][1]["token"]
    act(client, m["id"], t0, 0, "a")
    r = client.post(f"/api/matches/{m['id']}/undo", json={"token": t1, "version": 1})
    assert r.status_code == 409 and r.json()["error"] == "cannot_undo"
    r = client.post(f"/api/matches/{m['id']}/undo", json={"token": t0, "version": 0})
    assert r.status_code == 409 and r.json()["error"] == "stale_version"
    r = client.post(f"/api/matches/{m['id']}/undo", json={"token": t0, "version": 1})
    assert r.status_code == 200 and r.json()["ply"] == 0 and r.json()["version"] == 2
    act(client, m["id"], t0, 2, "a")
    act(client, m["id"], t0, 3, "b")  # ends seat 0's turn
    r = client.post(f"/api/matches/{m['id']}/undo", json={"token": t0, "version": 4})
    assert r.status_code == 409  # the turn has passed
    assert client.post(f"/api/matches/{m['id']}/undo", json={"token": "x", "version": 4}).status_code == 403


def test_seat_lookup(client: TestClient) -> None:
    m = create_toy(client)
    assert client.post(f"/api/matches/{m['id']}/seat", json={"token": m["seats"][1]["token"]}).json() == {"seat": 1}
    assert client.post(f"/api/matches/{m['id']}/seat", json={"token": "nope"}).status_code == 403


def play_out(client: TestClient, m: dict[str, Any]) -> dict[str, Any]:
    tokens = [s["token"] for s in m["seats"]]
    view: dict[str, Any] = client.get(f"/api/matches/{m['id']}").json()
    for _ in range(20):
        if view["terminal"]:
            break
        p = view["current_player"]
        view = act(client, m["id"], tokens[p], view["version"], view["legal"]["claim"][0]).json()
    return view


def test_record_and_replay_roundtrip(client: TestClient) -> None:
    m = create_toy(client)
    final = play_out(client, m)
    assert final["terminal"] and final["outcome"]["scores"] == [4, 2]
    r = client.get(f"/api/matches/{m['id']}/record")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    record = r.json()
    assert record["format"] == "tabletop-record" and record["actions"] == list("abcdef")
    assert record["result"]["scores"] == [4, 2]
    steps = client.get(f"/api/matches/{m['id']}/replay").json()["steps"]
    assert len(steps) == 7 and steps[-1]["scores"] == [4, 2]
    uploaded = client.post("/api/replay", json=record)
    assert uploaded.status_code == 200 and len(uploaded.json()["steps"]) == 7
    record["actions"][2] = "a"
    bad = client.post("/api/replay", json=record)
    assert bad.status_code == 422 and bad.json()["error"] == "bad_record"
    assert client.post("/api/replay", json={"format": "x"}).status_code == 422


def test_finished_game_refuses_actions(client: TestClient) -> None:
    m = create_toy(client)
    final = play_out(client, m)
    r = act(client, m["id"], m["seats"][0]["token"], final["version"], "a")
    assert r.status_code == 409 and r.json()["error"] == "game_over"


def test_svg_endpoint(client: TestClient) -> None:
    m = create_toy(client)
    r = client.get(f"/api/matches/{m['id']}/svg")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")


def test_bot_plays_its_turns(client: TestClient) -> None:
    m = create_toy(client, ("human", "random"))
    tok = m["seats"][0]["token"]
    act(client, m["id"], tok, 0, "a")
    act(client, m["id"], tok, 1, "b")
    deadline = time.monotonic() + 5
    view = client.get(f"/api/matches/{m['id']}").json()
    while view["current_player"] != 0 and time.monotonic() < deadline:
        time.sleep(0.02)
        view = client.get(f"/api/matches/{m['id']}").json()
    assert view["ply"] == 4 and [e["seat"] for e in view["log"]] == [0, 0, 1, 1]


def test_pages_and_static_are_served(client: TestClient) -> None:
    assert client.get("/").status_code == 200
    assert client.get("/play/abc").status_code == 200
    assert client.get("/static/index.html").status_code == 200


def test_map_check_uses_the_loader_words(client: TestClient) -> None:
    r = client.post("/api/games/terranova/maps/check", json={"id": "x", "cells": "nonsense"})
    assert r.status_code == 200 and r.json()["ok"] is False and r.json()["detail"]
    good = client.get("/api/games").json()
    assert any(g["id"] == "terranova" for g in good)
    assert client.post("/api/games/nosuch/maps/check", json={}).json()["error"] == "unknown_game"


def test_record_text_upload_gets_the_command_lines_words(client: TestClient) -> None:
    from tabletop.core.errors import RecordError
    from tabletop.core.record import GameRecord

    r = client.post("/api/replay/text", json={"text": "{not json"})
    assert r.status_code == 422 and r.json()["error"] == "bad_record"
    try:
        GameRecord.loads("{not json")
    except RecordError as exc:
        assert r.json()["detail"] == str(exc)


def test_health_answers_ok_outside_the_request_budget(settings: Settings) -> None:
    tight = dataclasses.replace(settings, requests_per_minute=2)
    with TestClient(create_app(tight)) as client:
        for _ in range(5):  # more than the budget: a proxy's checks are never refused
            r = client.get("/health")
            assert r.status_code == 200 and r.json()["status"] == "ok" and r.json()["leader"] is True
        assert client.head("/health").status_code == 200
