"""The bus between server processes: every committed change of a match, heard by all.

On PostgreSQL the store sends ``NOTIFY tabletop_matches, '<match id> <version>'`` inside
the transaction that commits an action or an undo (so it is delivered on commit, and
only then), and each process LISTENs on one connection of its own in a thread.  An
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
import logging
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import make_url

from tabletop.server.leader import KEEPALIVE

log = logging.getLogger("tabletop.server")

CHANNEL = "tabletop_matches"
"""The PostgreSQL notification channel of match changes."""

CHAT_CHANNEL = "tabletop_chat"
"""The channel of chat lines: ``'<match id> <n>'`` once line ``n`` is stored."""

SEATS_CHANNEL = "tabletop_seats"
"""The channel of seats bound to an account: ``'<match id> <seat>'`` (the version stays)."""

PRESENCE_CHANNEL = "tabletop_presence"
"""The channel of seats' presence: ``'<match id> <code>'`` when a seat's person says hello
on a websocket or a process's last socket of the seat closes (the code names the process,
the seat and which: ``tables.presence_code``)."""

MATCH_CHANNELS = frozenset({CHANNEL, SEATS_CHANNEL})
"""The channels whose notices only a process holding the match acts on."""

RECONNECT_S = 1.0
"""Pause before the listener connects again after losing its connection."""


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


Handler = Callable[..., None]
"""Runs on the event loop for each ``'<match id> <number>'`` notification of its channel:
``handler(match_id, number)``, and on :data:`CHANNEL` ``heard(match_id, version, step)``
(``step``: the action the notice carries, or ``None``)."""


class PostgresListener:
    """LISTENs in a thread and hands each notification to the event loop.

    ``handlers`` maps each channel (:data:`CHANNEL`: ``heard(match_id, version, step)``,
    and :data:`CHAT_CHANNEL`, :data:`SEATS_CHANNEL`, :data:`PRESENCE_CHANNEL`) to what runs
    on the loop for each of its notifications.  ``holds(match_id)``, where given, is asked
    in the listener's thread for each notice of :data:`CHANNEL` and :data:`SEATS_CHANNEL`,
    and a notice of a match it does not hold is dropped there: with several processes
    every one hears every action, and handing a notice to the loop (a wake-up, a queue, a
    call) cost about 0.03 ms of CPU where the thread's own part is 0.02 ms (``tabletop
    bench bus``; ``docs/benchmarks.md``, "What a notice costs"); the handlers of those
    channels drop a match they do not cache in the same way.  ``reconnected()`` runs on
    the loop after each (re)connection, since notifications sent while the listener was
    away are lost and the caller must catch up.  The session is named
    ``application_name`` (with TCP keepalives, as the lease's): while it exists the
    process is alive (``Tables.forget_dead_processes``).
    """

    def __init__(
        self,
        db_url: str,
        loop: asyncio.AbstractEventLoop,
        handlers: dict[str, Handler],
        reconnected: Callable[[], None],
        application_name: str = "tabletop",
        holds: Callable[[str], bool] | None = None,
    ) -> None:
        self.conninfo = make_url(db_url).set(drivername="postgresql").render_as_string(hide_password=False)
        self.application_name = application_name
        """The session's name in ``pg_stat_activity``: the leader tells live processes by it."""
        self.loop = loop
        self.handlers = dict(handlers)
        self.reconnected = reconnected
        self.holds = holds
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
        with several processes each hears every action, so under load the notices of
        many actions share one).
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
        handler = self.handlers.get(channel)
        if parsed is None or handler is None:
            return
        if self.holds is not None and channel in MATCH_CHANNELS and not self.holds(parsed[0]):
            return
        if channel == CHANNEL:
            self._hand_over(handler, (*parsed, parse_step(payload)))
        else:
            self._hand_over(handler, parsed)

    def _run(self) -> None:
        import psycopg  # the ``postgres`` extra

        while not self._stop.is_set():
            try:
                options: dict[str, Any] = {"application_name": self.application_name, **KEEPALIVE}
                with psycopg.connect(self.conninfo, autocommit=True, **options) as conn:
                    for channel in self.handlers:
                        conn.execute(f"LISTEN {channel}")
                    self.listening.set()
                    self._hand_over(self.reconnected, ())
                    while not self._stop.is_set():
                        for notice in conn.notifies(timeout=1.0):
                            self._dispatch(notice.channel, notice.payload)
            except Exception:
                if self._stop.is_set():
                    return
                log.exception("the bus listener lost its connection; connecting again")
                self._stop.wait(RECONNECT_S)
