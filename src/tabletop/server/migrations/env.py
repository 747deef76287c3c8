"""Alembic's environment script: runs the migrations on the connection it is given.

:mod:`tabletop.server.migrate` always passes an open connection in
``config.attributes["connection"]`` (inside its transaction), so there is no URL to read and
no logging set-up here; offline (``--sql``) mode is not supported.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from tabletop.server.store import metadata

connection = context.config.attributes.get("connection")
if not isinstance(connection, Connection):
    raise RuntimeError("run migrations through tabletop.server.migrate, which passes a connection")
context.configure(
    connection=connection,
    target_metadata=metadata,
    # ALTER on SQLite needs batch mode (copy, drop, rename); it works on PostgreSQL too.
    render_as_batch=True,
)
with context.begin_transaction():
    context.run_migrations()
