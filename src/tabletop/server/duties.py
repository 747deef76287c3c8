"""The leader's sweep: the work that must happen once, found in the database (``server/leader.py``).

Every :data:`SWEEP_S` the process that holds the lease loads the lobby matches it does not
hold yet (their clocks are then kept there: timeouts and dropped seats are handed to
their bot by the leader only), finishes the lobby starts a process left halfway (it died
between deciding the game full and storing its match and table), takes the seats that
only dead processes held on a socket for gone (their presence rows name processes
without a database session: the leader before this one too), plays the bot turns
that have stalled (the process playing them died), and rates the matches that ended
without being rated (their process died in between).  The other processes sweep nothing;
a process leading alone (SQLite) sweeps too, which finds what its own last run left.
"""

from __future__ import annotations

import asyncio
import logging

from tabletop.server.lobby import Lobby
from tabletop.server.ratings import Rater
from tabletop.server.rooms import RoomManager
from tabletop.server.tables import Tables

log = logging.getLogger("tabletop.server")

SWEEP_S = 1.0
"""How often the leader sweeps; with the lease's poll it bounds how long a dead process's
work waits (a stalled bot turn waits :attr:`RoomManager.bot_stall_s` first)."""
LONE_SWEEP_S = 10.0
"""How often a process alone on its database (SQLite) sweeps: no other process can die with
work, so the sweep only catches what failed here (a rating, a lobby start), and each
sweep's queries cost about 1 ms of CPU."""


async def sweep_once(
    rooms: RoomManager, tables: Tables, lobby: Lobby, rater: Rater, *, new_leader: bool = False
) -> dict[str, int]:
    """One sweep, if this process leads: what it took on, by kind.

    A process that has just taken the lease (``new_leader``) plays every pending bot turn
    at once rather than after the stall: the leader before it most likely died with some
    of them, and a live process still thinking on one only loses the compare-and-set.
    """
    if not rooms.leadership.leading:
        return {}
    # The tables first: a process that has just taken the lease learns from each table it
    # loads who holds its seats, the dead among them (the leader before it included).
    loaded = await tables.load_live_tables()
    dead_process_seats = 0
    if not rooms.leadership.alone:
        dropped = await rooms.run_db(tables.presence.delete_dead_processes, tables.now_ms())
        dead_process_seats = tables.forget_dead_processes(dropped)
    return {
        "tables": loaded,
        "lobby_starts": await lobby.finish_stalled_starts(),
        "dead_process_seats": dead_process_seats,
        "bot_turns": await rooms.play_stalled_bots(0.0 if new_leader else None),
        "ratings": await rater.rate_pending(),
    }


async def keep_sweeping(
    rooms: RoomManager, tables: Tables, lobby: Lobby, rater: Rater, every_s: float | None = None
) -> None:
    """Sweeps until cancelled (every :data:`SWEEP_S`, or :data:`LONE_SWEEP_S` alone); a
    failed sweep is logged and tried again."""
    led = rooms.leadership.alone  # a lone process resumed its bots at start
    if every_s is None:
        every_s = LONE_SWEEP_S if rooms.leadership.alone else SWEEP_S
    while True:
        await asyncio.sleep(every_s)
        leading = rooms.leadership.leading
        try:
            done = await sweep_once(rooms, tables, lobby, rater, new_leader=leading and not led)
            led = leading
        except Exception:
            log.exception("the leader's sweep failed; trying again")
            continue
        if any(done.values()):
            log.info("the leader took on %s", ", ".join(f"{n} {kind}" for kind, n in done.items() if n))
