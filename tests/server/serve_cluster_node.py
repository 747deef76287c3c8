"""One server process of the cluster test (``test_cluster_kill.py``), with the toy game.

Usage: ``python serve_cluster_node.py PORT DB_URL``.  Behind haproxy (deploy/haproxy.cfg)
on loopback: every client arrives from 127.0.0.1, the proxy's address, which is the one
trusted proxy, so the per-address limits are raised to let one test machine play many
games; bots are quick (the stall after which the leader plays a dead process's bot turn
is twice their budget).
"""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn

sys.path.insert(0, str(Path(__file__).parent))
import toygame  # noqa: F401 - registers "toy"

from tabletop.server.app import create_app
from tabletop.server.config import Settings

if __name__ == "__main__":
    port, db_url = int(sys.argv[1]), sys.argv[2]
    settings = Settings(
        db_url=db_url,
        bot_executor="thread",
        bot_workers=1,
        bot_time_budget_s=0.5,
        trusted_proxies=("127.0.0.1",),
        requests_per_minute=100_000,
        ws_messages_per_minute=100_000,
        matches_per_minute=10_000,
        joins_per_minute=10_000,
        open_games_per_client=1_000,
        max_sockets_per_client=1_000,
        registrations_per_minute=100,
        chat_messages_per_minute=1_000,
        min_game_time_s=1,
        min_grace_s=1,
    )
    uvicorn.run(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
