"""Attacks found on the server, each shown to be stopped (issue #36, docs/security.md).

Every test here failed on the server before the fix it names: a replay recomputed on every
request and counted as one request, a re-claim that unrated a rated match (in
``test_ratings.py``), wrong passwords that locked the owner out, a websocket that acted for
an account after its log-out, an analysis backlog without bound, hints refused to the owner
of a bound seat, and ``X-Forwarded-For`` believed from anyone.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tabletop.core.errors import ConfigError
from tabletop.server import deps, guard
from tabletop.server.app import create_app
from tabletop.server.config import Settings
from tabletop.server.routes import analysis as analysis_routes
from tabletop.server.routes import matches as match_routes

from .accounts_helpers import PASSWORD, Person, act, create_toy_match, register
from .conftest import create_toy

PROXY = "127.0.0.1"


def _finish(client: TestClient, m: dict[str, Any]) -> None:
    tokens = [s["token"] for s in m["seats"]]
    for version, cell in enumerate("abcdef"):
        body = {"token": tokens[(version // 2) % 2], "version": version, "action": cell}
        assert client.post(f"/api/matches/{m['id']}/actions", json=body).status_code == 200


@pytest.fixture
def proxied(settings: Settings) -> Iterator[TestClient]:
    """An app behind a proxy it trusts: each request names its client in ``X-Forwarded-For``."""
    app = create_app(dataclasses.replace(settings, trusted_proxies=(PROXY,)))
    with TestClient(app, client=(PROXY, 50000)) as c:
        yield c


def _from(address: str) -> dict[str, str]:
    return {"x-forwarded-for": address}


# ----- replays: cached, and counted by cost ---------------------------------------------


def test_a_finished_matchs_replay_and_record_are_computed_once(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []
    real = match_routes.replay_steps

    def counted(record: Any) -> dict[str, Any]:
        calls.append(1)
        return real(record)

    monkeypatch.setattr(match_routes, "replay_steps", counted)
    m = create_toy(client)
    _finish(client, m)
    first = client.get(f"/api/matches/{m['id']}/replay")
    assert first.status_code == 200 and len(first.json()["steps"]) == 7
    for _ in range(3):
        assert client.get(f"/api/matches/{m['id']}/replay").json() == first.json()
    assert len(calls) == 1
    record = client.get(f"/api/matches/{m['id']}/record")
    assert client.get(f"/api/matches/{m['id']}/record").content == record.content
    assert record.json()["actions"] == list("abcdef")


def test_a_replay_counts_against_the_request_budget_by_its_length(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deps, "REPLAY_ACTIONS_PER_REQUEST", 1)  # the toy's 6 actions count as 6 requests
    with TestClient(create_app(dataclasses.replace(settings, requests_per_minute=12))) as c:
        m = create_toy(c)
        _finish(c, m)  # 7 requests so far
        assert c.get(f"/api/matches/{m['id']}/replay").status_code == 200  # 8, and 6 for its cost
        r = c.get("/api/agents")
        assert r.status_code == 429 and r.json()["error"] == "too_many_requests"


def test_an_uploaded_record_counts_by_its_length(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deps, "REPLAY_ACTIONS_PER_REQUEST", 1)
    with TestClient(create_app(dataclasses.replace(settings, requests_per_minute=14))) as c:
        m = create_toy(c)
        _finish(c, m)
        record = c.get(f"/api/matches/{m['id']}/record").json()  # 9 requests and 6 for the replay
        r = c.post("/api/replay", json=record)
        assert r.status_code == 429 and r.json()["error"] == "too_many_requests"


# ----- log-in: no lock on a name --------------------------------------------------------


def test_wrong_passwords_from_elsewhere_never_lock_the_owner_out(proxied: TestClient) -> None:
    alice = register(proxied, password=PASSWORD)
    for _ in range(25):
        r = proxied.post(
            "/api/session", json={"name": alice.name, "password": "not her password"}, headers=_from("203.0.113.9")
        )
        assert r.status_code in (401, 429)
    assert r.status_code == 429  # the guesser is held back...
    r = proxied.post("/api/session", json={"name": alice.name, "password": PASSWORD}, headers=_from("198.51.100.7"))
    assert r.status_code == 200, r.text  # ...and the owner, elsewhere, logs in


def test_an_address_that_keeps_failing_backs_off(proxied: TestClient) -> None:
    alice = register(proxied)
    wrong = {"name": alice.name, "password": "not her password"}
    statuses = [proxied.post("/api/session", json=wrong, headers=_from("203.0.113.9")).status_code for _ in range(5)]
    assert statuses == [401, 401, 401, 401, 429]
    r = proxied.post("/api/session", json={"name": alice.name, "password": PASSWORD}, headers=_from("203.0.113.9"))
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1


def test_backoff_doubles_after_the_free_failures_and_forgets() -> None:
    now = [0.0]
    backoff = guard.Backoff(free=2, first_s=1, max_s=8, forget_s=100, clock=lambda: now[0])
    waits = []
    for _ in range(7):
        backoff.failed("a")
        waits.append(backoff.retry_after("a"))
    assert waits == [None, None, 1, 2, 4, 8, 8]
    assert backoff.retry_after("b") is None
    now[0] = 8.5
    assert backoff.retry_after("a") is None  # waited long enough: one more try
    backoff.failed("a")
    assert backoff.retry_after("a") == 8
    now[0] = 200
    assert backoff.retry_after("a") is None
    backoff.failed("a")
    assert backoff.retry_after("a") is None  # forgotten: the count starts again
    backoff.succeeded("a")


# ----- a websocket after log-out ---------------------------------------------------------


def test_a_socket_opened_before_log_out_no_longer_acts_for_the_account(client: TestClient) -> None:
    alice = register(client)
    r = client.post("/api/session", json={"name": alice.name, "password": PASSWORD})
    session = Person(client, alice.name, r.cookies["tabletop_session"], r.json()["csrf"])
    client.cookies.clear()
    m = create_toy_match(client, session, rated=False)
    token = m["seats"][0]["token"]
    headers = {**session.headers(), "origin": "http://testserver"}
    with client.websocket_connect(f"/api/matches/{m['id']}/ws", headers=headers) as ws:
        ws.receive_json()
        ws.send_json({"type": "hello", "req": 1, "token": token})
        # On PostgreSQL the seat's binding comes back over the bus as a fresh view first.
        while (greeting := ws.receive_json())["type"] == "state":
            pass
        assert greeting["type"] in ("welcome", "table")
        assert client.delete("/api/session", headers=headers).status_code == 204
        ws.send_json({"type": "act", "req": 2, "token": token, "version": 0, "action": "a"})
        while (reply := ws.receive_json())["type"] != "error":
            assert reply["type"] != "ack"
        assert reply["req"] == 2 and reply["error"] == "seat_bound"
    # Alice's other session still plays the seat.
    assert act(client, m["id"], token, 0, "a", alice).status_code == 200


# ----- the analysis backlog --------------------------------------------------------------


def test_the_analysis_backlog_is_bounded_per_address_and_in_total(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    release, started = threading.Event(), threading.Event()
    real = analysis_routes.analysis_job

    def slow_job(*args: Any) -> dict[str, Any]:
        started.set()
        assert release.wait(30)
        return real(*args)

    monkeypatch.setattr(analysis_routes, "analysis_job", slow_job)
    tight = dataclasses.replace(
        settings,
        trusted_proxies=(PROXY,),
        analyses_per_minute=100,
        analysis_backlog_per_client=1,
        analysis_backlog=2,
    )
    with TestClient(create_app(tight), client=(PROXY, 50000)) as c:
        m = create_toy(c)
        _finish(c, m)
        record = c.get(f"/api/matches/{m['id']}/record").json()

        def upload(name: str, address: str) -> Any:
            players = [{**record["players"][0], "name": name}, record["players"][1]]
            body = {"record": {**record, "players": players}, "level": "greedy"}
            return c.post("/api/analysis", json=body, headers=_from(address))

        answers: dict[str, Any] = {}
        first = threading.Thread(target=lambda: answers.setdefault("first", upload("first", "203.0.113.1")))
        first.start()
        try:
            assert started.wait(30)
            r = upload("second", "203.0.113.1")  # the same address, one job already under way
            assert r.status_code == 429 and r.json()["error"] == "analysis_backlog"
            second = threading.Thread(target=lambda: answers.setdefault("second", upload("other", "203.0.113.2")))
            second.start()
            while "second" not in answers and sum(c.app.state.analysis._backlog.values()) < 2:  # type: ignore[attr-defined]
                threading.Event().wait(0.01)
            r = upload("third", "203.0.113.3")  # the server's backlog is full
            assert r.status_code == 503 and r.json()["error"] == "analysis_busy"
        finally:
            release.set()
            first.join(30)
        second.join(30)
        assert answers["first"].status_code == 200 and answers["second"].status_code == 200
        assert upload("again", "203.0.113.1").status_code == 200  # done: its place is free again


# ----- hints for a bound seat ------------------------------------------------------------


def test_hints_answer_the_logged_in_owner_of_a_bound_seat(client: TestClient) -> None:
    alice = register(client)
    m = create_toy_match(client, alice, rated=False)
    url = f"/api/matches/{m['id']}/hint"
    body = {"token": m["seats"][0]["token"], "level": "greedy"}
    r = client.post(url, json=body)
    assert r.status_code == 403 and r.json()["error"] == "seat_bound"  # the link alone
    r = alice.post(url, body)
    assert r.status_code == 200, r.text
    assert r.json()["seat"] == 0


# ----- X-Forwarded-For only from the operator's proxies ---------------------------------


def test_forwarded_for_is_read_from_the_right_through_trusted_hops() -> None:
    nets = Settings(trusted_proxies=("10.0.0.0/8",)).trusted_networks
    assert guard.forwarded_client("10.0.0.5", ["198.51.100.7"], nets) == "198.51.100.7"
    # The client's own claim (left of what the proxy saw) is ignored.
    assert guard.forwarded_client("10.0.0.5", ["1.2.3.4, 198.51.100.7"], nets) == "198.51.100.7"
    assert guard.forwarded_client("10.0.0.5", ["1.2.3.4", "10.0.0.9, 198.51.100.7"], nets) == "198.51.100.7"
    assert guard.forwarded_client("10.0.0.5", ["198.51.100.7, 10.0.0.9"], nets) == "198.51.100.7"
    # From an untrusted peer the header is not read at all.
    assert guard.forwarded_client("192.0.2.1", ["198.51.100.7"], nets) == "192.0.2.1"
    assert guard.forwarded_client("192.0.2.1", ["198.51.100.7"], ()) == "192.0.2.1"


def test_a_client_cannot_choose_its_address_unless_its_proxy_is_trusted(settings: Settings) -> None:
    limited = dataclasses.replace(settings, requests_per_minute=3)
    with TestClient(create_app(limited), client=(PROXY, 50000)) as c:
        statuses = [c.get("/api/agents", headers=_from(f"203.0.113.{i}")).status_code for i in range(5)]
        assert statuses == [200, 200, 200, 429, 429]
    with TestClient(create_app(dataclasses.replace(limited, trusted_proxies=(PROXY,))), client=(PROXY, 50000)) as c:
        statuses = [c.get("/api/agents", headers=_from(f"203.0.113.{i}")).status_code for i in range(5)]
        assert statuses == [200] * 5
        statuses = [c.get("/api/agents", headers=_from("203.0.113.9")).status_code for _ in range(4)]
        assert statuses == [200, 200, 200, 429]


def test_trusted_proxies_are_checked() -> None:
    with pytest.raises(ConfigError, match="trusted_proxies"):
        Settings(trusted_proxies=("not an address",))
    with pytest.raises(ConfigError, match="trusted_proxies"):
        Settings(trusted_proxies="10.0.0.1")  # type: ignore[arg-type]


def test_serve_leaves_x_forwarded_for_to_the_app(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """uvicorn's own reading of the header (from any local process) is off under ``tabletop serve``."""
    from unittest.mock import Mock

    from typer.testing import CliRunner

    from tabletop.cli.main import app
    from tabletop.server.local import free_port

    run = Mock()
    monkeypatch.setattr("uvicorn.run", run)
    monkeypatch.setenv("TABLETOP_TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8")
    result = CliRunner().invoke(app, ["serve", "--port", str(free_port()), "--db", f"sqlite:///{tmp_path / 'x.db'}"])
    assert result.exit_code == 0, result.output
    assert run.call_args.kwargs["proxy_headers"] is False
    monkeypatch.setenv("TABLETOP_TRUSTED_PROXIES", "10.0.0.300")
    result = CliRunner().invoke(app, ["serve", "--port", str(free_port())])
    assert result.exit_code == 2 and "trusted_proxies" in result.output
