"""Schema migrations: a database made before migrations upgrades in place, nothing lost,
and the migrations build exactly the tables that store.py declares.

Each test gets an empty database of its own: a SQLite file, or, when
``$TABLETOP_TEST_DB`` names a PostgreSQL database, a fresh schema in it (dropped after).
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from fastapi.testclient import TestClient
from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Engine,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    insert,
    inspect,
    select,
    text,
)
from sqlalchemy.engine import make_url

from tabletop import GameConfig, make
from tabletop.server import migrate
from tabletop.server.app import create_app
from tabletop.server.config import Settings
from tabletop.server.rooms import hash_token
from tabletop.server.store import make_engine, metadata, open_database

# The tables exactly as src/tabletop/server/store.py declared them before migrations
# (commit f08f535), when Store() ran LEGACY.create_all(engine) on every start.  A copy on
# purpose, not built from store.py: it must stay the old schema whatever store.py becomes.
LEGACY = MetaData()
legacy_matches = Table(
    "matches",
    LEGACY,
    Column("id", String(32), primary_key=True),
    Column("game", String(32), nullable=False),
    Column("config", JSON, nullable=False),
    Column("hotseat", Boolean, nullable=False, default=False),
    Column("created", String(40), nullable=False),
    Column("version", Integer, nullable=False, default=0),
    Column("finished", Boolean, nullable=False, default=False),
    Column("result", JSON, nullable=True),
)
legacy_seats = Table(
    "seats",
    LEGACY,
    Column("match_id", String(32), ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("name", String(80), nullable=False),
    Column("agent", String(40), nullable=False),
    Column("token_hash", String(64), nullable=True),
)
legacy_actions = Table(
    "actions",
    LEGACY,
    Column("match_id", String(32), ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
    Column("ply", Integer, primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("action", Text, nullable=False),
    Column("at", String(40), nullable=False),
)


@pytest.fixture
def empty_db_url(tmp_path: Path) -> Iterator[str]:
    """An empty database: a new SQLite file, or a new schema in ``$TABLETOP_TEST_DB``."""
    shared = os.environ.get("TABLETOP_TEST_DB")
    if not shared:
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    url = make_url(shared)
    if url.get_backend_name() != "postgresql":
        pytest.skip(f"no way to make an empty database on {url.get_backend_name()}")
    schema = f"migration_test_{secrets.token_hex(6)}"
    admin = create_engine(url)
    try:
        with admin.begin() as conn:
            conn.execute(text(f"CREATE SCHEMA {schema}"))
        # Every connection of the tested code sees only the new schema.
        yield url.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        admin.dispose()


@pytest.fixture
def engine(empty_db_url: str) -> Iterator[Engine]:
    e = make_engine(empty_db_url)
    yield e
    e.dispose()


TOKENS = {("open", 0): "open-seat-0-token", ("open", 1): "open-seat-1-token", ("bot", 0): "bot-match-human-token"}
CLAIMS = "abcdef"


def toy_config(seed: int) -> dict[str, Any]:
    return {"num_players": 2, "ruleset": "default", "variants": {}, "map": None, "seed": seed, "start_player": 0}


def seat_of_ply(ply: int) -> int:
    """The toy game with start player 0: two claims a turn, seat 0 first."""
    return (ply // 2) % 2


def fill_pre_migration_database(engine: Engine) -> dict[str, list[str]]:
    """Today's path: create_all, then the rows MatchStore.add_match/add_action write.

    Three matches: ``open`` (two people, three claims, seat 1 to play its second claim),
    ``done`` (finished, with its result) and ``bot`` (a person and a bot, the bot to move).
    Returns the actions of each match.
    """
    LEGACY.create_all(engine)
    plays = {"open": list("abc"), "done": list("abcdef"), "bot": list("ab")}
    with engine.begin() as conn:
        for n, (match_id, moves) in enumerate(plays.items()):
            config = toy_config(seed=100 + n)
            result = None
            if match_id == "done":
                state = make("toy").new_initial_state(GameConfig.from_json(config))
                for m in moves:
                    state = state.apply(state.parse_move(m))
                outcome = state.outcome()
                assert outcome is not None
                result = outcome.to_json()
            conn.execute(
                insert(legacy_matches).values(
                    id=match_id,
                    game="toy",
                    config=config,
                    hotseat=match_id == "done",
                    created=f"2026-11-0{n + 1}T10:00:00.000+00:00",
                    version=len(moves),
                    finished=result is not None,
                    result=result,
                )
            )
            agents = ("human", "random") if match_id == "bot" else ("human", "human")
            conn.execute(
                insert(legacy_seats),
                [
                    {
                        "match_id": match_id,
                        "seat": seat,
                        "name": f"{match_id} player {seat}",
                        "agent": agent,
                        "token_hash": hash_token(TOKENS.get((match_id, seat), f"{match_id}-{seat}"))
                        if agent == "human"
                        else None,
                    }
                    for seat, agent in enumerate(agents)
                ],
            )
            conn.execute(
                insert(legacy_actions),
                [
                    {"match_id": match_id, "ply": ply, "seat": seat_of_ply(ply), "action": a, "at": f"2026-11-0{n + 1}"}
                    for ply, a in enumerate(moves)
                ],
            )
    return plays


def dump(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the three tables, in key order."""
    with engine.connect() as conn:
        return {
            table.name: [tuple(r) for r in conn.execute(select(table).order_by(*table.primary_key.columns))]
            for table in (legacy_matches, legacy_seats, legacy_actions)
        }


def revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return migrate.current_revision(conn)


def test_a_pre_migration_database_is_stamped_and_upgraded_in_place(engine: Engine, empty_db_url: str) -> None:
    plays = fill_pre_migration_database(engine)
    before = dump(engine)
    with engine.connect() as conn:
        assert not inspect(conn).has_table("alembic_version")
        assert migrate.is_pre_alembic(conn)

    open_database(empty_db_url).dispose()

    assert revision(engine) == migrate.head()
    assert dump(engine) == before  # not a row touched
    assert sum(len(rows) for rows in before.values()) == 3 + 6 + (3 + 6 + 2)

    settings = Settings(db_url=empty_db_url, bot_executor="thread", bot_workers=1, bot_time_budget_s=5.0)
    with TestClient(create_app(settings)) as client:
        for match_id, moves in plays.items():
            view = client.get(f"/api/matches/{match_id}").json()
            assert [e["action"] for e in view["log"]][: len(moves)] == moves
            assert [p["name"] for p in view["players"]] == [f"{match_id} player 0", f"{match_id} player 1"]
        done = client.get("/api/matches/done").json()
        assert done["terminal"] and done["hotseat"] and done["scores"] == [4, 2]

        # A person plays on: seat 1 of "open" makes its second claim with its old token.
        view = client.get("/api/matches/open").json()
        assert view["current_player"] == 1 and view["version"] == 3
        r = client.post("/api/matches/open/actions", json={"token": TOKENS["open", 1], "version": 3, "action": "d"})
        assert r.status_code == 200, r.text
        assert [e["action"] for e in r.json()["log"]] == ["a", "b", "c", "d"]
        assert r.json()["current_player"] == 0

        # The bot, whose turn it was when the old server stopped, resumes at start-up.
        deadline = time.monotonic() + 10
        view = client.get("/api/matches/bot").json()
        while view["ply"] < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
            view = client.get("/api/matches/bot").json()
        assert view["ply"] == 4 and view["current_player"] == 0
        claim = {"token": TOKENS["bot", 0], "version": 4, "action": view["legal"]["claim"][0]}
        r = client.post("/api/matches/bot/actions", json=claim)
        assert r.status_code == 200, r.text

    assert len(dump(engine)["actions"]) == len(before["actions"]) + 1 + 2 + 1


def test_a_fresh_database_is_made_by_the_migrations_and_matches_store_py(engine: Engine, empty_db_url: str) -> None:
    with engine.connect() as conn:
        assert inspect(conn).get_table_names() == []
    open_database(empty_db_url).dispose()
    with engine.connect() as conn:
        assert set(inspect(conn).get_table_names()) == {"alembic_version", *metadata.tables}
        assert migrate.current_revision(conn) == migrate.head()
        # A change to the tables in store.py without a migration shows up here.
        differences = compare_metadata(MigrationContext.configure(conn), metadata)
    assert differences == []


def test_revision_0001_builds_what_create_all_built(engine: Engine) -> None:
    """Revision 0001 is the pre-migration schema exactly, which is why stamping it is right."""
    with engine.begin() as conn:
        command.upgrade(migrate.alembic_config(conn), migrate.BASELINE)
    with engine.connect() as conn:
        assert migrate.current_revision(conn) == migrate.BASELINE
        assert compare_metadata(MigrationContext.configure(conn), LEGACY) == []


def test_a_second_start_changes_nothing(engine: Engine, empty_db_url: str) -> None:
    assert migrate.upgrade(engine) == (None, migrate.head())
    assert migrate.upgrade(engine) == (migrate.head(), migrate.head())
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM alembic_version")).scalar_one() == 1
        if conn.dialect.name == "sqlite":  # enforcement is back on after migrating
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar_one() == 1


def test_a_half_made_old_database_is_refused_untouched(engine: Engine) -> None:
    legacy_matches.create(engine)
    with pytest.raises(migrate.MigrationError, match=r"missing \['actions', 'seats'\]"):
        migrate.upgrade(engine)
    with engine.connect() as conn:
        assert set(inspect(conn).get_table_names()) == {"matches"}


def test_the_command_line_shows_the_revision(
    engine: Engine, empty_db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    LEGACY.create_all(engine)
    assert migrate.main(["current", "--db", empty_db_url]) == 0
    assert capsys.readouterr().out.strip() == f"database: (none: made before migrations); newest: {migrate.head()}"
    assert migrate.main(["upgrade", "--db", empty_db_url]) == 0
    assert migrate.main(["current", "--db", empty_db_url]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"database: {migrate.head()}; newest: {migrate.head()}"
