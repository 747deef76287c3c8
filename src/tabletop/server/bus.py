"""The bus between server processes: every committed change of a match, heard by the
processes that hold it.

On PostgreSQL the store sends ``NOTIFY "tabletop_match_<match id>", '<match id> <version>'``
(:func:`match_channel`) inside the transaction that commits an action or an undo (so it
is delivered on commit, and only then), and each process LISTENs on one connection of its
own in a thread, on the channel of each match it holds in memory (:class:`FollowedMatches`:
a process hears nothing of the matches other processes play).  An
action's notice also carries the action, ``'<match id> <version> <ply> <seat> <notation>'``
(:class:`Step`): a process whose cached room is at the version before applies it as it
is, without reading the database.  A process that hears of any other version newer than
its cached room reloads the room from the database.  Either way it sends the change to
its sockets, so a socket on any process hears every update of its match, whichever
process accepted the action.  On SQLite there is one
process and nothing to hear: the bus is not started.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import select
import socket
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import make_url

from tabletop.server.leader import KEEPALIVE

log = logging.getLogger("tabletop.server")

CHANNEL = "tabletop_matches"
"""The key of the match channels' handler in :class:`PostgresListener`'s ``handlers``;
each match's changes go out on its own channel, :func:`match_channel`."""

MATCH_CHANNEL_PREFIX = "tabletop_match_"


def match_channel(match_id: str) -> str:
    """The channel of ``match_id``'s changes (at most 15 + 32 bytes: PostgreSQL's
    identifiers hold 63)."""
    return MATCH_CHANNEL_PREFIX + match_id


CHAT_CHANNEL = "tabletop_chat"
"""The channel of chat lines: ``'<match id> <n>'`` once line ``n`` is stored."""

SEATS_CHANNEL = "tabletop_seats"
"""The channel of seats bound to an account: ``'<match id> <seat>'`` (the version stays)."""

PRESENCE_CHANNEL = "tabletop_presence"
"""The channel of seats' presence: ``'<match id> <code>'`` when a seat's person says hello
on a websocket or a process's last socket of the seat closes (the code names the process,
the seat and which: ``tables.presence_code``)."""

HELD_CHANNELS = frozenset({SEATS_CHANNEL})
"""The channels heard by every process whose notices only a process holding the match
acts on (besides the matches' own channels)."""

RECONNECT_S = 1.0
"""Pause before the listener connects again after losing its connection."""

WAIT_S = 1.0
"""The longest the listener's thread sleeps between looks at its stop flag."""

LISTEN_BATCH = 500
"""Channels (UN)LISTENed in one statement."""


def is_postgres(url: str) -> bool:
    """Whether ``url`` names a PostgreSQL database (the bus works there only)."""
    return make_url(url).get_backend_name() == "postgresql"


MAX_PAYLOAD = 7000
"""PostgreSQL refuses a notification payload of 8000 bytes or more; a longer action is
announced without itself (the listeners read it from the database)."""


@dataclass(frozen=True, slots=True)
class Step:
    """The action an action's notice carries: its ply, its seat and its notation."""

    ply: int
    seat: int
    action: str


def notice_payload(match_id: str, version: int, step: Step | None = None) -> str:
    """The payload announcing that ``match_id`` is at ``version`` (after ``step``, if given)."""
    if step is not None:
        payload = f"{match_id} {version} {step.ply} {step.seat} {step.action}"
        if len(payload.encode()) <= MAX_PAYLOAD:
            return payload
    return f"{match_id} {version}"


def parse_notice(payload: str) -> tuple[str, int] | None:
    """``(match_id, version)`` from a notification's payload, or ``None`` if malformed."""
    match_id, _, rest = payload.partition(" ")
    version = rest.split(" ", 1)[0]
    if not match_id or not version.isdigit():
        return None
    return match_id, int(version)


def parse_step(payload: str) -> Step | None:
    """The action a notice carries, or ``None`` (an undo's notice, or a malformed one)."""
    fields = payload.split(" ", 4)
    if len(fields) != 5 or not fields[2].isdigit() or not fields[3].isdigit() or not fields[4]:
        return None
    return Step(int(fields[2]), int(fields[3]), fields[4])


class FollowedMatches:
    """The matches whose channels this process LISTENs on: the rooms it holds in memory.

    The rooms add and discard matches on the event loop; the listener's thread takes the
    changes (:meth:`take`, woken through :meth:`fileno`) and LISTENs or UNLISTENs, then tells the loop which channels
    it now hears (``listened`` of :class:`PostgresListener`): a change committed between
    the room's load and its LISTEN was announced to nobody here, so the rooms read those
    matches' versions once more.  Thread-safe.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._followed: set[str] = set()
        self._to_listen: set[str] = set()
        self._to_unlisten: set[str] = set()
        self._wake: tuple[socket.socket, socket.socket] | None = None
        """Made by :meth:`fileno` (the listener's): readable while changes wait."""
        self._woken = False

    @property
    def has_changes(self) -> bool:
        """Whether :meth:`take` has anything (read without the lock: a hint)."""
        return bool(self._to_listen or self._to_unlisten)

    def fileno(self) -> int:
        """A file descriptor that is readable while changes wait for :meth:`take` (the
        listener's thread selects on it with the database connection's socket)."""
        with self._lock:
            if self._wake is None:
                self._wake = socket.socketpair()
                self._wake[0].setblocking(False)
                if self._to_listen or self._to_unlisten:
                    self._changed()
            return self._wake[0].fileno()

    def _changed(self) -> None:
        """Under the lock: wakes the listener on the first change since :meth:`take`."""
        if self._wake is not None and not self._woken:
            self._woken = True
            with contextlib.suppress(OSError):
                self._wake[1].send(b"!")

    def add(self, match_id: str) -> None:
        with self._lock:
            if match_id in self._followed:
                return
            self._followed.add(match_id)
            # Even where its channel is still LISTENed (discarded a moment ago), a notice
            # heard while no room held the match was dropped: LISTEN again (a no-op for
            # PostgreSQL), and the rooms read the version once more.
            self._to_unlisten.discard(match_id)
            self._to_listen.add(match_id)
            self._changed()

    def discard(self, match_id: str) -> None:
        with self._lock:
            if match_id not in self._followed:
                return
            self._followed.discard(match_id)
            if match_id in self._to_listen:
                self._to_listen.discard(match_id)
            else:
                self._to_unlisten.add(match_id)
                self._changed()

    def __contains__(self, match_id: object) -> bool:
        return match_id in self._followed

    def __len__(self) -> int:
        return len(self._followed)

    def take(self) -> tuple[list[str], list[str]]:
        """The matches to LISTEN on and to UNLISTEN from since the last call."""
        with self._lock:
            listen, self._to_listen = sorted(self._to_listen), set()
            unlisten, self._to_unlisten = sorted(self._to_unlisten), set()
            if self._woken and self._wake is not None:
                self._woken = False
                with contextlib.suppress(BlockingIOError):
                    self._wake[0].recv(16)
        return listen, unlisten

    def reset(self) -> None:
        """A new connection listens on nothing: every followed match is to LISTEN on."""
        with self._lock:
            self._to_listen = set(self._followed)
            self._to_unlisten = set()


Handler = Callable[..., None]
"""Runs on the event loop for each ``'<match id> <number>'`` notification of its channel:
``handler(match_id, number)``, and on :data:`CHANNEL` ``heard(match_id, version, step)``
(``step``: the action the notice carries, or ``None``)."""


class PostgresListener:
    """LISTENs in a thread and hands each notification to the event loop.

    ``handlers`` maps each channel (:data:`CHANNEL`: ``heard(match_id, version, step)``
    for the channel of every match in ``followed``, :func:`match_channel`; and
    :data:`CHAT_CHANNEL`, :data:`SEATS_CHANNEL`, :data:`PRESENCE_CHANNEL`, LISTENed as
    they are) to what runs on the loop for each of its notifications.  The matches'
    channels follow ``followed`` (woken by it); ``listened(match_ids)``
    runs on the loop once the channels of matches newly followed are LISTENed.

    ``holds(match_id)``, where given, is asked in the listener's thread for each notice of
    a match and of :data:`SEATS_CHANNEL`, and a notice of a match it does not hold is
    dropped there (a match just discarded, before its UNLISTEN; a seat's notice of any
    match): handing a notice to the loop (a wake-up, a queue, a call) costs about 0.03 ms
    of CPU where the thread's own part is 0.02 ms (``tabletop bench bus``;
    ``docs/benchmarks.md``, "What a notice costs").  ``reconnected()`` runs on the loop
    after each (re)connection, since notifications sent while the listener was away are
    lost and the caller must catch up.  The session is named ``application_name`` (with
    TCP keepalives, as the lease's): while it exists the process is alive
    (``Tables.forget_dead_processes``).
    """

    def __init__(
        self,
        db_url: str,
        loop: asyncio.AbstractEventLoop,
        handlers: dict[str, Handler],
        reconnected: Callable[[], None],
        application_name: str = "tabletop",
        holds: Callable[[str], bool] | None = None,
        followed: FollowedMatches | None = None,
        listened: Callable[[list[str]], None] | None = None,
    ) -> None:
        self.conninfo = make_url(db_url).set(drivername="postgresql").render_as_string(hide_password=False)
        self.application_name = application_name
        """The session's name in ``pg_stat_activity``: the leader tells live processes by it."""
        self.loop = loop
        self.handlers = dict(handlers)
        self.reconnected = reconnected
        self.holds = holds
        self.followed = followed if followed is not None else FollowedMatches()
        self.listened = listened
        self.listening = threading.Event()
        self._calls: deque[tuple[Callable[..., None], tuple[Any, ...]]] = deque()
        """What the thread has heard and the loop has not yet run, in order."""
        self._calls_lock = threading.Lock()
        self._drain_scheduled = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bus-listener", daemon=True)

    def start(self, timeout_s: float = 10.0) -> None:
        """Starts listening; returns once the first LISTEN is in place (or after ``timeout_s``)."""
        self._thread.start()
        if not self.listening.wait(timeout_s):
            log.warning("the bus listener is not connected yet; updates from other processes wait for it")

    def close(self) -> None:
        """Stops the thread (within about a second)."""
        self._stop.set()
        self._thread.join(timeout=5)

    def _hand_over(self, handler: Callable[..., None], args: tuple[Any, ...]) -> None:
        """Queues ``handler(*args)`` for the event loop, in the order heard.

        The loop is woken once for all that the thread hears before it runs them (one
        wake-up of the loop from this thread costs a pipe write and a switch of the GIL:
        under load the notices of many actions share one).
        """
        with self._calls_lock:
            self._calls.append((handler, args))
            if self._drain_scheduled:
                return
            self._drain_scheduled = True
        try:
            self.loop.call_soon_threadsafe(self._drain)
        except BaseException:  # the loop is closed: nothing will drain, the next call tries again
            with self._calls_lock:
                self._drain_scheduled = False
            raise

    def _drain(self) -> None:
        """On the loop: runs every queued call; one that fails is logged, the rest still run."""
        with self._calls_lock:
            calls, self._calls = self._calls, deque()
            self._drain_scheduled = False
        for handler, args in calls:
            try:
                handler(*args)
            except Exception:
                log.exception("a bus handler failed (%s)", getattr(handler, "__qualname__", handler))

    def _dispatch(self, channel: str, payload: str) -> None:
        """In the listener's thread: hands one notification to its handler on the loop,
        unless it is malformed, of no channel handled here, or of a match this process
        does not hold (``holds``)."""
        parsed = parse_notice(payload)
        if parsed is None:
            return
        match_id = parsed[0]
        held = self.holds is None or self.holds(match_id)
        if channel.startswith(MATCH_CHANNEL_PREFIX):
            handler = self.handlers.get(CHANNEL)
            if handler is not None and channel == match_channel(match_id) and held:
                self._hand_over(handler, (*parsed, parse_step(payload)))
            return
        handler = self.handlers.get(channel) if channel != CHANNEL else None
        if handler is not None and (held or channel not in HELD_CHANNELS):
            self._hand_over(handler, parsed)

    def _follow(self, conn: Any, *, everything: bool = False) -> None:
        """In the listener's thread: LISTENs on the channels of the matches followed since
        the last call and UNLISTENs from those no longer followed; then ``listened`` on the
        loop (not after a (re)connection, ``everything``: ``reconnected`` catches up all)."""
        from psycopg import sql

        listen, unlisten = self.followed.take()
        for command, match_ids in (("UNLISTEN", unlisten), ("LISTEN", listen)):
            for start in range(0, len(match_ids), LISTEN_BATCH):
                chunk = match_ids[start : start + LISTEN_BATCH]
                conn.execute(
                    sql.SQL("; ").join(sql.SQL(command + " {}").format(sql.Identifier(match_channel(m))) for m in chunk)
                )
        if listen and not everything and self.listened is not None:
            self._hand_over(self.listened, (listen,))
        # What arrived while it (UN)LISTENed: psycopg kept it.
        for notice in conn.notifies(timeout=0):
            self._dispatch(notice.channel, notice.payload)

    def _run(self) -> None:
        import psycopg  # the ``postgres`` extra

        while not self._stop.is_set():
            try:
                options: dict[str, Any] = {"application_name": self.application_name, **KEEPALIVE}
                with psycopg.connect(self.conninfo, autocommit=True, **options) as conn:
                    for channel in self.handlers:
                        if channel != CHANNEL:
                            conn.execute(f"LISTEN {channel}")
                    self.followed.reset()
                    self._follow(conn, everything=True)
                    self.listening.set()
                    self._hand_over(self.reconnected, ())
                    pgconn = conn.pgconn
                    sockets = [conn.fileno(), self.followed.fileno()]
                    while not self._stop.is_set():
                        if self.followed.has_changes:
                            self._follow(conn)
                        readable, _, _ = select.select(sockets, [], [], WAIT_S)
                        if sockets[0] in readable:
                            # libpq's own calls, as psycopg's ``notifies`` makes them, without
                            # its generator and timers: this runs for every notice heard.
                            pgconn.consume_input()
                            while (raw := pgconn.notifies()) is not None:
                                self._dispatch(raw.relname.decode(), raw.extra.decode())
            except Exception:
                if self._stop.is_set():
                    return
                log.exception("the bus listener lost its connection; connecting again")
                self._stop.wait(RECONNECT_S)
