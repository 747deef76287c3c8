"""Schema migrations: the store brings its database to the newest revision on every start.

The migrations are Alembic scripts shipped inside the package (``migrations/versions/``),
configured here from Python, so no ``alembic.ini`` is needed.  :func:`upgrade` runs in one
transaction (on PostgreSQL, DDL included, under an advisory lock so that two servers
starting at once do not both migrate):

- a fresh database gets every migration, from 0001;
- a database made before migrations existed (``metadata.create_all``: the three tables and
  no ``alembic_version``) is *stamped* at 0001, which is exactly its schema, without
  touching a row, and then upgraded like any other;
- a database already at the newest revision costs one ``SELECT``.

For developers (see docs/server.md, "Migrations")::

    python -m tabletop.server.migrate current [--db URL]   # the database's revision, and the newest
    python -m tabletop.server.migrate history
    python -m tabletop.server.migrate upgrade [--db URL]   # what the server does on start
    python -m tabletop.server.migrate revision -m "add seat colours" [--autogenerate]
"""

from __future__ import annotations

import argparse
import functools
import logging
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, inspect, text

from tabletop.server.config import DEFAULT_DB_URL

log = logging.getLogger("tabletop.server.migrate")
if logging.getLogger("alembic").level == logging.NOTSET:
    # Alembic says "Context impl SQLiteImpl." and more at INFO on every start; the
    # server's own line per stamp or upgrade (below) is enough unless asked otherwise.
    logging.getLogger("alembic").setLevel(logging.WARNING)

MIGRATIONS = Path(__file__).with_name("migrations")
"""Alembic's script location: ``env.py``, ``script.py.mako`` and ``versions/``."""

BASELINE = "0001"
"""The revision whose schema is what ``metadata.create_all`` made before migrations."""

PRE_ALEMBIC_TABLES = ("matches", "seats", "actions")
"""The tables a pre-migration database has (and the only ones it has of ours)."""

PG_LOCK_KEY = 0x7AB1E70D
"""The PostgreSQL advisory lock held while migrating (any constant unique to this app)."""


class MigrationError(Exception):
    """The database cannot be brought to the newest schema (e.g. a half-made old one)."""


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration, built in code; ``connection`` is what ``env.py`` migrates."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    # rev0002_add_seat_colours.py: a valid module name (mypy checks these files too).
    cfg.set_main_option("file_template", "rev%%(rev)s_%%(slug)s")
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


@functools.cache
def head() -> str:
    """The newest revision (one head: migrations form a single line)."""
    heads = ScriptDirectory.from_config(alembic_config()).get_heads()
    if len(heads) != 1:
        raise MigrationError(f"the migrations have {len(heads)} heads {sorted(heads)}; merge them into one")
    return heads[0]


def current_revision(connection: Connection) -> str | None:
    """The database's revision, or ``None`` if it has no ``alembic_version`` (fresh or pre-migration)."""
    return MigrationContext.configure(connection).get_current_revision()


def is_pre_alembic(connection: Connection) -> bool:
    """Whether the database was made by the server before migrations existed.

    Raises:
        MigrationError: if only some of its tables are there (not something the old
            server could have made; nothing is changed).
    """
    present = set(inspect(connection).get_table_names()) & set(PRE_ALEMBIC_TABLES)
    if present and len(present) < len(PRE_ALEMBIC_TABLES):
        missing = sorted(set(PRE_ALEMBIC_TABLES) - present)
        raise MigrationError(f"the database has no alembic_version and only some tabletop tables (missing {missing})")
    return bool(present)


def upgrade(engine: Engine) -> tuple[str | None, str]:
    """Brings the database to the newest revision; returns ``(revision before, revision after)``.

    A pre-migration database is first stamped at :data:`BASELINE` (its rows untouched), so
    the revision before is then reported as ``"0001"``.
    """
    target = head()
    with engine.connect() as conn:
        sqlite = conn.dialect.name == "sqlite"
        if sqlite:
            # SQLite applies ON DELETE CASCADE when a batch migration drops a table to
            # rebuild it: enforcement must be off (outside a transaction) while migrating.
            conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
            conn.commit()
        try:
            with conn.begin():
                if conn.dialect.name == "postgresql":
                    conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_LOCK_KEY})
                before = current_revision(conn)
                if before is None and is_pre_alembic(conn):
                    command.stamp(alembic_config(conn), BASELINE)
                    log.info("database made before migrations: stamped at revision %s", BASELINE)
                    before = BASELINE
                if before != target:
                    command.upgrade(alembic_config(conn), target)
                    log.info("database upgraded from revision %s to %s", before or "(empty)", target)
            if sqlite and before != target:
                broken = conn.exec_driver_sql("PRAGMA foreign_key_check").all()
                if broken:
                    raise MigrationError(f"the migration left rows without their match: {broken[:5]}")
        finally:
            if sqlite:
                conn.rollback()
                conn.exec_driver_sql("PRAGMA foreign_keys=ON")
                conn.commit()
    return before, target


def _default_db() -> str:
    return os.environ.get("TABLETOP_DB") or DEFAULT_DB_URL


def _revision_config(connection: Connection | None = None) -> Config:
    """The configuration for writing a script: ruff tidies it, when it is installed (``.[dev]``)."""
    cfg = alembic_config(connection)
    ruff = Path(sys.executable).with_name("ruff")
    if ruff.exists():
        cfg.set_section_option("post_write_hooks", "hooks", "ruff_fix, ruff_format")
        for hook, options in (("ruff_fix", "check --fix-only --quiet"), ("ruff_format", "format --quiet")):
            cfg.set_section_option("post_write_hooks", f"{hook}.type", "exec")
            cfg.set_section_option("post_write_hooks", f"{hook}.executable", str(ruff))
            cfg.set_section_option("post_write_hooks", f"{hook}.options", f"{options} REVISION_SCRIPT_FILENAME")
    return cfg


def _next_rev_id() -> str:
    """``0002`` after ``0001``: revisions are numbered in order."""
    return f"{int(head()) + 1:04d}"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tabletop.server.migrate``: see the module's docstring."""
    from tabletop.server.store import make_engine  # here: store imports this module

    parser = argparse.ArgumentParser(prog="python -m tabletop.server.migrate", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    for name, what in (("current", "show the database's revision and the newest"), ("upgrade", "upgrade to newest")):
        p = sub.add_parser(name, help=what)
        p.add_argument("--db", default=_default_db(), help="SQLAlchemy URL (default $TABLETOP_DB, else %(default)s)")
    sub.add_parser("history", help="list the revisions")
    rev = sub.add_parser("revision", help="write a new migration script in migrations/versions/")
    rev.add_argument("-m", "--message", required=True)
    rev.add_argument(
        "--autogenerate",
        action="store_true",
        help="fill it in from the difference between the tables in store.py and the newest revision",
    )
    args = parser.parse_args(argv)

    if args.cmd == "history":
        command.history(alembic_config())
        return 0
    if args.cmd == "revision":
        if not args.autogenerate:
            command.revision(_revision_config(), message=args.message, rev_id=_next_rev_id())
            return 0
        # Compare against a scratch SQLite database built by the migrations themselves.
        with tempfile.TemporaryDirectory() as tmp:
            engine = make_engine(f"sqlite:///{Path(tmp) / 'head.db'}")
            try:
                upgrade(engine)
                with engine.begin() as conn:
                    command.revision(
                        _revision_config(conn), message=args.message, autogenerate=True, rev_id=_next_rev_id()
                    )
            finally:
                engine.dispose()
        return 0
    engine = make_engine(args.db)
    try:
        if args.cmd == "upgrade":
            before, after = upgrade(engine)
            print(f"{before or '(empty)'} -> {after}" if before != after else f"already at {after}")
        else:
            with engine.connect() as conn:
                now = current_revision(conn) or (
                    "(none: made before migrations)" if is_pre_alembic(conn) else "(empty)"
                )
                print(f"database: {now}; newest: {head()}")
    finally:
        engine.dispose()
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    sys.exit(main())
