"""SQLAlchemy tables and the repository that rooms persist through.

Three tables: ``matches`` (header and a version counter), ``seats`` (who sits where and a
hash of each seat's secret token) and ``actions`` (the move log, one row per ply).  Every
accepted action is one transaction that inserts its row and bumps the version with a
compare-and-set, so a crash (``kill -9``) never loses an acknowledged action and never
half-applies one.  SQLite runs in WAL mode with ``synchronous=NORMAL``: a committed
transaction survives the death of the process (only an OS crash could drop the last
commits), which is the guarantee the issue asks for at a fraction of FULL's cost.

The tables are made and changed only by the migrations (:mod:`tabletop.server.migrate`),
which the store runs on start; a change to a table here needs a new migration
(``tests/server/test_migrations.py`` fails without one).
"""

from __future__ import annotations

import datetime as _dt
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    delete,
    event,
    false,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool

from tabletop.server import migrate
from tabletop.server.bus import CHANNEL

metadata = MetaData()


def _match_key() -> Column[str]:
    """The ``match_id`` column that starts the key of a match's rows (seats, actions, table,
    chat): they go with their match.  A new Column each time, as each table needs its own."""
    return Column("match_id", String(32), ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)


matches = Table(
    "matches",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("game", String(32), nullable=False),
    Column("config", JSON, nullable=False),
    Column("hotseat", Boolean, nullable=False, default=False),
    Column("created", String(40), nullable=False),
    Column("version", Integer, nullable=False, default=0),
    Column("finished", Boolean, nullable=False, default=False),
    Column("result", JSON, nullable=True),
    # Asked for rated and not made unrated since (server/ratings.py says when a match is rated).
    Column("rated", Boolean, nullable=False, default=False, server_default=false()),
)

seats = Table(
    "seats",
    metadata,
    _match_key(),
    Column("seat", Integer, primary_key=True),
    Column("name", String(80), nullable=False),
    Column("agent", String(40), nullable=False),
    Column("token_hash", String(64), nullable=True),
    # The account the seat is bound to: then only that account's session acts for it.
    Column(
        "account_id", Integer, ForeignKey("accounts.id", ondelete="SET NULL", name="fk_seats_account_id"), nullable=True
    ),
)

actions = Table(
    "actions",
    metadata,
    _match_key(),
    Column("ply", Integer, primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("action", Text, nullable=False),
    Column("at", String(40), nullable=False),
)

# The lobby's tables (tabletop.server.lobby; docs/server.md, "Lobby, clocks and takeover").
lobby_games = Table(
    "lobby_games",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("game", String(32), nullable=False),
    Column("setup", JSON, nullable=False),
    Column("status", String(12), nullable=False, index=True),
    Column("public", Boolean, nullable=False),
    Column("created", String(40), nullable=False),
)
"""Games gathering players; ``id`` becomes the match's id when the game starts."""

match_tables = Table(
    "match_tables",
    metadata,
    _match_key(),
    Column("public", Boolean, nullable=False),
    Column("settings", JSON, nullable=False),
    Column("clock", JSON, nullable=True),
    Column("seat_status", JSON, nullable=False),
    Column("ended", JSON, nullable=True),
    Column("rematch", String(32), nullable=True),
)
"""What a match started from the lobby has besides its moves: clock, seat status, end."""

chat_messages = Table(
    "chat_messages",
    metadata,
    _match_key(),
    Column("n", Integer, primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("text", Text, nullable=False),
    Column("at", String(40), nullable=False),
)


# ----- accounts and ratings (server/accounts.py, server/ratings.py) --------------------

accounts = Table(
    "accounts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(64), nullable=False),
    Column("name_key", String(64), nullable=False, unique=True),
    Column("password_hash", String(200), nullable=False),
    Column("seat_key", String(64), nullable=False),
    Column("created", String(40), nullable=False),
)

sessions = Table(
    "sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("csrf", String(64), nullable=False),
    Column("created", String(40), nullable=False),
    Column("expires", Integer, nullable=False),
)

ratings = Table(
    "ratings",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("game", String(32), primary_key=True),
    Column("family", String(16), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("updated", String(40), nullable=False),
)

rating_events = Table(
    "rating_events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("match_id", String(32), ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("game", String(32), nullable=False),
    Column("family", String(16), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("rank", Integer, nullable=False),
    Column("mu_before", Float, nullable=False),
    Column("sigma_before", Float, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("at", String(40), nullable=False),
    UniqueConstraint("match_id", "account_id", name="uq_rating_events_match_account"),
)


class StaleVersionError(Exception):
    """The match's stored version is not the one the writer started from."""


@dataclass(frozen=True, slots=True)
class SeatRow:
    """One stored seat."""

    seat: int
    name: str
    agent: str
    token_hash: str | None
    account_id: int | None = None


@dataclass(frozen=True, slots=True)
class MatchRow:
    """One stored match with its seats and its action log."""

    id: str
    game: str
    config: dict[str, Any]
    hotseat: bool
    created: str
    version: int
    finished: bool
    seats: tuple[SeatRow, ...]
    actions: tuple[tuple[int, str], ...]
    """``(seat, notation)`` per ply."""
    rated: bool = False
    action_ms: tuple[int, ...] = ()
    """When each action was stored, in epoch milliseconds (the clocks replay their switches
    from these, whichever process accepted the action)."""


def now() -> str:
    """The current UTC time as ISO text."""
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")


def iso_at(seconds: float) -> str:
    """A :func:`time.time` reading as the ISO text :func:`now` stores."""
    return _dt.datetime.fromtimestamp(seconds, _dt.UTC).isoformat(timespec="milliseconds")


def iso_to_ms(at: str) -> int:
    """An ISO time stored by :func:`now` as epoch milliseconds."""
    return round(_dt.datetime.fromisoformat(at).timestamp() * 1000)


def make_engine(url: str) -> Engine:
    """An engine for ``url``, with SQLite tuned for durability on process death."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)
    memory = parsed.database in (None, "", ":memory:")
    engine = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": 30},
        poolclass=StaticPool if memory else None,
    )

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        if not memory:
            cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    return engine


class Store:
    """The repository: every read and write the rooms need, each in its own transaction."""

    def __init__(self, url: str, clock: Callable[[], float] = time.time) -> None:
        self.engine = make_engine(url)
        self.clock = clock
        """Stamps each action (the server's time source: the clocks replay switches at these)."""
        self.notifies = self.engine.dialect.name == "postgresql"
        """Whether each committed change is announced on the bus (``server/bus.py``)."""
        try:
            migrate.upgrade(self.engine)
        except BaseException:
            self.engine.dispose()
            raise

    def ping(self) -> None:
        """One round trip to the database (the health check); raises if it cannot be reached."""
        with self.engine.connect() as conn:
            conn.execute(select(1))

    def close(self) -> None:
        """Releases the connection pool."""
        self.engine.dispose()

    def create_match(
        self,
        match_id: str,
        game: str,
        config: dict[str, Any],
        hotseat: bool,
        seat_rows: Sequence[SeatRow],
        rated: bool = False,
    ) -> None:
        """Stores a new match at version 0."""
        with self.engine.begin() as conn:
            conn.execute(
                insert(matches).values(
                    id=match_id,
                    game=game,
                    config=config,
                    hotseat=hotseat,
                    created=now(),
                    version=0,
                    finished=False,
                    rated=rated,
                )
            )
            conn.execute(
                insert(seats),
                [
                    {"match_id": match_id, "seat": s.seat, "name": s.name, "agent": s.agent, "token_hash": s.token_hash}
                    for s in seat_rows
                ],
            )

    def load_match(self, match_id: str) -> MatchRow | None:
        """The stored match, or ``None``."""
        with self.engine.connect() as conn:
            row = conn.execute(select(matches).where(matches.c.id == match_id)).first()
            if row is None:
                return None
            seat_rows = conn.execute(select(seats).where(seats.c.match_id == match_id).order_by(seats.c.seat)).all()
            action_rows = conn.execute(
                select(actions.c.seat, actions.c.action, actions.c.at)
                .where(actions.c.match_id == match_id)
                .order_by(actions.c.ply)
            ).all()
        config = row.config if isinstance(row.config, dict) else json.loads(row.config)
        return MatchRow(
            id=row.id,
            game=row.game,
            config=config,
            hotseat=bool(row.hotseat),
            created=row.created,
            version=row.version,
            finished=bool(row.finished),
            seats=tuple(SeatRow(s.seat, s.name, s.agent, s.token_hash, s.account_id) for s in seat_rows),
            actions=tuple((a.seat, a.action) for a in action_rows),
            rated=bool(row.rated),
            action_ms=tuple(iso_to_ms(a.at) for a in action_rows),
        )

    def append_action(
        self,
        match_id: str,
        ply: int,
        seat: int,
        action: str,
        version: int,
        result: dict[str, Any] | None,
    ) -> None:
        """Commits action ``ply`` and moves the match from ``version`` to ``version + 1``.

        Raises:
            StaleVersionError: if another writer changed the match first (nothing is written).
        """
        with self.engine.begin() as conn:
            bumped = conn.execute(
                update(matches)
                .where(matches.c.id == match_id, matches.c.version == version)
                .values(version=version + 1, finished=result is not None, result=result)
            )
            if bumped.rowcount != 1:
                raise StaleVersionError(match_id)
            at = iso_at(self.clock())
            conn.execute(insert(actions).values(match_id=match_id, ply=ply, seat=seat, action=action, at=at))
            self._announce(conn, match_id, version + 1)

    def remove_last_action(self, match_id: str, ply: int, version: int) -> None:
        """Deletes action ``ply`` (an undo) and bumps the version.

        Raises:
            StaleVersionError: if another writer changed the match first.
        """
        with self.engine.begin() as conn:
            bumped = conn.execute(
                update(matches)
                .where(matches.c.id == match_id, matches.c.version == version)
                .values(version=version + 1)
            )
            if bumped.rowcount != 1:
                raise StaleVersionError(match_id)
            conn.execute(delete(actions).where(actions.c.match_id == match_id, actions.c.ply == ply))
            self._announce(conn, match_id, version + 1)

    def _announce(self, conn: Connection, match_id: str, version: int) -> None:
        announce(conn, match_id, version)

    def unfinished_bot_matches(self) -> list[str]:
        """Ids of unfinished matches with at least one bot seat (to resume after a restart)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(matches.c.id)
                .where(matches.c.finished.is_(False))
                .where(matches.c.id.in_(select(seats.c.match_id).where(seats.c.agent != "human")))
            ).all()
        return [r.id for r in rows]

    def idle_bot_matches(self, idle_since: str) -> list[tuple[str, int]]:
        """``(id, version)`` of unfinished matches with a bot seat and no action stored since
        ``idle_since`` (ISO time; a match with no action counts from its creation): the
        leader looks among them for a bot turn whose process died."""
        # Per match, through the actions' primary key: only unfinished matches are read.
        last_at = select(func.max(actions.c.at)).where(actions.c.match_id == matches.c.id).scalar_subquery()
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(matches.c.id, matches.c.version)
                .where(matches.c.finished.is_(False))
                .where(matches.c.id.in_(select(seats.c.match_id).where(seats.c.agent != "human")))
                .where(func.coalesce(last_at, matches.c.created) < idle_since)
            ).all()
        return [(r.id, r.version) for r in rows]

    def count_actions(self, match_id: str) -> int:
        """How many actions are stored for a match (used by tests and the benchmark)."""
        with self.engine.connect() as conn:
            return len(conn.execute(select(actions.c.ply).where(actions.c.match_id == match_id)).all())


def announce(conn: Connection, match_id: str, version: int) -> None:
    """Tells every process (the bus) that ``match_id`` is at ``version``, on PostgreSQL.

    Inside the writing transaction: PostgreSQL delivers the notification on commit only.
    """
    if conn.dialect.name == "postgresql":
        conn.execute(select(func.pg_notify(CHANNEL, f"{match_id} {version}")))
