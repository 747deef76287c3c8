"""Who does the work that must happen once across server processes (docs/server.md, "Many processes").

Several processes on one PostgreSQL database each accept actions, but some work must be
done by one of them only: handing a timed-out or dropped seat to its bot, playing a bot
turn whose process died, rating a match whose process died before it could.  One process
leads: it holds a PostgreSQL advisory lock (``pg_try_advisory_lock``) on a connection of
its own.  PostgreSQL frees the lock the moment that session ends (the process died, or
its connection broke), and the others try to take it every :data:`LEASE_POLL_S`, so
another process leads within about that long.  The leader checks its connection as
often, and stops leading as soon as the check fails (the lock may be someone else's by
then).  On SQLite there is one process, and it leads.

The lease only decides who *tries*: every write it leads to is still a compare-and-set
on the match's version (or a row lock), so two processes that both think they lead for a
moment (a partition the old leader has not noticed yet) cannot both apply the same turn.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Protocol

from sqlalchemy.engine import make_url

log = logging.getLogger("tabletop.server")

TAKE_LEASE = "SELECT pg_try_advisory_lock(hashtext('tabletop lease ' || current_schema())::bigint)"
"""Takes the lease if free.  Its key names the schema: the services of two schemas of one
database (say, a test's own) each have their own leader."""

LEASE_POLL_S = 1.0
"""How often a follower tries to take the lease, and the leader checks it still holds it."""

KEEPALIVE = {"keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2, "keepalives_count": 3}
"""TCP keepalives on the lease's connection: PostgreSQL drops the session of a leader whose
machine vanished (no reset sent) after about 11 s instead of the kernel's two hours."""


class Leadership(Protocol):
    """Whether this process leads now; checked before each piece of work that must happen once."""

    @property
    def leading(self) -> bool: ...

    @property
    def alone(self) -> bool:
        """Whether this is the only process on its database (SQLite): it need not wait
        for a stall to play a bot turn or load every table at start."""
        ...

    def start(self) -> None: ...

    def close(self) -> None: ...


class SoleProcess:
    """SQLite: one process, always the leader."""

    @property
    def leading(self) -> bool:
        return True

    @property
    def alone(self) -> bool:
        return True

    def start(self) -> None:
        """Nothing to take."""

    def close(self) -> None:
        """Nothing to give back."""


class AdvisoryLease:
    """The lease as a PostgreSQL advisory lock held by a thread on its own connection."""

    def __init__(self, db_url: str, poll_s: float = LEASE_POLL_S) -> None:
        self.conninfo = make_url(db_url).set(drivername="postgresql").render_as_string(hide_password=False)
        self.poll_s = poll_s
        self._leading = threading.Event()
        self._stop = threading.Event()
        self._tried = threading.Event()
        self._thread = threading.Thread(target=self._run, name="leader-lease", daemon=True)

    @property
    def leading(self) -> bool:
        return self._leading.is_set()

    @property
    def alone(self) -> bool:
        return False

    def start(self) -> None:
        """Starts trying for the lease (a first try is made before this returns)."""
        self._thread.start()
        self._tried.wait(10.0)

    def close(self) -> None:
        """Gives the lease back (the connection closes) and stops the thread."""
        self._stop.set()
        self._thread.join(timeout=5)
        self._leading.clear()

    def _run(self) -> None:
        import psycopg  # the ``postgres`` extra

        while not self._stop.is_set():
            try:
                with psycopg.connect(self.conninfo, autocommit=True, **KEEPALIVE) as conn:  # type: ignore[arg-type]
                    while not self._stop.is_set():
                        if self._leading.is_set():
                            conn.execute("SELECT 1")  # still connected, so the lock is still ours
                        else:
                            row = conn.execute(TAKE_LEASE).fetchone()
                            if row is not None and row[0]:
                                log.info("this process leads now (clocks, bot take-overs, ratings)")
                                self._leading.set()
                        self._tried.set()
                        self._stop.wait(self.poll_s)
            except Exception:
                if self._leading.is_set():
                    log.warning("the leader lost its lease connection; it leads no more")
                self._leading.clear()
                self._tried.set()
                if self._stop.is_set():
                    return
                log.exception("the lease connection failed; trying again")
                time.sleep(self.poll_s)


def make_leadership(db_url: str, is_postgres: bool) -> Leadership:
    """A lease on PostgreSQL, the sole process on SQLite."""
    return AdvisoryLease(db_url) if is_postgres else SoleProcess()
