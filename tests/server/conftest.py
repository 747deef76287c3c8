"""Fixtures: an isolated app on a temporary SQLite file, with the toy game registered."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tabletop.server.app import create_app
from tabletop.server.config import Settings
from tabletop.server.local import free_port

from . import toygame  # noqa: F401 - registers the "toy" game


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Gives each of schemathesis's per-operation tests (test_schema_fuzz.py) its own id.

    Under pytest 9 schemathesis 4 names them ``test_x[GET /api/games]`` but leaves every
    one the id ``test_x`` (pytest 9 builds a test's id from its ``originalname`` and its
    parametrization, and schemathesis parametrizes by hand).  pytest-xdist (``make test``)
    files tests by id, and so ran one operation of the 42.  This sets the id pytest gives
    a parametrized test, and refuses to go on if two tests still share one.
    """
    fuzzed = [item for item in items if type(item).__name__ == "SchemathesisFunction"]
    for item in fuzzed:
        label = getattr(item, "operation_label", None)
        if item.parent is not None and label and not item.nodeid.endswith("]"):
            item._id = item.parent.id.child(item.originalname).with_params(label)  # type: ignore[attr-defined]
    ids = [item.nodeid for item in fuzzed]
    if len(set(ids)) != len(ids):
        raise pytest.UsageError(f"schemathesis's tests share ids ({len(ids) - len(set(ids))} repeated): see this hook")


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """A fresh SQLite file, or ``$TABLETOP_TEST_DB`` (e.g. a PostgreSQL URL) when set.

    Match ids are random, so tests sharing one PostgreSQL database do not see each other.
    """
    return os.environ.get("TABLETOP_TEST_DB") or f"sqlite:///{tmp_path / 'test.db'}"


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(db_url=db_url, bot_executor="thread", bot_workers=1, bot_time_budget_s=5.0)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as c:
        yield c


def create_toy(client: TestClient, agents: tuple[str, ...] = ("human", "human"), **extra: Any) -> dict[str, Any]:
    """Creates a toy match and returns the API's answer."""
    seats = [{"name": f"P{i}", "agent": a} for i, a in enumerate(agents)]
    r = client.post("/api/matches", json={"game": "toy", "seats": seats, "start_player": 0, **extra})
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


@pytest.fixture
def live(settings: Settings) -> Iterator[str]:
    """A real uvicorn server on loopback (one connection can carry several requests)."""
    import uvicorn

    port = free_port()
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning", ws_max_size=65536)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def schema_db_url(db_url: str) -> Iterator[str]:
    """``db_url`` (PostgreSQL) on a schema of its own, dropped afterwards: a service of
    several processes with its own lease and tables (the lease is per schema)."""
    import secrets

    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    schema = f"own_{secrets.token_hex(4)}"
    admin = create_engine(db_url)
    try:
        with admin.begin() as conn:
            conn.execute(text(f"CREATE SCHEMA {schema}"))
        yield make_url(db_url).update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(False)
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        admin.dispose()
