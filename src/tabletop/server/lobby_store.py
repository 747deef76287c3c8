"""The lobby's stores: :class:`LobbyStore` (``lobby_games``), :class:`TableStore`
(``match_tables``), :class:`ChatStore` (``chat_messages``) and :class:`PresenceStore`
(``seat_presence``), in the stores' one style (:mod:`tabletop.server.store`).

The lobby and the tables run their methods on the rooms' one database thread
(``RoomManager.run_db``), so their writes are ordered with the actions' (an action's
commit always comes before the clock written after it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, delete, func, insert, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from tabletop.server.bus import CHAT_CHANNEL, PRESENCE_CHANNEL
from tabletop.server.store import (
    StaleVersionError,
    StoreError,
    announce,
    chat_messages,
    lobby_games,
    match_tables,
    matches,
    now,
    seat_presence,
    seats,
)

OPEN = "open"
STARTING = "starting"
"""Full (or started with bots) and being made a match: decided once, under the row's lock."""
STARTED = "started"
"""Its match and table are stored."""
CANCELLED = "cancelled"


def _json(value: Any) -> Any:
    """A JSON column's value (some drivers hand back text)."""
    return json.loads(value) if isinstance(value, str) else value


@dataclass(frozen=True, slots=True)
class TableRow:
    """One stored ``match_tables`` row."""

    match_id: str
    public: bool
    settings: dict[str, Any]
    clock: dict[str, Any] | None
    seat_status: list[str]
    ended: dict[str, Any] | None
    rematch: str | None


LobbyRow = tuple[str, str, dict[str, Any], bool, str, str]
"""A stored lobby game: ``(id, game, setup, public, created, status)``."""

T = TypeVar("T")


def _lobby_row(r: Any) -> LobbyRow:
    return (r.id, r.game, _json(r.setup), bool(r.public), r.created, r.status)


class LobbyStore:
    """The lobby's games (``lobby_games``): opened, joined, started, cancelled, listed."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add_lobby_game(self, game_id: str, game: str, setup: dict[str, Any], public: bool) -> None:
        """Stores a new open lobby game."""
        with self.engine.begin() as conn:
            conn.execute(
                insert(lobby_games).values(
                    id=game_id, game=game, setup=setup, status=OPEN, public=public, created=now()
                )
            )

    def get_lobby_game(self, game_id: str) -> LobbyRow | None:
        """One lobby game (any status), or ``None``."""
        with self.engine.connect() as conn:
            r = conn.execute(select(lobby_games).where(lobby_games.c.id == game_id)).first()
        return None if r is None else _lobby_row(r)

    def update_lobby_game_with(
        self, game_id: str, change: Callable[[LobbyRow | None], tuple[T, dict[str, Any], str]]
    ) -> T:
        """Reads a lobby game with its row locked, lets ``change`` decide, and writes its answer.

        ``change`` gets the stored game (``None`` if there is none) and returns its result, the
        new ``setup`` and the new ``status``; whatever it raises leaves the row as it was.  The
        lock (``FOR UPDATE`` on PostgreSQL; SQLite has one writer at a time) means two
        processes never give out the same seat, or start a game twice.
        """
        with self.engine.begin() as conn:
            r = conn.execute(select(lobby_games).where(lobby_games.c.id == game_id).with_for_update()).first()
            result, setup, status = change(None if r is None else _lobby_row(r))
            if r is not None:
                conn.execute(update(lobby_games).where(lobby_games.c.id == game_id).values(setup=setup, status=status))
        return result

    def update_lobby_game(self, game_id: str, setup: dict[str, Any], status: str) -> None:
        """Writes a lobby game's seats and status."""
        with self.engine.begin() as conn:
            conn.execute(update(lobby_games).where(lobby_games.c.id == game_id).values(setup=setup, status=status))

    def update_started(self, game_id: str) -> None:
        """A starting lobby game's match and table are stored: it is started."""
        with self.engine.begin() as conn:
            conn.execute(
                update(lobby_games)
                .where(lobby_games.c.id == game_id, lobby_games.c.status == STARTING)
                .values(status=STARTED)
            )

    def list_starting_games(self) -> list[LobbyRow]:
        """The lobby games being started (a process that died while starting one leaves it so)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(lobby_games).where(lobby_games.c.status == STARTING)).all()
        return [_lobby_row(r) for r in rows]

    def list_open_games(self, game: str | None, offset: int, limit: int) -> tuple[list[LobbyRow], int]:
        """Public open lobby games, newest first, and how many there are."""
        query = select(lobby_games).where(lobby_games.c.status == OPEN, lobby_games.c.public.is_(True))
        if game is not None:
            query = query.where(lobby_games.c.game == game)
        with self.engine.connect() as conn:
            total = conn.execute(select(func.count()).select_from(query.subquery())).scalar() or 0
            rows = conn.execute(
                query.order_by(lobby_games.c.created.desc(), lobby_games.c.id).offset(offset).limit(limit)
            ).all()
        return [_lobby_row(r) for r in rows], int(total)

    def count_open_games(self) -> int:
        """How many lobby games are open."""
        with self.engine.connect() as conn:
            return int(
                conn.execute(select(func.count()).select_from(lobby_games).where(lobby_games.c.status == OPEN)).scalar()
                or 0
            )

    def list_open_ids(self, ids: Collection[str]) -> set[str]:
        """Those of ``ids`` that are open lobby games."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(lobby_games.c.id).where(lobby_games.c.id.in_(list(ids)), lobby_games.c.status == OPEN)
            ).all()
        return {r.id for r in rows}

    def list_games_in_progress(
        self, game: str | None, offset: int, limit: int
    ) -> tuple[list[tuple[str, str, str]], int]:
        """Public unfinished lobby matches, newest first: ``(id, game, created)`` and the total."""
        query = (
            select(matches.c.id, matches.c.game, matches.c.created)
            .join(match_tables, matches.c.id == match_tables.c.match_id)
            .where(matches.c.finished.is_(False), match_tables.c.public.is_(True))
        )
        if game is not None:
            query = query.where(matches.c.game == game)
        with self.engine.connect() as conn:
            total = conn.execute(select(func.count()).select_from(query.subquery())).scalar() or 0
            rows = conn.execute(query.order_by(matches.c.created.desc()).offset(offset).limit(limit)).all()
        return [(r.id, r.game, r.created) for r in rows], int(total)

    def update_rematch(self, match_id: str, rematch_id: str) -> str:
        """Names ``rematch_id`` the match's rematch unless one is named already; returns the
        rematch's id (the first one named, whichever process named it)."""
        with self.engine.begin() as conn:
            conn.execute(
                update(match_tables)
                .where(match_tables.c.match_id == match_id, match_tables.c.rematch.is_(None))
                .values(rematch=rematch_id)
            )
            named = conn.execute(select(match_tables.c.rematch).where(match_tables.c.match_id == match_id)).scalar()
        return str(named or rematch_id)


class TableStore:
    """The tables of lobby matches (``match_tables``): clock, seat status, end and rematch."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add_table(self, row: TableRow) -> None:
        """Stores the table of a match that just started (after its ``matches`` row)."""
        with self.engine.begin() as conn:
            conn.execute(
                insert(match_tables).values(
                    match_id=row.match_id,
                    public=row.public,
                    settings=row.settings,
                    clock=row.clock,
                    seat_status=row.seat_status,
                    ended=row.ended,
                    rematch=row.rematch,
                )
            )

    def get_table(self, match_id: str) -> TableRow | None:
        """The match's table, or ``None`` (a match not started from the lobby)."""
        with self.engine.connect() as conn:
            r = conn.execute(select(match_tables).where(match_tables.c.match_id == match_id)).first()
        if r is None:
            return None
        return TableRow(
            r.match_id,
            bool(r.public),
            _json(r.settings),
            _json(r.clock),
            _json(r.seat_status),
            _json(r.ended),
            r.rematch,
        )

    def update_table(
        self,
        match_id: str,
        *,
        clock: dict[str, Any] | None,
        seat_status: list[str],
        ended: dict[str, Any] | None,
        rematch: str | None,
    ) -> None:
        """Writes what changes in a table (clock, seat status, end, rematch)."""
        with self.engine.begin() as conn:
            conn.execute(
                update(match_tables)
                .where(match_tables.c.match_id == match_id)
                .values(clock=clock, seat_status=seat_status, ended=ended, rematch=rematch)
            )
            if ended is not None:
                conn.execute(update(matches).where(matches.c.id == match_id).values(finished=True))

    def update_table_version(
        self,
        match_id: str,
        version: int,
        *,
        clock: dict[str, Any] | None,
        seat_status: list[str],
        ended: dict[str, Any] | None,
        rematch: str | None,
        seat_agent: tuple[int, str] | None = None,
    ) -> None:
        """A change of the table that changes the match (a seat taken over or back, a
        resignation, the end), as the match's next version: the same compare-and-set as an
        action's, so a process whose cache is behind is refused, and every process holding the
        match hears the new version and reloads the seats and the table.  ``seat_agent``: ``(seat, agent)``,
        who plays that seat from now on.

        Raises:
            StaleVersionError: if another writer changed the match first (nothing is written).
        """
        with self.engine.begin() as conn:
            values: dict[str, Any] = {"version": version + 1}
            if ended is not None:
                values["finished"] = True
            bumped = conn.execute(
                update(matches).where(matches.c.id == match_id, matches.c.version == version).values(**values)
            )
            if bumped.rowcount != 1:
                raise StaleVersionError(match_id)
            if seat_agent is not None:
                seat, agent = seat_agent
                conn.execute(
                    update(seats).where(seats.c.match_id == match_id, seats.c.seat == seat).values(agent=agent)
                )
            conn.execute(
                update(match_tables)
                .where(match_tables.c.match_id == match_id)
                .values(clock=clock, seat_status=seat_status, ended=ended, rematch=rematch)
            )
            announce(conn, match_id, version + 1)

    def update_clocks(self, clocks: list[tuple[str, dict[str, Any]]]) -> None:
        """Writes the clocks of several matches in one transaction, each only over an older one.

        Any process may store a clock it brought up to date; one that reflects an earlier
        version of the match than the stored one (:attr:`MatchClock.version`) is not written,
        so a take-over stored by the leader is never overwritten by a lagging copy.
        """
        if not clocks:
            return
        with self.engine.begin() as conn:
            for match_id, clock in clocks:
                stored = conn.execute(
                    select(match_tables.c.clock).where(match_tables.c.match_id == match_id).with_for_update()
                ).scalar()
                stored = _json(stored)
                if stored is not None and int(stored.get("version", 0)) > int(clock.get("version", 0)):
                    continue
                conn.execute(update(match_tables).where(match_tables.c.match_id == match_id).values(clock=clock))

    def list_live_tables(self) -> list[str]:
        """Ids of unfinished matches with a table (their clocks go on after a restart)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(match_tables.c.match_id)
                .join(matches, matches.c.id == match_tables.c.match_id)
                .where(matches.c.finished.is_(False))
            ).all()
        return [r.match_id for r in rows]


CHAT_INSERT_TRIES = 8
"""Attempts to take the next chat number before giving up (each lost race is one)."""


class ChatStore:
    """The chat lines of each match (``chat_messages``), numbered by the database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add_chat_line(self, match_id: str, seat: int, text: str, at: str) -> int:
        """Stores the next chat message of a match and returns its number.

        The number comes from the database (one more than the highest stored), taken while
        the match's row is locked (``FOR UPDATE`` on PostgreSQL; SQLite has one writer at a
        time), so two processes never hand out the same number; the primary key
        ``(match_id, n)`` would refuse a repeat anyway, and the insert is then tried again.

        Raises:
            StoreError: if every one of :data:`CHAT_INSERT_TRIES` tries lost its race.
        """
        for _ in range(CHAT_INSERT_TRIES):
            try:
                with self.engine.begin() as conn:
                    conn.execute(select(matches.c.id).where(matches.c.id == match_id).with_for_update())
                    highest = conn.execute(
                        select(func.max(chat_messages.c.n)).where(chat_messages.c.match_id == match_id)
                    ).scalar_one()
                    n = 0 if highest is None else int(highest) + 1
                    conn.execute(insert(chat_messages).values(match_id=match_id, n=n, seat=seat, text=text, at=at))
                    if conn.dialect.name == "postgresql":  # the bus: other processes' sockets hear it
                        conn.execute(select(func.pg_notify(CHAT_CHANNEL, f"{match_id} {n}")))
                return n
            except IntegrityError:
                continue
        raise StoreError(f"no chat number could be taken for match {match_id} after {CHAT_INSERT_TRIES} tries")

    def list_chat(self, match_id: str, last: int) -> tuple[list[tuple[int, int, str, str]], int]:
        """The last ``last`` chat messages ``(n, seat, text, at)``, oldest first, and the next ``n``."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(chat_messages)
                .where(chat_messages.c.match_id == match_id)
                .order_by(chat_messages.c.n.desc())
                .limit(last)
            ).all()
        rows = list(reversed(rows))
        next_n = rows[-1].n + 1 if rows else 0
        return [(r.n, r.seat, r.text, r.at) for r in rows], next_n

    def list_chat_from(self, match_id: str, first: int) -> list[tuple[int, int, str, str]]:
        """The chat messages ``(n, seat, text, at)`` numbered ``first`` and later, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(chat_messages)
                .where(chat_messages.c.match_id == match_id, chat_messages.c.n >= first)
                .order_by(chat_messages.c.n)
            ).all()
        return [(r.n, r.seat, r.text, r.at) for r in rows]


PROCESS_PREFIX = "tabletop process "
"""How a server process names its bus session (``application_name``), then its presence origin."""

NOBODY = -1
"""The ``seat_presence`` process of a seat that no process holds on a socket any more."""


class PresenceStore:
    """Who holds each seat on a socket, per server process (the ``seat_presence`` rows), on
    PostgreSQL: each process writes its own rows as sockets say hello and close, and
    whichever process leads reads them, so it can drop the seats of a process that died
    without a word, the leader before it included.  Each change is also announced on the
    bus (``tabletop_presence``), in the same transaction, for the processes that hold the
    match now."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add_presence(self, match_id: str, seat: int, process: int, now_ms: int, code: int) -> None:
        """``process`` holds a socket of the seat (``code``: the bus notice,
        ``tables.presence_code``): the seat is not gone any more."""
        with self.engine.begin() as conn:
            key = (seat_presence.c.match_id == match_id, seat_presence.c.seat == seat)
            conn.execute(delete(seat_presence).where(*key, seat_presence.c.process.in_([process, NOBODY])))
            conn.execute(insert(seat_presence).values(match_id=match_id, seat=seat, process=process, since_ms=now_ms))
            _notify_presence(conn, match_id, code)

    def delete_presence(self, match_id: str, seat: int, process: int, now_ms: int, code: int) -> None:
        """``process``'s last socket of the seat closed: its row goes, and the seat is gone
        from ``now_ms`` if no other process holds it."""
        with self.engine.begin() as conn:
            key = (seat_presence.c.match_id == match_id, seat_presence.c.seat == seat)
            conn.execute(delete(seat_presence).where(*key, seat_presence.c.process == process))
            _mark_gone(conn, [(match_id, seat)], now_ms)
            _notify_presence(conn, match_id, code)

    def list_presence(self, match_id: str) -> list[tuple[int, int, int]]:
        """The match's rows: ``(seat, process, since_ms)``, process :data:`NOBODY` for a seat gone."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(seat_presence).where(seat_presence.c.match_id == match_id)).all()
        return [(r.seat, r.process, r.since_ms) for r in rows]

    def delete_dead_processes(self, now_ms: int) -> list[tuple[str, int, int]]:
        """Deletes the rows of every process without a bus session (PostgreSQL's
        ``pg_stat_activity``: a killed process loses its sessions at once, a vanished
        machine within the keepalive time) and marks each of their seats that no live
        process holds gone from ``now_ms``; returns the rows deleted, ``(match_id, seat,
        process)``."""
        if self.engine.dialect.name != "postgresql":
            return []  # one process: it is alive
        with self.engine.begin() as conn:
            dead = conn.execute(
                text(
                    "DELETE FROM seat_presence p WHERE p.process <> :nobody AND NOT EXISTS ("
                    " SELECT 1 FROM pg_stat_activity a WHERE a.application_name = :prefix || p.process::text)"
                    " RETURNING p.match_id, p.seat, p.process"
                ),
                {"nobody": NOBODY, "prefix": PROCESS_PREFIX},
            ).all()
            _mark_gone(conn, sorted({(r.match_id, r.seat) for r in dead}), now_ms)
        return [(r.match_id, r.seat, r.process) for r in dead]


def _mark_gone(conn: Connection, seats_left: Sequence[tuple[str, int]], now_ms: int) -> None:
    """Marks each of ``seats_left`` that no process holds any more gone from ``now_ms``."""
    for match_id, seat in seats_left:
        key = (seat_presence.c.match_id == match_id, seat_presence.c.seat == seat)
        held = select(seat_presence.c.process).where(*key, seat_presence.c.process != NOBODY).limit(1)
        if conn.execute(held).first() is not None:
            continue
        # Two processes may mark one seat at once: the later time wins, never a key error.
        upsert = (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(seat_presence)
        conn.execute(
            upsert.values(match_id=match_id, seat=seat, process=NOBODY, since_ms=now_ms).on_conflict_do_update(
                index_elements=["match_id", "seat", "process"], set_={"since_ms": now_ms}
            )
        )


def _notify_presence(conn: Connection, match_id: str, code: int) -> None:
    if conn.dialect.name == "postgresql":  # the bus: the processes holding the match hear it now
        conn.execute(select(func.pg_notify(PRESENCE_CHANNEL, f"{match_id} {code}")))
