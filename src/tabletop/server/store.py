"""The database: every table, the stores' one style, and the match store.

**The stores.** Each kind of stored thing has one store, a class built on the app's one
engine (:func:`open_database`): :class:`MatchStore` (matches, seats, actions, here),
``lobby_store.LobbyStore`` (lobby games), ``lobby_store.TableStore`` (the tables of lobby
matches: clocks, seat status, end), ``lobby_store.ChatStore``, ``lobby_store.PresenceStore``
(who holds a seat on a socket), ``accounts.AccountStore`` (accounts and sessions) and
``ratings.RatingStore``.  ``create_app`` builds each and hands it to the part that uses
it.  They share one shape: ``__init__(engine)`` (the match store also takes the clock that
stamps each action); each method is one transaction, run off the event loop
(``RoomManager.run_db``, ``asyncio.to_thread``); methods are named ``get_x`` (one row by
its key, or ``None``), ``list_x`` (rows; a page comes as the rows and the total),
``count_x``, ``add_x`` (an insert; :class:`DuplicateError` when its unique key is taken),
``update_x`` (a change; a compare-and-set that lost raises :class:`StaleVersionError`) and
``delete_x``; and each raises :class:`StoreError` or a subclass for what it cannot do.

**Matches.** ``matches`` (header and a version counter), ``seats`` (who sits where and a
hash of each seat's secret token) and ``actions`` (the move log, one row per ply).  Every
accepted action is one transaction that inserts its row and bumps the version with a
compare-and-set, so a crash (``kill -9``) never loses an acknowledged action and never
half-applies one.  SQLite runs in WAL mode with ``synchronous=NORMAL``: a committed
transaction survives the death of the process (only an OS crash could drop the last
commits), which is the guarantee the issue asks for at a fraction of FULL's cost.

The tables are made and changed only by the migrations (:mod:`tabletop.server.migrate`),
which :func:`open_database` runs; a change to a table here needs a new migration
(``tests/server/test_migrations.py`` fails without one).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
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
    bindparam,
    create_engine,
    delete,
    event,
    false,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Dialect, make_url
from sqlalchemy.pool import PoolProxiedConnection, StaticPool
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement, Update

from tabletop.server import migrate
from tabletop.server.bus import SEATS_CHANNEL, Step, match_channel, notice_payload

log = logging.getLogger("tabletop.server")

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


seat_presence = Table(
    "seat_presence",
    metadata,
    _match_key(),
    Column("seat", Integer, primary_key=True),
    Column("process", Integer, primary_key=True),
    Column("since_ms", BigInteger, nullable=False),
)
"""Who holds a seat of a lobby match on a socket (several processes on PostgreSQL): a row per
seat and server process (its presence origin, which names its bus session) while that
process has a socket of the seat, and a row of process ``lobby_store.NOBODY`` once the
seat's last socket anywhere closed (``since_ms``: when).  Whichever process leads reads
them: a seat whose rows name only processes without a session is gone."""

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


class StoreError(Exception):
    """A store could not do what it was asked (the base of the stores' own errors)."""


class StaleVersionError(StoreError):
    """The match's stored version is not the one the writer started from (a compare-and-set lost)."""


class DuplicateError(StoreError):
    """An ``add_...`` found its unique key taken (a name, say)."""


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
    """``(seat, notation)`` per ply, from the ply :meth:`MatchStore.get_match` was asked for."""
    rated: bool = False
    action_ms: tuple[int, ...] = ()
    """When each action was stored, in epoch milliseconds (the clocks replay their switches
    from these, whichever process accepted the action)."""
    first_ply: int = 0
    """The ply of ``actions[0]`` and ``action_ms[0]`` (:meth:`MatchStore.get_match`'s ``from_ply``)."""


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


@dataclass(frozen=True, slots=True)
class AppendAction:
    """A write of :meth:`MatchStore.commit_writes`: action ``ply``, made on ``version`` of the match."""

    match_id: str
    version: int
    ply: int
    seat: int
    action: str
    result: dict[str, Any] | None
    """The outcome if this action ends the game."""


@dataclass(frozen=True, slots=True)
class RemoveAction:
    """A write of :meth:`MatchStore.commit_writes`: takes back action ``ply`` (an undo), made on ``version``."""

    match_id: str
    version: int
    ply: int


class _Statement:
    """A statement compiled once to the driver's own SQL text and parameter style."""

    def __init__(self, statement: ClauseElement, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)
        self.text = compiled.string
        self._order = list(compiled.positiontup or ()) if dialect.positional else None

    def args(self, **values: Any) -> Any:
        """The parameters as the driver takes them (a tuple in order, or the mapping)."""
        return values if self._order is None else tuple(values[name] for name in self._order)


class _WriteSql:
    """The statements of :meth:`MatchStore.commit_writes`, for one dialect."""

    def __init__(self, dialect: Dialect) -> None:
        def cas(statement: Update) -> Update:
            return statement.where(matches.c.id == bindparam("id"), matches.c.version == bindparam("old"))

        self.bump_and_finish = _Statement(
            cas(update(matches)).values(
                version=bindparam("new"), finished=bindparam("finished"), result=bindparam("result")
            ),
            dialect,
        )
        self.bump = _Statement(cas(update(matches)).values(version=bindparam("new")), dialect)
        self.insert_action = _Statement(
            insert(actions).values(
                match_id=bindparam("match_id"),
                ply=bindparam("ply"),
                seat=bindparam("seat"),
                action=bindparam("action"),
                at=bindparam("at"),
            ),
            dialect,
        )
        self.delete_action = _Statement(
            delete(actions).where(actions.c.match_id == bindparam("match_id"), actions.c.ply == bindparam("ply")),
            dialect,
        )
        self.notify = _Statement(select(func.pg_notify(bindparam("channel"), bindparam("payload"))), dialect)
        self.append_and_notify = _append_and_notify(cas, dialect) if dialect.name == "postgresql" else None
        """On PostgreSQL an action is one statement: the compare-and-set, the action's row
        and the notice, in one round trip (a row back when the version was still ``old``)."""


def _append_and_notify(cas: Callable[[Update], Update], dialect: Dialect) -> _Statement:
    """``WITH bumped AS (UPDATE matches ... RETURNING id), added AS (INSERT INTO actions
    SELECT ... FROM bumped RETURNING ply) SELECT pg_notify(...) FROM added``: nothing is
    inserted or announced unless the compare-and-set matched.

    Three statements an action cost the database thread and PostgreSQL three round trips
    of parsing and binding each (``docs/benchmarks.md``, "One statement an action").
    """
    bumped = (
        cas(update(matches))
        .values(version=bindparam("new"), finished=bindparam("finished"), result=bindparam("result"))
        .returning(matches.c.id)
        .cte("bumped")
    )
    added = (
        insert(actions)
        .from_select(
            ["match_id", "ply", "seat", "action", "at"],
            select(
                bumped.c.id,
                bindparam("ply", type_=Integer),
                bindparam("seat", type_=Integer),
                bindparam("action", type_=Text),
                bindparam("at", type_=String),
            ),
        )
        .returning(actions.c.ply)
        .cte("added")
    )
    return _Statement(select(func.pg_notify(bindparam("channel"), bindparam("payload"))).select_from(added), dialect)


def open_database(url: str) -> Engine:
    """The engine of every store of one app, its database brought to the newest schema
    (:mod:`tabletop.server.migrate`); the caller disposes of it."""
    engine = make_engine(url)
    try:
        migrate.upgrade(engine)
    except BaseException:
        engine.dispose()
        raise
    return engine


class MatchStore:
    """The matches: their seats and action logs, and the group commit of actions."""

    def __init__(self, engine: Engine, clock: Callable[[], float] = time.time) -> None:
        self.engine = engine
        self.clock = clock
        """Stamps each action (the server's time source: the clocks replay switches at these)."""
        self.notifies = self.engine.dialect.name == "postgresql"
        """Whether each committed change is announced on the bus (``server/bus.py``)."""
        self.commits_on_loop = self.engine.dialect.name == "sqlite"
        """Whether the rooms commit actions on the event loop (``RoomManager._write``): a
        SQLite commit is a local append to the WAL, cheaper than a hand-off to a thread; a
        database server's round trip is not."""
        self._sql = _WriteSql(self.engine.dialect)
        self._writer: PoolProxiedConnection | None = None
        """The connection that commits actions and undos, kept between batches (a
        checkout from the pool per batch cost as much CPU as the statements)."""
        self._writer_lock = threading.Lock()

    def ping(self) -> None:
        """One round trip to the database (the health check); raises if it cannot be reached."""
        with self.engine.connect() as conn:
            conn.execute(select(1))

    def close(self) -> None:
        """Gives back the connection that commits actions (the engine is its owner's to dispose of)."""
        with self._writer_lock:
            if self._writer is not None:
                self._writer.close()
                self._writer = None

    def add_match(
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

    def versions(self, match_ids: Sequence[str]) -> dict[str, int]:
        """The stored version of each of ``match_ids`` that exists."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(matches.c.id, matches.c.version).where(matches.c.id.in_(match_ids))).all()
        return {str(match_id): int(version) for match_id, version in rows}

    def get_match(self, match_id: str, from_ply: int = 0) -> MatchRow | None:
        """The stored match, or ``None``; its ``actions`` from ply ``from_ply`` on (a cache
        that holds the earlier ones reads only what it lacks)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(matches).where(matches.c.id == match_id)).first()
            if row is None:
                return None
            seat_rows = conn.execute(select(seats).where(seats.c.match_id == match_id).order_by(seats.c.seat)).all()
            action_rows = conn.execute(
                select(actions.c.seat, actions.c.action, actions.c.at)
                .where(actions.c.match_id == match_id, actions.c.ply >= from_ply)
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
            first_ply=from_ply,
        )

    def add_action(
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
        self._commit_one(AppendAction(match_id, version, ply, seat, action, result))

    def delete_last_action(self, match_id: str, ply: int, version: int) -> None:
        """Deletes action ``ply`` (an undo) and bumps the version.

        Raises:
            StaleVersionError: if another writer changed the match first.
        """
        self._commit_one(RemoveAction(match_id, version, ply))

    def _commit_one(self, write: AppendAction | RemoveAction) -> None:
        if not self._commit([write])[0]:
            raise StaleVersionError(write.match_id)

    def commit_writes(self, writes: Sequence[AppendAction | RemoveAction]) -> list[bool | Exception]:
        """Commits many actions and undos, of any matches, in one transaction (a group commit).

        Each write is its own compare-and-set: one whose match is no longer at its
        ``version`` writes nothing and is ``False`` in the answer, the others are ``True``
        and committed together.  The statements go to the driver as text compiled once
        (:class:`_WriteSql`): building and compiling SQLAlchemy statements per action cost
        more CPU than the database's own work.  If the batch fails for another reason (a
        constraint, a lost connection), each write is tried again in a transaction of its
        own, so a bad write fails alone: its place in the answer is the exception.
        """
        if len(writes) > 1:
            try:
                return list(self._commit(writes))
            except Exception:
                log.warning("a batch of %d writes failed; committing them one by one", len(writes), exc_info=True)
        answers: list[bool | Exception] = []
        for write in writes:
            try:
                answers.extend(self._commit([write]))
            except Exception as exc:
                answers.append(exc)
        return answers

    def _commit(self, writes: Sequence[AppendAction | RemoveAction]) -> list[bool]:
        with self._writer_lock:
            if self._writer is None:
                self._writer = self.engine.raw_connection()
            try:
                return self._commit_on(self._writer, writes)
            except BaseException:
                # A server's connection may be broken: the next batch takes a fresh one.  A
                # SQLite file has no connection to lose (and an in-memory database would
                # be lost with it), so that one is kept, rolled back.
                if self.engine.dialect.name != "sqlite":
                    writer, self._writer = self._writer, None
                    with contextlib.suppress(Exception):
                        writer.invalidate()
                raise

    def _commit_on(self, raw: PoolProxiedConnection, writes: Sequence[AppendAction | RemoveAction]) -> list[bool]:
        sql = self._sql
        at = iso_at(self.clock())
        done: list[bool] = []
        try:
            cursor = raw.cursor()
            try:
                for write in writes:
                    if isinstance(write, AppendAction) and sql.append_and_notify is not None:
                        appended = Step(write.ply, write.seat, write.action)
                        cursor.execute(
                            sql.append_and_notify.text,
                            sql.append_and_notify.args(
                                new=write.version + 1,
                                finished=write.result is not None,
                                result=json.dumps(write.result),
                                id=write.match_id,
                                old=write.version,
                                ply=write.ply,
                                seat=write.seat,
                                action=write.action,
                                at=at,
                                channel=match_channel(write.match_id),
                                payload=notice_payload(write.match_id, write.version + 1, appended),
                            ),
                        )
                        done.append(cursor.rowcount == 1)
                        continue
                    if isinstance(write, AppendAction):
                        # As SQLAlchemy's JSON type writes it: ``null`` while the game goes on.
                        result = json.dumps(write.result)
                        cursor.execute(
                            sql.bump_and_finish.text,
                            sql.bump_and_finish.args(
                                new=write.version + 1,
                                finished=write.result is not None,
                                result=result,
                                id=write.match_id,
                                old=write.version,
                            ),
                        )
                        if cursor.rowcount != 1:
                            done.append(False)
                            continue
                        cursor.execute(
                            sql.insert_action.text,
                            sql.insert_action.args(
                                match_id=write.match_id, ply=write.ply, seat=write.seat, action=write.action, at=at
                            ),
                        )
                    else:
                        cursor.execute(
                            sql.bump.text, sql.bump.args(new=write.version + 1, id=write.match_id, old=write.version)
                        )
                        if cursor.rowcount != 1:
                            done.append(False)
                            continue
                        cursor.execute(
                            sql.delete_action.text, sql.delete_action.args(match_id=write.match_id, ply=write.ply)
                        )
                    if self.notifies:
                        # Inside the transaction: PostgreSQL delivers it on commit only.
                        step = Step(write.ply, write.seat, write.action) if isinstance(write, AppendAction) else None
                        payload = notice_payload(write.match_id, write.version + 1, step)
                        cursor.execute(
                            sql.notify.text, sql.notify.args(channel=match_channel(write.match_id), payload=payload)
                        )
                    done.append(True)
            finally:
                cursor.close()
            raw.commit()
        except BaseException:
            with contextlib.suppress(Exception):
                raw.rollback()
            raise
        return done

    def list_unfinished_bot_matches(self) -> list[str]:
        """Ids of unfinished matches with at least one bot seat (to resume after a restart)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(matches.c.id)
                .where(matches.c.finished.is_(False))
                .where(matches.c.id.in_(select(seats.c.match_id).where(seats.c.agent != "human")))
            ).all()
        return [r.id for r in rows]

    def list_idle_bot_matches(self, idle_since: str) -> list[tuple[str, int]]:
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

    def update_seat_account(
        self, match_id: str, seat: int, account_id: int, name: str, token_hash: str, unrate: bool
    ) -> None:
        """Binds a stored seat to an account (its name and token too); clears ``rated`` if asked.

        Every process that holds the match hears of it and reloads its seats, so none takes
        the seat's link alone any more (the match's version stays: nothing was played).
        """
        with self.engine.begin() as conn:
            conn.execute(
                update(seats)
                .where(seats.c.match_id == match_id, seats.c.seat == seat)
                .values(account_id=account_id, name=name, token_hash=token_hash)
            )
            if unrate:
                conn.execute(update(matches).where(matches.c.id == match_id).values(rated=False))
            if conn.dialect.name == "postgresql":  # other processes reload the seats (the bus)
                conn.execute(select(func.pg_notify(SEATS_CHANNEL, f"{match_id} {seat}")))

    def update_unrated(self, match_id: str) -> None:
        """Makes a match unrated (an abort, say): nothing is rated when it ends."""
        with self.engine.begin() as conn:
            conn.execute(update(matches).where(matches.c.id == match_id).values(rated=False))

    def count_actions(self, match_id: str) -> int:
        """How many actions are stored for a match (used by tests and the benchmark)."""
        with self.engine.connect() as conn:
            return len(conn.execute(select(actions.c.ply).where(actions.c.match_id == match_id)).all())


def announce(conn: Connection, match_id: str, version: int) -> None:
    """Tells the processes that hold ``match_id`` (the bus) that it is at ``version``, on PostgreSQL.

    Inside the writing transaction: PostgreSQL delivers the notification on commit only.
    """
    if conn.dialect.name == "postgresql":
        conn.execute(select(func.pg_notify(match_channel(match_id), f"{match_id} {version}")))
