"""The lobby, clocks, takeover, resign/abort/rematch and chat through the HTTP API.

Time is a fake clock the tests move (``FakeClock``); the clock keeper's own loop is
slowed to a minute, and each test asks it to look (``check``), so nothing sleeps.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tabletop.server import duties
from tabletop.server.app import create_app
from tabletop.server.config import Settings
from tabletop.server.lobby import START_STALL_S, Lobby
from tabletop.server.rooms import RoomManager
from tabletop.server.tables import Tables

HOUR = 3600


class FakeClock:
    """A time source that moves only when told (seconds since the epoch)."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def lobby_settings(db_url: str, clock: FakeClock) -> Settings:
    return Settings(
        db_url=db_url,
        bot_executor="thread",
        bot_workers=1,
        bot_time_budget_s=5.0,
        clock=clock,
        clock_poll_s=60,
        chat_messages_per_minute=3,
    )


@pytest.fixture
def app_client(lobby_settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(lobby_settings)) as c:
        yield c


def tables_of(client: TestClient) -> Tables:
    tables: Tables = client.app.state.tables  # type: ignore[attr-defined]
    return tables


def check(client: TestClient) -> int:
    """Runs the clock keeper once, then waits for the lobby's writes."""
    tables = tables_of(client)
    taken: int = client.portal.call(tables.check_clocks)  # type: ignore[union-attr]
    client.portal.call(tables.settle)  # type: ignore[union-attr]
    return taken


def open_game(client: TestClient, seats: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    body = {"game": "toy", "seats": seats or [{"kind": "me", "name": "Ann"}, {"kind": "open"}], "start_player": 0}
    r = client.post("/api/lobby", json={**body, **extra})
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def two_player_match(client: TestClient, **extra: Any) -> tuple[str, str, str]:
    """A started lobby match of Ann (seat 0, to move) and Bob: (id, Ann's token, Bob's token)."""
    created = open_game(client, **extra)
    joined = client.post(f"/api/lobby/{created['id']}/join", json={"name": "Bob"})
    assert joined.status_code == 200, joined.text
    return created["id"], created["token"], joined.json()["token"]


def act(client: TestClient, match_id: str, token: str, action: str) -> dict[str, Any]:
    version = client.get(f"/api/matches/{match_id}").json()["version"]
    r = client.post(f"/api/matches/{match_id}/actions", json={"token": token, "version": version, "action": action})
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def listed(client: TestClient, state: str = "open") -> list[str]:
    """Every listed game id (all pages: on PostgreSQL the tests share one database)."""
    ids: list[str] = []
    while True:
        page = client.get("/api/lobby", params={"state": state, "offset": len(ids), "limit": 50}).json()
        ids += [g["id"] for g in page["games"]]
        if not page["games"] or len(ids) >= page["total"]:
            return ids


def table(client: TestClient, match_id: str) -> dict[str, Any]:
    client.portal.call(tables_of(client).settle)  # type: ignore[union-attr]
    r = client.get(f"/api/matches/{match_id}/table")
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


# ----- lobby ------------------------------------------------------------------------


def test_create_lists_then_join_starts_the_match(app_client: TestClient) -> None:
    created = open_game(app_client)
    assert created["seat"] == 0 and created["game"]["status"] == "open"
    assert created["id"] in listed(app_client)
    shown = app_client.get(f"/api/lobby/{created['id']}").text
    assert "token_hash" not in shown and created["token"] not in shown
    r = app_client.get(f"/api/matches/{created['id']}")
    assert r.status_code == 404  # no match before the seats are full

    joined = app_client.post(f"/api/lobby/{created['id']}/join", json={"name": "Bob"}).json()
    assert joined["seat"] == 1 and joined["play_link"] == f"/play/{created['id']}#t={joined['token']}"
    assert app_client.get(f"/api/lobby/{created['id']}").json()["match"] == created["id"]
    assert created["id"] not in listed(app_client)
    view = act(app_client, created["id"], created["token"], "a")
    assert [p["name"] for p in view["players"]] == ["Ann", "Bob"]
    # Bob's token acts for Bob only.
    r = app_client.post(
        f"/api/matches/{created['id']}/actions", json={"token": joined["token"], "version": 1, "action": "b"}
    )
    assert r.status_code == 403 and r.json()["error"] == "not_your_turn"


def test_join_refuses_taken_seats_unknown_games_and_bad_names(app_client: TestClient) -> None:
    created = open_game(app_client, seats=[{"kind": "me", "name": "Ann"}, {"kind": "open"}, {"kind": "open"}])
    gid = created["id"]
    assert app_client.post(f"/api/lobby/{gid}/join", json={"name": "Bob", "seat": 0}).json()["error"] == "seat_taken"
    assert app_client.post(f"/api/lobby/{gid}/join", json={"name": "Bob", "seat": 7}).status_code == 409
    assert app_client.post(f"/api/lobby/{gid}/join", json={"name": "Bob", "seat": -1}).status_code == 422
    assert app_client.post(f"/api/lobby/{gid}/join", json={"name": "   "}).json()["error"] == "bad_name"
    assert app_client.post(f"/api/lobby/{gid}/join", json={"name": "x" * 81}).status_code == 422
    assert app_client.post(f"/api/lobby/{gid}/join", json={"name": "B", "token": "t"}).status_code == 422
    assert app_client.post("/api/lobby/nope/join", json={"name": "Bob"}).status_code == 404
    assert app_client.post(f"/api/lobby/{gid}/join", json={"name": "Bob", "seat": 2}).status_code == 200
    assert app_client.post(f"/api/lobby/{gid}/join", json={"name": "Cy"}).status_code == 200  # seat 1, the last
    r = app_client.post(f"/api/lobby/{gid}/join", json={"name": "Dee"})
    assert r.status_code == 404  # started: a match now, no longer a lobby game to join


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"game": "nope", "seats": [{"kind": "me", "name": "A"}, {"kind": "open"}]}, 404, "unknown_game"),
        ({"game": "toy", "seats": [{"kind": "open"}, {"kind": "open"}]}, 422, "bad_seats"),
        ({"game": "toy", "seats": [{"kind": "me", "name": "A"}, {"kind": "me", "name": "B"}]}, 422, "bad_seats"),
        ({"game": "toy", "seats": [{"kind": "me", "name": "A"}]}, 422, "bad_seats"),
        ({"game": "toy", "seats": [{"kind": "me", "name": " "}, {"kind": "open"}]}, 422, "bad_name"),
        ({"game": "toy", "seats": [{"kind": "me", "name": "A"}, {"kind": "bot", "agent": "human"}]}, 422, "bad_agent"),
        ({"game": "toy", "seats": [{"kind": "me", "name": "A"}, {"kind": "bot", "agent": "nope:3"}]}, 422, "bad_agent"),
        ({"takeover": "nope"}, 422, "bad_agent"),
        ({"grace_s": 1}, 422, "bad_grace"),
        ({"clock": {"kind": "turn", "per_move_s": 60}}, 422, "bad_clock"),
        ({"clock": {"kind": "turn", "per_move_s": 400 * 86400}}, 422, "bad_clock"),
        ({"clock": {"kind": "realtime", "base_s": 5}}, 422, "bad_clock"),
        ({"clock": {"kind": "realtime", "base_s": 600, "increment_s": 10**6}}, 422, "bad_clock"),
        ({"clock": {"kind": "blitz", "base_s": 600}}, 422, "bad_request"),
        ({"clock": {"kind": "realtime", "base_s": -1}}, 422, "bad_request"),
        ({"ruleset": "nope"}, 422, "bad_config"),
        ({"owner": "me"}, 422, "bad_request"),
    ],
)
def test_create_refuses_bad_input(app_client: TestClient, body: dict[str, Any], status: int, code: str) -> None:
    before = app_client.get("/api/lobby").json()["total"]
    full = {"game": "toy", "seats": [{"kind": "me", "name": "A"}, {"kind": "open"}], **body}
    r = app_client.post("/api/lobby", json=full)
    assert r.status_code == status, r.text
    assert r.json()["error"] == code
    assert app_client.get("/api/lobby").json()["total"] == before


def test_only_the_creator_starts_with_bots_or_cancels(app_client: TestClient) -> None:
    created = open_game(app_client, seats=[{"kind": "me", "name": "Ann"}, {"kind": "open"}, {"kind": "open"}])
    gid = created["id"]
    bob = app_client.post(f"/api/lobby/{gid}/join", json={"name": "Bob"}).json()
    for token in (bob["token"], "forged", "x" * 200):
        r = app_client.post(f"/api/lobby/{gid}/start", json={"token": token})
        assert r.status_code == 403 and r.json()["error"] == "not_creator"
        assert app_client.post(f"/api/lobby/{gid}/cancel", json={"token": token}).status_code == 403
    assert app_client.post(f"/api/lobby/{gid}/start", json={"token": "x" * 201}).status_code == 422
    r = app_client.post(f"/api/lobby/{gid}/start", json={"token": created["token"], "agent": "nope"})
    assert r.json()["error"] == "bad_agent"
    r = app_client.post(f"/api/lobby/{gid}/start", json={"token": created["token"], "agent": "random"})
    assert r.status_code == 200 and r.json()["status"] == "started"
    players = app_client.get(f"/api/matches/{gid}").json()["players"]
    assert [p["agent"] for p in players] == ["human", "human", "random"]
    assert app_client.post(f"/api/lobby/{gid}/start", json={"token": created["token"]}).status_code == 404

    other = open_game(app_client)
    assert app_client.post(f"/api/lobby/{other['id']}/cancel", json={"token": other["token"]}).status_code == 200
    assert other["id"] not in listed(app_client)


def test_open_games_per_address_are_capped(app_client: TestClient) -> None:
    cap = app_client.app.state.settings.open_games_per_client  # type: ignore[attr-defined]
    games = [open_game(app_client) for _ in range(cap)]
    body = {"game": "toy", "seats": [{"kind": "me", "name": "A"}, {"kind": "open"}]}
    r = app_client.post("/api/lobby", json=body)
    assert r.status_code == 429 and r.json()["error"] == "too_many_open_games"
    app_client.post(f"/api/lobby/{games[0]['id']}/cancel", json={"token": games[0]["token"]})
    assert app_client.post("/api/lobby", json=body).status_code == 201


def test_listing_pages_filters_and_hides_link_only_games(app_client: TestClient) -> None:
    before = app_client.get("/api/lobby").json()["total"]
    ids = [open_game(app_client)["id"] for _ in range(3)]
    hidden = open_game(app_client, public=False)["id"]
    page = app_client.get("/api/lobby", params={"limit": 2}).json()
    assert page["total"] == before + 3 and [g["id"] for g in page["games"]] == ids[::-1][:2]  # newest first
    rest = app_client.get("/api/lobby", params={"limit": 2, "offset": 2}).json()
    assert rest["games"][0]["id"] == ids[0]
    assert set(ids) <= set(listed(app_client)) and hidden not in listed(app_client)
    assert not set(ids) & {g["id"] for g in app_client.get("/api/lobby", params={"game": "medina"}).json()["games"]}
    assert app_client.get("/api/lobby", params={"limit": 10**6}).status_code == 422
    assert app_client.get("/api/lobby", params={"offset": -1}).status_code == 422
    assert app_client.get("/api/lobby", params={"state": "secret"}).status_code == 422
    big = app_client.get("/api/lobby", params={"limit": 1000}).json()
    assert big["limit"] == app_client.app.state.settings.lobby_page_size  # type: ignore[attr-defined]


def test_games_in_progress_are_listed_for_spectators(app_client: TestClient) -> None:
    public, _, _ = two_player_match(app_client)
    hidden, _, _ = two_player_match(app_client, public=False)
    ids = listed(app_client, "playing")
    assert public in ids and hidden not in ids
    newest = app_client.get("/api/lobby", params={"state": "playing", "limit": 1}).json()["games"][0]
    assert newest["id"] == public and [p["name"] for p in newest["players"]] == ["Ann", "Bob"]


# ----- clocks -------------------------------------------------------------------------


def test_realtime_clock_charges_the_mover_and_adds_the_increment(app_client: TestClient, clock: FakeClock) -> None:
    match_id, ann, _bob = two_player_match(app_client, clock={"kind": "realtime", "base_s": 60, "increment_s": 5})
    t = table(app_client, match_id)
    assert t["clock"]["running"] == 0 and t["clock"]["remaining_ms"] == [60_000, 60_000]
    clock.advance(10)
    assert table(app_client, match_id)["clock"]["remaining_ms"] == [50_000, 60_000]
    act(app_client, match_id, ann, "a")
    clock.advance(2)
    act(app_client, match_id, ann, "b")  # the end of Ann's turn: Bob's clock runs
    t = table(app_client, match_id)
    assert t["clock"]["running"] == 1 and t["clock"]["remaining_ms"] == [48_000 + 5_000, 60_000]
    clock.advance(7)
    assert table(app_client, match_id)["clock"]["remaining_ms"] == [53_000, 53_000]
    assert t["server_now_ms"] == t["clock"]["server_now_ms"]


def test_turn_based_timeout_hands_the_seat_to_the_bot_and_the_person_takes_it_back(
    app_client: TestClient, clock: FakeClock
) -> None:
    match_id, ann, bob = two_player_match(
        app_client, clock={"kind": "turn", "per_move_s": 2 * HOUR}, takeover="random", grace_s=30
    )
    act(app_client, match_id, ann, "a")
    act(app_client, match_id, ann, "b")
    clock.advance(2 * HOUR - 1)
    check(app_client)
    assert table(app_client, match_id)["seats"][1]["status"] == "playing"
    clock.advance(1)
    assert check(app_client) >= 1  # other tests' matches too, on a shared PostgreSQL
    t = table(app_client, match_id)
    assert t["seats"][1]["status"] == "timeout"
    # The bot plays Bob's turn (two claims); Ann is to move again.
    for _ in range(100):
        view = app_client.get(f"/api/matches/{match_id}").json()
        if view["current_player"] == 0:
            break
        app_client.portal.call(tables_of(app_client).settle)  # type: ignore[union-attr]
    assert view["current_player"] == 0 and view["players"][1]["agent"] == "random"
    # Someone else cannot take Bob's seat back; Ann's seat was never taken over.
    assert app_client.post(f"/api/matches/{match_id}/reclaim", json={"token": "forged"}).status_code == 403
    r = app_client.post(f"/api/matches/{match_id}/reclaim", json={"token": ann})
    assert r.status_code == 409 and r.json()["error"] == "not_taken_over"
    r = app_client.post(f"/api/matches/{match_id}/reclaim", json={"token": bob})
    assert r.status_code == 200 and r.json()["seats"][1]["status"] == "playing"
    assert app_client.get(f"/api/matches/{match_id}").json()["players"][1]["agent"] == "human"
    t = table(app_client, match_id)
    assert t["clock"]["running"] == 0 and t["clock"]["remaining_ms"][1] == 2 * HOUR * 1000


def test_a_dropped_realtime_seat_is_taken_over_after_the_grace_period(app_client: TestClient, clock: FakeClock) -> None:
    match_id, ann, _bob = two_player_match(
        app_client, clock={"kind": "realtime", "base_s": 600}, takeover="random", grace_s=30
    )
    with app_client.websocket_connect(f"/api/matches/{match_id}/ws") as ws:
        assert ws.receive_json()["type"] == "state"
        ws.send_json({"type": "hello", "req": 1, "token": "forged"})
        kinds = [ws.receive_json() for _ in range(3)]
        assert any(m.get("error") == "bad_token" for m in kinds)
        ws.send_json({"type": "hello", "req": 2, "token": ann})
        for _ in range(5):
            msg = ws.receive_json()
            if msg["type"] == "welcome":
                break
        assert msg == {"type": "welcome", "req": 2, "seat": 0}
    clock.advance(29)
    check(app_client)
    assert table(app_client, match_id)["seats"][0]["status"] == "playing"
    clock.advance(1)
    assert check(app_client) >= 1
    assert table(app_client, match_id)["seats"][0]["status"] == "dropped"
    # While the bot plays Ann's seat, her token does not move for it.
    version = app_client.get(f"/api/matches/{match_id}").json()["version"]
    r = app_client.post(f"/api/matches/{match_id}/actions", json={"token": ann, "version": version, "action": "f"})
    assert r.status_code == 409 and r.json()["error"] in ("bot_plays", "stale_version")
    # Bob never said hello on a socket: his clock alone decides.
    assert app_client.post(f"/api/matches/{match_id}/reclaim", json={"token": ann}).status_code == 200


def test_clocks_and_takeover_survive_a_restart(lobby_settings: Settings, clock: FakeClock) -> None:
    with TestClient(create_app(lobby_settings)) as client:
        match_id, ann, _bob = two_player_match(client, clock={"kind": "realtime", "base_s": 120, "increment_s": 3})
        clock.advance(20)
        act(client, match_id, ann, "a")
        act(client, match_id, ann, "b")
        clock.advance(15)
        before = table(client, match_id)["clock"]
    assert before["remaining_ms"] == [103_000, 105_000]
    clock.advance(100)  # the server is down; Bob's time runs out meanwhile
    with TestClient(create_app(lobby_settings)) as client:
        t = table(client, match_id)
        assert t["clock"]["remaining_ms"] == [103_000, 5_000]
        clock.advance(5)
        assert check(client) >= 1
        assert table(client, match_id)["seats"][1]["status"] == "timeout"


# ----- resign, abort, rematch -------------------------------------------------------------


def test_resign_ends_a_two_player_match_and_refuses_more_actions(app_client: TestClient) -> None:
    match_id, ann, bob = two_player_match(app_client, clock={"kind": "realtime", "base_s": 600})
    assert app_client.post(f"/api/matches/{match_id}/resign", json={"token": "forged"}).status_code == 403
    r = app_client.post(f"/api/matches/{match_id}/resign", json={"token": bob})
    assert r.status_code == 200
    assert r.json()["ended"]["reason"] == "resigned" and r.json()["ended"]["winners"] == [0]
    assert r.json()["clock"]["running"] is None
    r = app_client.post(f"/api/matches/{match_id}/actions", json={"token": ann, "version": 0, "action": "a"})
    assert r.status_code == 409 and r.json()["error"] == "game_over"
    assert app_client.post(f"/api/matches/{match_id}/resign", json={"token": ann}).status_code == 409
    assert app_client.get(f"/api/matches/{match_id}").json()["ended"]["reason"] == "resigned"
    assert match_id not in listed(app_client, "playing")


def test_abort_only_early_and_unrated(app_client: TestClient) -> None:
    match_id, _ann, bob = two_player_match(app_client, rated=True)
    assert table(app_client, match_id)["rated"] is True
    r = app_client.post(f"/api/matches/{match_id}/abort", json={"token": bob})
    assert r.status_code == 200 and r.json()["ended"]["reason"] == "aborted" and r.json()["rated"] is False

    late, ann2, bob2 = two_player_match(app_client)
    assert app_client.app.state.settings.abort_before_actions == 4  # type: ignore[attr-defined]
    for token, cell in ((ann2, "a"), (ann2, "b"), (bob2, "c")):
        act(app_client, late, token, cell)
    assert table(app_client, late)["abortable"] is True
    assert app_client.post(f"/api/matches/{late}/abort", json={"token": "forged"}).status_code == 403
    act(app_client, late, bob2, "d")
    assert table(app_client, late)["abortable"] is False
    r = app_client.post(f"/api/matches/{late}/abort", json={"token": ann2})
    assert r.status_code == 409 and r.json()["error"] == "too_late"


def test_rematch_rotates_seats_and_gives_each_person_a_new_token(app_client: TestClient) -> None:
    match_id, ann, bob = two_player_match(app_client, clock={"kind": "realtime", "base_s": 300, "increment_s": 2})
    r = app_client.post(f"/api/matches/{match_id}/rematch", json={"token": ann})
    assert r.status_code == 409 and r.json()["error"] == "not_over"
    app_client.post(f"/api/matches/{match_id}/resign", json={"token": ann})
    assert app_client.post(f"/api/matches/{match_id}/rematch", json={"token": "forged"}).status_code == 403
    ann_new = app_client.post(f"/api/matches/{match_id}/rematch", json={"token": ann}).json()
    assert ann_new["seat"] == 1 and ann_new["game"]["status"] == "open"
    assert ann_new["game"]["seats"][0]["state"] == "reserved" and ann_new["game"]["seats"][0]["name"] == "Bob"
    assert ann_new["game"]["clock"]["base_s"] == 300
    assert table(app_client, match_id)["rematch"] == ann_new["id"]
    # Nobody else can take Bob's kept seat through the lobby.
    assert app_client.post(f"/api/lobby/{ann_new['id']}/join", json={"name": "Eve"}).status_code == 409
    again = app_client.post(f"/api/matches/{match_id}/rematch", json={"token": ann})
    assert again.status_code == 409 and again.json()["error"] == "rematch_taken"
    bob_new = app_client.post(f"/api/matches/{match_id}/rematch", json={"token": bob}).json()
    assert bob_new["seat"] == 0 and bob_new["id"] == ann_new["id"]
    new_id = bob_new["id"]
    view = app_client.get(f"/api/matches/{new_id}").json()
    assert [p["name"] for p in view["players"]] == ["Bob", "Ann"]
    assert app_client.post(f"/api/matches/{new_id}/seat", json={"token": bob}).status_code == 403
    assert app_client.post(f"/api/matches/{new_id}/seat", json={"token": bob_new["token"]}).json()["seat"] == 0


# ----- chat ------------------------------------------------------------------------------


def test_chat_is_plain_text_length_limited_rate_limited_and_for_players(app_client: TestClient) -> None:
    match_id, ann, bob = two_player_match(app_client)
    url = f"/api/matches/{match_id}/chat"
    r = app_client.post(url, json={"token": ann, "text": "  <b>hi</b>\u0000\u202e there \n"})
    assert r.status_code == 201 and r.json()["text"] == "<b>hi</b> there" and r.json()["seat"] == 0
    assert app_client.post(url, json={"token": "forged", "text": "spam"}).status_code == 403
    assert app_client.post(url, json={"token": bob, "text": "\u0000\u200b\n "}).json()["error"] in (
        "empty_message",
        "message_too_long",
    )
    assert app_client.post(url, json={"token": bob, "text": "x" * 301}).json()["error"] == "message_too_long"
    assert app_client.post(url, json={"token": bob, "text": "x" * 3000}).status_code == 422
    assert app_client.post(url, json={"token": ann, "text": "two"}).status_code == 201
    assert app_client.post(url, json={"token": ann, "text": "three"}).status_code == 201
    r = app_client.post(url, json={"token": ann, "text": "four"})
    assert r.status_code == 429 and "Retry-After" in r.headers
    assert app_client.post(url, json={"token": bob, "text": "bob may"}).status_code == 201
    messages = app_client.get(url).json()["messages"]
    assert [m["text"] for m in messages] == ["<b>hi</b> there", "two", "three", "bob may"]
    assert app_client.get("/api/matches/nope/chat").status_code == 404


def test_chat_reaches_websockets(app_client: TestClient) -> None:
    match_id, ann, _ = two_player_match(app_client)
    app_client.post(f"/api/matches/{match_id}/chat", json={"token": ann, "text": "before"})
    with app_client.websocket_connect(f"/api/matches/{match_id}/ws") as ws:
        seen = [ws.receive_json() for _ in range(3)]
        assert [m["type"] for m in seen] == ["state", "table", "chat"]
        assert [m["text"] for m in seen[2]["messages"]] == ["before"]
        app_client.post(f"/api/matches/{match_id}/chat", json={"token": ann, "text": "live"})
        assert ws.receive_json()["messages"][0]["text"] == "live"


def test_table_endpoints_404_for_matches_not_from_the_lobby(app_client: TestClient) -> None:
    r = app_client.post("/api/matches", json={"game": "toy", "seats": [{"name": "a"}, {"name": "b"}]})
    match_id = r.json()["id"]
    token = r.json()["seats"][0]["token"]
    assert app_client.get(f"/api/matches/{match_id}/table").json()["error"] == "no_table"
    for path in ("resign", "abort", "reclaim", "rematch", "chat"):
        body = {"token": token, "text": "x"} if path == "chat" else {"token": token}
        assert app_client.post(f"/api/matches/{match_id}/{path}", json=body).status_code == 404


def test_a_bot_moving_first_hands_the_clock_to_the_person(app_client: TestClient, clock: FakeClock) -> None:
    seats = [{"kind": "bot", "agent": "random"}, {"kind": "me", "name": "Ann"}]
    created = open_game(app_client, seats=seats, clock={"kind": "realtime", "base_s": 300})
    assert created["game"]["status"] == "started"  # no open seat: it starts at once
    match_id = created["id"]
    for _ in range(200):
        if app_client.get(f"/api/matches/{match_id}").json()["current_player"] == 1:
            break
        app_client.portal.call(tables_of(app_client).settle)  # type: ignore[union-attr]
    clock.advance(4)
    t = table(app_client, match_id)
    assert t["clock"]["running"] == 1 and t["clock"]["remaining_ms"] == [300_000, 296_000]
    assert t["seats"][0]["status"] == "bot"


# ----- a start cut short (its process died midway): the leader's sweep finishes it -----


@pytest.fixture
def crashy_client(lobby_settings: Settings) -> Iterator[TestClient]:
    """The lobby's app, answering 500 for a request that fails instead of raising it here."""
    with TestClient(create_app(lobby_settings), raise_server_exceptions=False) as c:
        yield c


def _dies_once(monkeypatch: pytest.MonkeyPatch, owner: type, name: str) -> None:
    """The next call of ``owner.name`` fails, as if the process died there."""
    real = getattr(owner, name)

    async def died(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(owner, name, real)
        raise RuntimeError("the process died here")

    monkeypatch.setattr(owner, name, died)


def _sweep(client: TestClient) -> dict[str, int]:
    state = client.app.state  # type: ignore[attr-defined]
    done: dict[str, int] = client.portal.call(duties.sweep_once, state.rooms, state.tables, state.lobby, state.ratings)  # type: ignore[union-attr]
    return done


@pytest.mark.parametrize(("owner", "step"), [(RoomManager, "create"), (Tables, "open_table")])
def test_a_start_cut_short_is_finished_by_the_leaders_sweep(
    crashy_client: TestClient, clock: FakeClock, monkeypatch: pytest.MonkeyPatch, owner: type, step: str
) -> None:
    client = crashy_client
    created = open_game(client, clock={"kind": "realtime", "base_s": 600, "increment_s": 0})
    gid = created["id"]
    _dies_once(monkeypatch, owner, step)
    r = client.post(f"/api/lobby/{gid}/join", json={"name": "Bob"})
    assert r.status_code == 500
    assert client.get(f"/api/lobby/{gid}").json()["status"] == "starting"
    assert client.get(f"/api/matches/{gid}/table").status_code == 404
    # A start under way elsewhere is left alone ...
    assert _sweep(client)["lobby_starts"] == 0
    # ... one left for longer is finished: match, table and clock.
    clock.advance(START_STALL_S + 1)
    assert _sweep(client)["lobby_starts"] == 1
    assert client.get(f"/api/lobby/{gid}").json()["status"] == "started"
    view = act(client, gid, created["token"], "a")
    assert [p["name"] for p in view["players"]] == ["Ann", "Bob"]
    shown = table(client, gid)
    assert shown["clock"]["running"] is not None and shown["clock"]["base_s"] == 600
    assert _sweep(client)["lobby_starts"] == 0  # once


def test_a_start_that_failed_keeps_its_lobby_game_for_the_sweep(
    crashy_client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nobody can join or cancel a game being started, and it is not listed as open."""
    client = crashy_client
    created = open_game(client)
    gid = created["id"]
    _dies_once(monkeypatch, RoomManager, "create")
    assert client.post(f"/api/lobby/{gid}/join", json={"name": "Bob"}).status_code == 500
    assert client.post(f"/api/lobby/{gid}/join", json={"name": "Cy"}).status_code == 404
    assert client.post(f"/api/lobby/{gid}/cancel", json={"token": created["token"]}).status_code == 404
    assert gid not in [g["id"] for g in client.get("/api/lobby").json()["games"]]
    lobby: Lobby = client.app.state.lobby  # type: ignore[attr-defined]
    assert client.portal.call(lobby.finish_stalled_starts, 0.0) == 1  # type: ignore[union-attr]
    assert client.get(f"/api/matches/{gid}").status_code == 200


# ----- presence heard from other processes (the bus), and processes that died --------


def test_a_seat_is_gone_once_no_live_process_holds_a_socket_of_it(app_client: TestClient) -> None:
    """The leader keeps which processes said a seat is on a socket there: one of two
    leaving does not make it gone, and a process whose presence the sweep found dead
    (``forget_dead_processes``) counts as having left."""
    from tabletop.server.tables import presence_code

    match_id, _ann, _bob = two_player_match(app_client, clock={"kind": "realtime", "base_s": 600}, grace_s=30)
    tables = tables_of(app_client)
    leader_table = tables.tables[match_id]

    def hear(origin: int, here: bool) -> None:
        app_client.portal.call(tables.heard_presence, match_id, presence_code(origin, 0, here))  # type: ignore[union-attr]

    hear(11, True)
    hear(12, True)
    hear(11, False)  # one of Ann's two pages closed
    assert 0 not in leader_table.gone_since_ms
    assert app_client.portal.call(tables.forget_dead_processes, [(match_id, 0, 11)]) == 0  # type: ignore[union-attr]
    assert 0 not in leader_table.gone_since_ms
    assert app_client.portal.call(tables.forget_dead_processes, [(match_id, 0, 12)]) == 1  # type: ignore[union-attr]
    assert 0 in leader_table.gone_since_ms
    assert table(app_client, match_id)["seats"][0]["present"] is False
