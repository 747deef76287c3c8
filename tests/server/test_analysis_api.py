"""``POST /api/matches/{id}/hint``, ``POST /api/matches/{id}/analysis`` and ``POST /api/analysis``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tabletop.core.errors import ConfigError
from tabletop.server.app import create_app
from tabletop.server.config import Settings
from tests.native import needs_native

from .conftest import create_toy


def hint(client: TestClient, match: str, token: str, **body: Any) -> Any:
    return client.post(f"/api/matches/{match}/hint", json={"token": token, **body})


def finish(client: TestClient, m: dict[str, Any]) -> None:
    """Plays the toy match to its end: each seat claims two cells a turn."""
    tokens = [s["token"] for s in m["seats"]]
    for version, cell in enumerate("abcdef"):
        seat = (version // 2) % 2
        r = client.post(
            f"/api/matches/{m['id']}/actions", json={"token": tokens[seat], "version": version, "action": cell}
        )
        assert r.status_code == 200, r.text


def test_hint_suggests_a_legal_turn_for_the_acting_seat(client: TestClient) -> None:
    m = create_toy(client)
    r = hint(client, m["id"], m["seats"][0]["token"], level="greedy", version=0)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["version"] == 0 and body["seat"] == 0 and body["level"] == "greedy"
    assert body["move"] == body["actions"][0] and len(body["actions"]) == 2  # a toy turn: two claims
    legal = client.get(f"/api/matches/{m['id']}").json()["legal"]["claim"]
    assert body["move"] in legal
    assert body["value"] >= body["current"]


def test_hint_refuses_other_seats_bad_tokens_stale_versions_and_bad_levels(client: TestClient) -> None:
    m = create_toy(client)
    ann, bob = (s["token"] for s in m["seats"])
    cases = [
        (hint(client, m["id"], "nobody"), 403, "bad_token"),
        (hint(client, m["id"], bob), 403, "not_your_turn"),
        (hint(client, m["id"], ann, version=3), 409, "stale_version"),
        (hint(client, m["id"], ann, level="alphazero"), 422, "bad_level"),
        (hint(client, m["id"], ann, level="human"), 422, "bad_level"),
        (hint(client, "no-such-match", ann), 404, "unknown_match"),
    ]
    for response, status, code in cases:
        assert response.status_code == status, response.text
        assert response.json()["error"] == code
    r = client.post(f"/api/matches/{m['id']}/hint", json={"token": ann, "level": "greedy", "extra": 1})
    assert r.status_code == 422 and set(r.json()) == {"error", "detail"}
    r = client.post(f"/api/matches/{m['id']}/hint", json={"token": ann, "level": "x" * 41})
    assert r.status_code == 422


def test_hint_refuses_a_finished_game(client: TestClient) -> None:
    m = create_toy(client)
    finish(client, m)
    r = hint(client, m["id"], m["seats"][0]["token"])
    assert r.status_code == 409 and r.json()["error"] == "game_over"


def test_hints_are_off_in_rated_matches(client: TestClient) -> None:
    m = create_toy(client)
    client.get(f"/api/matches/{m['id']}")  # loads the room
    room: Any = client.app.state.rooms._rooms[m["id"]]  # type: ignore[attr-defined]
    room.rated = True  # what the accounts feature sets on a rated match
    r = hint(client, m["id"], m["seats"][0]["token"])
    assert r.status_code == 403 and r.json() == {"error": "hints_off", "detail": "hints are off in rated games"}


@pytest.fixture
def tight(db_url: str) -> Iterator[TestClient]:
    settings = Settings(db_url=db_url, bot_executor="thread", hints_per_minute=2, analyses_per_minute=1)
    with TestClient(create_app(settings)) as c:
        yield c


def test_hints_per_client_are_capped(tight: TestClient) -> None:
    m = create_toy(tight)
    token = m["seats"][0]["token"]
    assert [hint(tight, m["id"], token).status_code for _ in range(2)] == [200, 200]
    r = hint(tight, m["id"], token)
    assert r.status_code == 429 and r.json()["error"] == "too_many_hints"
    assert int(r.headers["Retry-After"]) >= 1


def test_analysis_needs_a_finished_game_and_is_cached(tight: TestClient) -> None:
    m = create_toy(tight)
    url = f"/api/matches/{m['id']}/analysis"
    r = tight.post(url, json={"level": "greedy"})
    assert r.status_code == 409 and r.json()["error"] == "not_finished"
    finish(tight, m)
    first = tight.post(url, json={"level": "greedy"})
    assert first.status_code == 200, first.text
    data = first.json()
    assert data["game"] == "toy" and data["actions"] == 6 and data["players"] == ["P0", "P1"]
    assert [t["ply"] for t in data["turns"]] == [0, 2, 4]
    assert [s["turns"] for s in data["seats"]] == [2, 1]
    # Asked again: the cached answer, which does not count against the one analysis a minute.
    assert tight.post(url, json={"level": "greedy"}).json() == data
    r = tight.post(url, json={"level": "mcts:1"})
    assert r.status_code == 429 and r.json()["error"] == "too_many_analyses"
    assert tight.post("/api/matches/nope/analysis", json={}).status_code == 404
    assert tight.post(url, json={"level": "nobot"}).json()["error"] == "bad_level"


def test_uploaded_records_are_analysed_and_bad_ones_refused(client: TestClient) -> None:
    m = create_toy(client)
    finish(client, m)
    record = client.get(f"/api/matches/{m['id']}/record").json()
    r = client.post("/api/analysis", json={"record": record, "level": "greedy"})
    assert r.status_code == 200, r.text
    assert r.json()["actions"] == 6
    record["actions"][1] = "a"  # claimed already
    r = client.post("/api/analysis", json={"record": record})
    assert r.status_code == 422 and r.json()["error"] == "bad_record"
    r = client.post("/api/analysis", json={"record": {"format": "nope"}})
    assert r.status_code == 422 and r.json()["error"] == "bad_record"
    assert client.post("/api/analysis", json={"level": "greedy"}).status_code == 422


@pytest.mark.parametrize(
    "overrides",
    [
        {"hint_time_per_action_s": 0},
        {"analysis_budget_s": float("inf")},
        {"analysis_workers": 0},
        {"hints_per_minute": 0},
    ],
)
def test_analysis_settings_are_checked(overrides: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        Settings(**overrides)


def test_analysis_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLETOP_ANALYSES_PER_MINUTE", "3")
    monkeypatch.setenv("TABLETOP_ANALYSIS_BUDGET_S", "12.5")
    settings = Settings.from_env()
    assert settings.analyses_per_minute == 3 and settings.analysis_budget_s == 12.5
    monkeypatch.setenv("TABLETOP_HINT_TIME_PER_ACTION_S", "soon")
    with pytest.raises(ConfigError, match="TABLETOP_HINT_TIME_PER_ACTION_S"):
        Settings.from_env()


def test_hint_serves_the_logged_in_owner_of_a_bound_seat(client: TestClient) -> None:
    """A seat bound to an account: its owner's session gets hints, as it gets moves; the link alone does not."""
    from .accounts_helpers import create_toy_match, register

    owner = register(client)
    m = create_toy_match(client, owner, rated=False)
    token = m["seats"][0]["token"]
    r = owner.post(f"/api/matches/{m['id']}/hint", {"token": token, "level": "greedy", "version": 0})
    assert r.status_code == 200, r.text
    assert r.json()["seat"] == 0
    stranger = client.post(f"/api/matches/{m['id']}/hint", json={"token": token, "level": "greedy"})
    assert stranger.status_code == 403 and stranger.json()["error"] == "seat_bound"


@needs_native("terranova", "medina")
@pytest.mark.parametrize(("game", "players"), [("terranova", 2), ("medina", 3)])
def test_grandmaster_hints_where_it_learned(client: TestClient, game: str, players: int) -> None:
    """The learned level answers hints where it plays what it learned (Terra Nova 2p: the
    learned evaluation; Medina 3p: the network), as any level does."""
    seats = [{"name": f"P{i}", "agent": "human"} for i in range(players)]
    r = client.post("/api/matches", json={"game": game, "seats": seats, "start_player": 0, "seed": 5})
    assert r.status_code == 201, r.text
    m = r.json()
    answer = hint(client, m["id"], m["seats"][0]["token"], level="grandmaster", version=0)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["level"] == "grandmaster" and body["seat"] == 0
    legal = [move for moves in client.get(f"/api/matches/{m['id']}").json()["legal"].values() for move in moves]
    assert body["move"] in legal
