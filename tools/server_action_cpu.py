"""CPU per action of the match service alone, in one process: no sockets, no uvicorn.

    .venv/bin/python tools/server_action_cpu.py                      # this tree
    PYTHONPATH=/tmp/base/src .venv/bin/python tools/server_action_cpu.py   # another version's src

Makes ``ROOMS`` Terra Nova matches of two people on a fresh SQLite file, gives each seat a
subscriber that only keeps its frames (as a socket's outbox would), then plays ``ACTIONS``
random legal actions through ``RoomManager.act``: the checks, the engine, the commit on
the event loop, the view of the new version and its patch to both seats.  Prints the
CPU time (``time.thread_time``) per action, the part of a bench action that is neither
the websocket layers nor the kernel (``docs/benchmarks.md``).
"""

from __future__ import annotations

import asyncio
import gc
import random
import sys
import tempfile
import time

from tabletop.core.protocol import GameConfig
from tabletop.server.bots import BotPool
from tabletop.server.config import Settings
from tabletop.server.lobby_store import ChatStore, PresenceStore, TableStore
from tabletop.server.rooms import Room, RoomManager
from tabletop.server.store import MatchStore, open_database
from tabletop.server.tables import Tables

ROOMS = 100
ACTIONS = 3000


async def measure(rooms_count: int = ROOMS, actions: int = ACTIONS, seed: int = 1) -> float:
    """Microseconds of CPU per action (see the module docstring)."""
    folder = tempfile.TemporaryDirectory()
    url = f"sqlite:///{folder.name}/actions.db"
    settings = Settings(db_url=url)
    engine = open_database(url)
    store = MatchStore(engine, settings.clock)
    bots = BotPool("thread", 1, 5.0)
    rooms = RoomManager(
        store, bots, matches_per_minute=rooms_count, max_sockets_per_match=10, max_sockets_per_client=10 * rooms_count
    )
    rooms.listen(Tables(rooms, settings, TableStore(engine), PresenceStore(engine), ChatStore(engine)))
    rng = random.Random(seed)
    live: list[tuple[Room, list[str | None], list[list[str]]]] = []
    try:
        for i in range(rooms_count):
            room, tokens = await rooms.create("terranova", GameConfig(num_players=2, seed=i), [("A", "human")] * 2)
            outboxes: list[list[str]] = [[], []]
            for outbox in outboxes:
                rooms.subscribe(room, outbox.append)
                outbox.append(room.join_text())
            live.append((room, tokens, outboxes))
        gc.freeze()
        spent, done = 0.0, 0
        while done < actions:
            room, tokens, outboxes = rng.choice(live)
            if room.state.is_terminal():
                continue
            seat = room.state.current_player
            token = tokens[seat]
            assert token is not None
            legal = room._cached_view()[1]["legal"]
            action = rng.choice(legal[rng.choice(sorted(legal))])
            start = time.thread_time()
            await rooms.act(room.id, token, room.version, action, origin=outboxes[seat].append)
            await asyncio.sleep(0)  # the audience hears it on the next turn of the loop
            spent += time.thread_time() - start
            for outbox in outboxes:
                outbox.clear()
            done += 1
        return spent / done * 1e6
    finally:
        await rooms.close()
        bots.shutdown()
        store.close()
        engine.dispose()
        folder.cleanup()


if __name__ == "__main__":
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    figures = [asyncio.run(measure()) for _ in range(runs)]
    print("µs of CPU per action:", ", ".join(f"{f:.1f}" for f in figures), f"(best {min(figures):.1f})")
