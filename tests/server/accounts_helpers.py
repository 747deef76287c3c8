"""Helpers for the account and rating tests: people with their own cookie and CSRF token.

Account names are random, so tests sharing one PostgreSQL database (``TABLETOP_TEST_DB``)
never collide.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from fastapi.testclient import TestClient

PASSWORD = "correct horse battery"


def fresh_name(prefix: str = "p") -> str:
    """A valid account name no other test uses."""
    return f"{prefix}{secrets.token_hex(5)}"


@dataclass
class Person:
    """A registered person: their session cookie and CSRF token, sent per request.

    The test client's own cookie jar is emptied after each log-in, so requests act only
    for whoever's headers they carry.
    """

    client: TestClient
    name: str
    cookie: str
    csrf: str

    def headers(self, *, csrf: bool = True) -> dict[str, str]:
        headers = {"cookie": f"tabletop_session={self.cookie}"}
        if csrf:
            headers["x-csrf-token"] = self.csrf
        return headers

    def post(self, path: str, body: Any, *, csrf: bool = True, **extra: str) -> Any:
        return self.client.post(path, json=body, headers={**self.headers(csrf=csrf), **extra})

    def get(self, path: str) -> Any:
        return self.client.get(path, headers=self.headers(csrf=False))


def register(client: TestClient, name: str | None = None, password: str = PASSWORD) -> Person:
    """Registers (and so logs in) a new person."""
    name = name or fresh_name()
    r = client.post("/api/accounts", json={"name": name, "password": password})
    assert r.status_code == 201, r.text
    cookie = r.cookies.get("tabletop_session")
    assert cookie
    client.cookies.clear()
    return Person(client, name, cookie, r.json()["csrf"])


def create_toy_match(
    client: TestClient,
    creator: Person | None,
    agents: tuple[str, ...] = ("human", "human"),
    *,
    me: int | None = 0,
    rated: bool = True,
) -> dict[str, Any]:
    """A toy match, seat ``me`` bound to ``creator``; returns the API's answer."""
    seats = [{"name": f"P{i}", "agent": a, **({"me": True} if i == me else {})} for i, a in enumerate(agents)]
    body = {"game": "toy", "seats": seats, "start_player": 0, "rated": rated}
    r = creator.post("/api/matches", body) if creator is not None else client.post("/api/matches", json=body)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def act(client: TestClient, match_id: str, token: str, version: int, action: str, person: Person | None) -> Any:
    """Plays one action over HTTP, as ``person`` (or with no session)."""
    body = {"token": token, "version": version, "action": action}
    headers = person.headers() if person is not None else {}
    return client.post(f"/api/matches/{match_id}/actions", json=body, headers=headers)
