"""Accounts: registration, log-in and out, sessions and CSRF, bound seats, claims, my games.

Every endpoint is also fed hostile input (long and look-alike names, wrong types, deep
nesting) and asked to act for someone else.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given
from hypothesis import settings as settings_hypothesis
from hypothesis import strategies as st

from tabletop.server.app import create_app
from tabletop.server.config import Settings

from .accounts_helpers import PASSWORD, Person, act, create_toy_match, fresh_name, register


def _error(r: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body: dict[str, Any] = r.json()
    assert set(body) == {"error", "detail"}
    if code is not None:
        assert body["error"] == code
    assert len(body["detail"]) <= 300
    return body


# ----- registration and log-in ----------------------------------------------------------


def test_register_logs_in_with_a_safe_cookie(client: TestClient) -> None:
    name = fresh_name("Alice")
    r = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    assert r.json()["name"] == name and r.json()["csrf"]
    cookie = r.headers["set-cookie"]
    assert cookie.startswith("tabletop_session=")
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie
    assert "Secure" not in cookie  # plain HTTP; see the next test
    assert client.get("/api/session").json() == {"name": name, "csrf": r.json()["csrf"]}
    client.cookies.clear()
    assert client.get("/api/session").json() == {"name": None, "csrf": None}


def test_secure_cookies_setting_marks_the_cookie_secure(settings: Settings) -> None:
    with TestClient(create_app(dataclasses.replace(settings, secure_cookies=True))) as c:
        r = c.post("/api/accounts", json={"name": fresh_name(), "password": PASSWORD})
        assert "Secure" in r.headers["set-cookie"]


def test_names_are_unique_whatever_their_case(client: TestClient) -> None:
    person = register(client)
    r = client.post("/api/accounts", json={"name": person.name.upper(), "password": PASSWORD})
    _error(r, 409, "name_taken")


@pytest.mark.parametrize(
    "name",
    [
        "ab",  # too short
        "a" * 25,  # over name_max_length
        "x" * 10_000,  # far over: refused by the schema before anything else
        "",
        "bad name",
        "-dash",
        "_under",
        "admin\u200b",  # zero-width space
        "аdmin",  # Cyrillic a
        "ａｄｍｉｎ",  # fullwidth
        "evil\u202egnp",  # right-to-left override
        "o\u0308ther",  # combining diaeresis
        "tab\there",
        "semi;colon",
        "<script>",
        "../etc",
    ],
)
def test_bad_names_are_refused(client: TestClient, name: str) -> None:
    r = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert r.status_code == 422, r.text
    assert r.json()["error"] in ("bad_name", "bad_request")


@pytest.mark.parametrize("password", ["short", "x" * 257, "y" * 5000])
def test_bad_password_lengths_are_refused(client: TestClient, password: str) -> None:
    r = client.post("/api/accounts", json={"name": fresh_name(), "password": password})
    assert r.status_code == 422, r.text


@pytest.mark.parametrize(
    "body",
    [
        {"name": 12345, "password": PASSWORD},
        {"name": ["a", "b", "c"], "password": PASSWORD},
        {"name": {"a": {"b": {}}}, "password": PASSWORD},
        {"name": "okname", "password": None},
        {"name": "okname", "password": 123456789},
        {"name": "okname"},
        {"name": "okname", "password": PASSWORD, "admin": True},
        [],
        "name",
    ],
)
def test_wrong_shapes_are_refused(client: TestClient, body: Any) -> None:
    for path in ("/api/accounts", "/api/session"):
        _error(client.post(path, json=body), 422)


def test_deep_nesting_is_refused_before_parsing(client: TestClient) -> None:
    deep = "[" * 200 + "]" * 200
    r = client.post(
        "/api/accounts",
        content=f'{{"name": {deep}, "password": "x"}}'.encode(),
        headers={"content-type": "application/json"},
    )
    _error(r, 400, "bad_json")


def test_log_in_and_out(client: TestClient) -> None:
    person = register(client)
    r = client.post("/api/session", json={"name": person.name.lower(), "password": PASSWORD})
    assert r.status_code == 200 and r.json()["name"] == person.name
    cookie = r.cookies["tabletop_session"]
    client.cookies.clear()
    fresh = Person(client, person.name, cookie, r.json()["csrf"])
    assert fresh.get("/api/session").json()["name"] == person.name
    # Logging out is a state change: without the CSRF token, or from another site, refused.
    _error(client.delete("/api/session", headers=fresh.headers(csrf=False)), 403, "csrf")
    _error(client.delete("/api/session", headers={**fresh.headers(), "origin": "https://evil.example"}), 403, "csrf")
    r = client.delete("/api/session", headers={**fresh.headers(), "origin": "http://testserver"})
    assert r.status_code == 204
    assert fresh.get("/api/session").json()["name"] is None  # the session is gone on the server
    assert person.get("/api/session").json()["name"] == person.name  # the other session lives on


def test_wrong_password_and_unknown_name_answer_alike(client: TestClient) -> None:
    person = register(client)
    wrong = client.post("/api/session", json={"name": person.name, "password": "not the password"})
    unknown = client.post("/api/session", json={"name": fresh_name(), "password": PASSWORD})
    assert _error(wrong, 401, "bad_login") == _error(unknown, 401, "bad_login")
    assert "set-cookie" not in wrong.headers


def test_log_in_attempts_are_limited_per_minute(settings: Settings) -> None:
    with TestClient(create_app(dataclasses.replace(settings, login_attempts_per_minute=3))) as c:
        person = register(c)
        for _ in range(3):
            _error(c.post("/api/session", json={"name": person.name, "password": "wrong password"}), 401)
        r = c.post("/api/session", json={"name": person.name, "password": PASSWORD})
        _error(r, 429, "too_many_logins")
        assert int(r.headers["retry-after"]) >= 1


def test_registrations_are_limited_per_minute(settings: Settings) -> None:
    with TestClient(create_app(dataclasses.replace(settings, registrations_per_minute=2))) as c:
        register(c)
        register(c)
        _error(
            c.post("/api/accounts", json={"name": fresh_name(), "password": PASSWORD}), 429, "too_many_registrations"
        )


def test_a_forged_or_overlong_cookie_is_nobody(client: TestClient) -> None:
    for cookie in ("nonsense", "x" * 5000):
        r = client.get("/api/session", headers={"cookie": f"tabletop_session={cookie}"})
        assert r.json() == {"name": None, "csrf": None}
    _error(client.get("/api/me/matches", headers={"cookie": "tabletop_session=nonsense"}), 401, "not_logged_in")


# ----- bound seats ----------------------------------------------------------------------


def test_a_bound_seat_acts_only_for_its_account(client: TestClient) -> None:
    alice, mallory = register(client), register(client)
    m = create_toy_match(client, alice)
    token = m["seats"][0]["token"]
    assert m["seats"][0]["name"] == alice.name
    # The link alone, another account, or Alice's cookie without the CSRF token: refused.
    _error(act(client, m["id"], token, 0, "a", None), 403, "seat_bound")
    _error(act(client, m["id"], token, 0, "a", mallory), 403, "seat_bound")
    r = client.post(
        f"/api/matches/{m['id']}/actions",
        json={"token": token, "version": 0, "action": "a"},
        headers=alice.headers(csrf=False),
    )
    _error(r, 403, "seat_bound")
    _error(client.post(f"/api/matches/{m['id']}/seat", json={"token": token}), 403, "seat_bound")
    assert act(client, m["id"], token, 0, "a", alice).status_code == 200
    assert client.post(f"/api/matches/{m['id']}/seat", json={"token": token}, headers=alice.headers()).json() == {
        "seat": 0
    }
    # The guest seat still plays by its link.
    assert act(client, m["id"], token, 1, "b", alice).status_code == 200
    assert act(client, m["id"], m["seats"][1]["token"], 2, "c", None).status_code == 200


def test_taking_a_seat_as_me_needs_a_session_and_its_csrf_token(client: TestClient) -> None:
    alice = register(client)
    body = {"game": "toy", "seats": [{"name": "A", "me": True}, {"name": "B"}]}
    _error(client.post("/api/matches", json=body), 401, "not_logged_in")
    _error(alice.post("/api/matches", body, csrf=False), 401, "not_logged_in")
    _error(alice.post("/api/matches", body, origin="https://evil.example"), 401, "not_logged_in")
    two = {"game": "toy", "seats": [{"name": "A", "me": True}, {"name": "B", "me": True}]}
    _error(alice.post("/api/matches", two), 422, "bad_seats")
    bot = {"game": "toy", "seats": [{"name": "A", "agent": "random", "me": True}, {"name": "B"}]}
    _error(alice.post("/api/matches", bot), 422, "bad_seats")
    _error(alice.post("/api/matches", {**body, "rated": "yes"}), 422)


def test_the_websocket_honours_the_cookie_only_from_this_site(client: TestClient) -> None:
    alice = register(client)
    m = create_toy_match(client, alice)
    token = m["seats"][0]["token"]
    url = f"/api/matches/{m['id']}/ws"
    for headers in ({"cookie": alice.headers()["cookie"]}, {**alice.headers(), "origin": "https://evil.example"}):
        with client.websocket_connect(url, headers=headers) as ws:
            ws.receive_json()
            ws.send_json({"type": "act", "req": 1, "token": token, "version": 0, "action": "a"})
            # A state may come first: on PostgreSQL the notice of the seat bound when the
            # match was made can reach the room after the socket joined it.
            while (reply := ws.receive_json())["type"] == "state":
                pass
            assert reply["type"] == "error" and reply["error"] == "seat_bound"
    with client.websocket_connect(url, headers={**alice.headers(), "origin": "http://testserver"}) as ws:
        ws.receive_json()
        ws.send_json({"type": "act", "req": 1, "token": token, "version": 0, "action": "a"})
        while (reply := ws.receive_json())["type"] == "state":
            pass
        assert reply == {"type": "ack", "req": 1, "version": 1}


# ----- claims and my games --------------------------------------------------------------


def test_claiming_a_guest_seat_binds_it(client: TestClient) -> None:
    alice, bob, carol = register(client), register(client), register(client)
    m = create_toy_match(client, alice)
    guest_token = m["seats"][1]["token"]
    claim = f"/api/matches/{m['id']}/claim"
    _error(client.post(claim, json={"token": guest_token}), 401, "not_logged_in")
    _error(bob.post(claim, {"token": guest_token}, csrf=False), 403, "csrf")
    _error(bob.post(claim, {"token": "wrong-token"}), 403, "bad_token")
    _error(bob.post(claim, {"token": m["seats"][0]["token"]}), 403, "seat_bound")  # Alice's seat
    r = bob.post(claim, {"token": guest_token})
    assert r.status_code == 200, r.text
    new_token = r.json()["token"]
    assert r.json() == {"seat": 1, "token": new_token, "link": f"/play/{m['id']}#t={new_token}"}
    assert bob.post(claim, {"token": new_token}).json()["token"] == new_token  # idempotent
    _error(carol.post(claim, {"token": new_token}), 403, "seat_bound")
    _error(alice.post(claim, {"token": new_token}), 403, "seat_bound")
    view = client.get(f"/api/matches/{m['id']}").json()
    assert [p["name"] for p in view["players"]] == [alice.name, bob.name]
    # The old guest link no longer names a seat; the new one acts only for Bob.
    assert act(client, m["id"], m["seats"][0]["token"], 0, "a", alice).status_code == 200
    assert act(client, m["id"], m["seats"][0]["token"], 1, "b", alice).status_code == 200
    _error(act(client, m["id"], guest_token, 2, "c", None), 403, "bad_token")
    _error(act(client, m["id"], new_token, 2, "c", None), 403, "seat_bound")
    assert act(client, m["id"], new_token, 2, "c", bob).status_code == 200


def test_one_account_holds_one_seat_per_match(client: TestClient) -> None:
    alice = register(client)
    m = create_toy_match(client, alice, ("human", "human", "human"))
    _error(alice.post(f"/api/matches/{m['id']}/claim", {"token": m["seats"][1]["token"]}), 409, "already_seated")


def test_claim_bodies_are_checked(client: TestClient) -> None:
    alice = register(client)
    m = create_toy_match(client, alice)
    claim = f"/api/matches/{m['id']}/claim"
    for body in ({"token": 5}, {"token": ""}, {"token": "x" * 201}, {}, {"token": "t", "seat": 1}, [["nested"]]):
        _error(alice.post(claim, body), 422)
    _error(alice.post("/api/matches/nosuch/claim", {"token": "t"}), 404, "unknown_match")


def test_claiming_after_the_first_action_makes_the_match_unrated(client: TestClient) -> None:
    alice, bob = register(client), register(client)
    m = create_toy_match(client, alice)
    assert act(client, m["id"], m["seats"][0]["token"], 0, "a", alice).status_code == 200
    assert bob.post(f"/api/matches/{m['id']}/claim", {"token": m["seats"][1]["token"]}).status_code == 200
    mine = bob.get("/api/me/matches").json()
    assert mine["matches"][0]["rated"] is False


def test_my_matches_lists_my_seats_with_working_links(client: TestClient) -> None:
    alice, bob = register(client), register(client)
    first = create_toy_match(client, alice)
    second = create_toy_match(client, alice, me=1, rated=False)
    create_toy_match(client, bob)
    _error(client.get("/api/me/matches"), 401, "not_logged_in")
    page = alice.get("/api/me/matches").json()
    assert page["total"] == 2 and page["offset"] == 0
    by_id = {m["id"]: m for m in page["matches"]}
    assert set(by_id) == {first["id"], second["id"]}
    assert by_id[second["id"]]["seat"] == 1 and by_id[second["id"]]["rated"] is False
    assert by_id[first["id"]]["link"] == first["seats"][0]["link"]  # the same derived token
    one = alice.get("/api/me/matches?limit=1&offset=1").json()
    assert one["total"] == 2 and len(one["matches"]) == 1
    for query in ("limit=0", "limit=abc", "offset=-1", "limit=99999"):
        _error(alice.get(f"/api/me/matches?{query}"), 422)


def test_my_matches_page_is_capped_by_page_max(settings: Settings) -> None:
    with TestClient(create_app(dataclasses.replace(settings, page_max=2))) as c:
        alice = register(c)
        for _ in range(3):
            create_toy_match(c, alice, rated=False)
        page = alice.get("/api/me/matches?limit=50").json()
        assert page["total"] == 3 and len(page["matches"]) == 2


@pytest.mark.parametrize("path", ["/account", "/players/somebody", "/ratings/medina"])
def test_account_pages_serve_the_client(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")


def test_session_rows_hold_no_cookie_value(client: TestClient, settings: Settings) -> None:
    from sqlalchemy import select

    from tabletop.server.store import accounts, make_engine, sessions

    person = register(client)
    engine = make_engine(settings.db_url)
    try:
        with engine.connect() as conn:
            stored = [row.token_hash for row in conn.execute(select(sessions.c.token_hash))]
            (password_hash,) = conn.execute(
                select(accounts.c.password_hash).where(accounts.c.name == person.name)
            ).one()
    finally:
        engine.dispose()
    assert person.cookie not in stored
    assert password_hash.startswith("$argon2id$") and PASSWORD not in password_hash
    assert json.dumps(stored)  # plain hex strings


@settings_hypothesis(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(max_size=40))
def test_any_name_is_either_a_valid_account_name_or_refused(client: TestClient, name: str) -> None:
    r = client.post("/api/accounts", json={"name": name, "password": "x"})  # the password is too short
    assert r.status_code in (400, 422), r.text
    valid = name.isascii() and 3 <= len(name) <= 24 and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", name) is not None
    # A valid name gets as far as the password check; any other is refused for the name.
    assert (r.json()["error"] == "bad_password") == valid, (name, r.json())
